"""Upstream's runtime wrapper libraries as data: which `mgpu*` functions each
platform's wrapper exports, per LLVM major version, with their C parameters.

Read from `runtime_table.json` (written by `scripts/read_runtime_wrappers.py`
from upstream's `*RuntimeWrappers.cpp`).  Only signatures live here; what the
functions do is `runtime_effects`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

PLATFORMS = ("cuda", "rocm", "sycl", "levelzero")
# `--runtime` profile names (and the platforms themselves) -> table platform.
_PLATFORM_OF = {"cuda": "cuda", "hip": "rocm", "rocm": "rocm", "sycl": "sycl",
                "levelzero": "levelzero"}
# Opaque handle typedefs: passed as pointers, like any `T *`.
_HANDLE_TYPES = frozenset({
    "CUstream", "CUevent", "CUmodule", "CUfunction", "hipStream_t", "hipEvent_t",
    "hipModule_t", "hipFunction_t", "ze_event_handle_t", "ze_module_handle_t",
    "ze_kernel_handle_t",
})


def c_kind(ctype: str) -> str:
    """"p" for a pointer or handle, "i" for an integer (enums and bool too)."""
    return "p" if "*" in ctype or ctype.removeprefix("const ") in _HANDLE_TYPES else "i"


@dataclass(frozen=True)
class Param:
    type: str
    name: str
    unused: bool = False  # upstream comments the name out: the wrapper never reads it


@dataclass(frozen=True)
class Function:
    name: str
    returns: str
    params: tuple[Param, ...]
    guard: str | None = None  # the #if around it (a build option, a CUDA version)
    added_by: str = ""  # a later upstream change whose export the stored text lacked

    @property
    def arity(self) -> int:
        return len(self.params)

    @property
    def kinds(self) -> str:
        return "".join(c_kind(p.type) for p in self.params)


@dataclass(frozen=True)
class Entry:
    """One wrapper file at one LLVM version, or why there is none."""

    version: int
    platform: str
    functions: tuple[Function, ...]
    repo: str = ""
    commit: str = ""
    note: str = ""
    absent: str = ""


def platform_of(runtime: str) -> str:
    """The table platform of a `--runtime` name ("hip" -> "rocm")."""
    try:
        return _PLATFORM_OF[runtime]
    except KeyError:
        raise ValueError(f"no runtime table for {runtime!r}") from None


def _function(d: dict) -> Function:  # type: ignore[type-arg]
    params = tuple(Param(p["type"], p["name"], bool(p.get("unused"))) for p in d["params"])
    return Function(d["name"], d["returns"], params, d.get("guard"), d.get("added_by", ""))


@cache
def entries() -> tuple[Entry, ...]:
    raw = json.loads(resources.files(__package__).joinpath("runtime_table.json").read_text())
    return tuple(
        Entry(e["version"], e["platform"], tuple(_function(f) for f in e.get("functions", ())),
              e.get("repo", ""), e.get("commit", ""), e.get("note", ""), e.get("absent", ""))
        for e in raw["entries"])


def versions() -> tuple[int, ...]:
    return tuple(sorted({e.version for e in entries()}))


def exported(version: int, platform: str) -> tuple[Function, ...]:
    """The functions `platform`'s wrapper exports at LLVM `version` (none
    where the file does not exist at that version)."""
    p = platform_of(platform)
    return tuple(f for e in entries() if e.version == version and e.platform == p
                 for f in e.functions)


def all_functions() -> tuple[Function, ...]:
    return tuple(f for e in entries() for f in e.functions)


def versions_for(version: int | None) -> tuple[int, ...]:
    """The table versions a call of a lowering at LLVM `version` is checked
    against: that version's own entry where the table has it, else every
    version (no claim about a release the table did not read)."""
    return (version,) if version in versions() else versions()
