"""Lines of a generator-printed program, as the certificate reads them back
(`verify.certify.from_text`): a `func.func` header, a `gpu` op line and its
parts.  The patterns live here, with the package's other readers of MLIR
text, so that one place knows how the text is spelled."""

from __future__ import annotations

import re

# A `func.func` header: (private, name, arguments, results, attributes).
FUNC_HEADER = re.compile(r"^\s*func\.func\s+(private\s+)?@([\w$.]+)\((.*?)\)\s*(->\s*.*?)?\s*"
                         r"(attributes\s*\{.*\})?\s*\{\s*$")
# A `gpu` op of the certificate's kinds: (results, kind, the rest of the line).
GPU_OP = re.compile(r"^\s*(?:(%[\w$.]+(?:\s*,\s*%[\w$.]+)*)\s*=\s*)?"
                    r"gpu\.(wait|alloc|dealloc|memset|memcpy|launch_func)\b(.*)$")
ARITH_CONSTANT = re.compile(r"^\s*%[\w$.]+\s*=\s*arith\.constant\b")
MEMREF_TYPE = re.compile(r"memref<([^<>]*(?:<[^<>]*>[^<>]*)*)>")
VALUE = re.compile(r"%[\w$.]+")
TRAILING_LOC = re.compile(r"\s+loc\(.*\)\s*$")
OP_NAME = re.compile(r"^\s*(?:%[^=]+=\s*)?\"?([a-z_]+\.[\w.]+)")
# gpu.launch_func's kernel and its args(...) list.
KERNEL_REF = re.compile(r"@[\w$.]+::@([\w$.]+)")
LAUNCH_ARGS = re.compile(r"args\((.*)\)\s*$")
_DEPS = re.compile(r"\s*\[([^\]]*)\]")
_HOST_SHARED = re.compile(r"\s*host_shared\b")
_BEFORE_VALUE = re.compile(r",\s*(?=%)")


def split_at_values(text: str) -> list[str]:
    """A comma-separated list cut before each `%value` (types keep their commas)."""
    return _BEFORE_VALUE.split(text)


def leading_deps(rest: str) -> tuple[list[str], str]:
    """The `[%a, %b]` dependency list opening `rest` (value names), and what follows."""
    m = _DEPS.match(rest)
    if m is None:
        return [], rest
    return VALUE.findall(m.group(1)), rest[m.end():]


def opens_with_host_shared(rest: str) -> bool:
    return _HOST_SHARED.match(rest) is not None
