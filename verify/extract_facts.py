"""What `verify.extract` finds in a lowered module (runtime calls with their
guards, handles, leftovers of the gpu dialect, unexplored paths), and how it
reads an op's name-independent parts: location, attributes, types."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import z3

from verify.fold import conj, neg

HANDLE_CREATORS = {"mgpuStreamCreate": "stream", "mgpuEventCreate": "event"}
GPU_RUNTIME_OPS = {"gpu.alloc", "gpu.dealloc", "gpu.wait", "gpu.memcpy", "gpu.memset",
                   "gpu.launch_func", "gpu.launch", "gpu.host_register",
                   "gpu.host_unregister"}
ESCAPE = "<escape>"
# Host reads and writes of buffers are listed among the calls: they are
# points in host order that async-order needs.
HOST_ACCESS = ("host.load", "host.store")
_LOC_RE = re.compile(r'loc\("([^"]*)"')




@dataclass
class Call:
    index: int
    func: str
    callee: str
    args: tuple[z3.ArithRef, ...]
    guard: z3.BoolRef
    source_op: str | None
    handle: int | None = None  # the handle this call creates, if any
    iters: tuple[int, ...] = ()  # iteration numbers of the enclosing unrolled loops
    note: str = ""  # an escape: where the value went
    flags: tuple[z3.BoolRef, z3.BoolRef] | None = None  # an escape: (destroys, uses)

    @property
    def is_host_access(self) -> bool:
        return self.callee in HOST_ACCESS

    @property
    def is_escape(self) -> bool:
        return self.callee == ESCAPE


@dataclass
class Residue:
    """A gpu runtime op or a `!gpu.async.token` value left by the lowering."""

    what: str
    func: str
    source_op: str | None
    guard: z3.BoolRef


@dataclass
class Cut:
    """Paths the extractor did not explore, and why."""

    guard: z3.BoolRef
    reason: str


@dataclass
class LoweredFacts:
    calls: list[Call] = field(default_factory=list)
    handles: dict[int, tuple[str, Call]] = field(default_factory=dict)
    residue: list[Residue] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    unknown_values: set[int] = field(default_factory=set)  # distinct non-handle stand-ins
    unknowns: dict[str, str] = field(default_factory=dict)  # "?n" -> what produced it
    _explored: z3.BoolRef | None = None

    @property
    def explored(self) -> z3.BoolRef:
        """The paths every loop and call was followed on to the end."""
        if self._explored is None:
            self._explored = conj(*(neg(c.guard) for c in self.cuts))
        return self._explored

    def handles_of(self, kind: str) -> Iterable[tuple[int, Call]]:
        return ((h, c) for h, (k, c) in self.handles.items() if k == kind)

    def calls_to(self, *callees: str) -> list[Call]:
        return [c for c in self.calls if c.callee in callees]

    def escapes(self) -> list[Call]:
        return [c for c in self.calls if c.is_escape]


def source_loc(op: Any) -> str | None:
    """The key of the source op `op` came from: its name location (`opN`),
    or `file:line:col` for a file location; None without either."""
    loc = getattr(op, "location", None)
    if loc is None:
        return None
    text = str(loc)
    m = _LOC_RE.search(text)
    if m is None:
        return None
    f = _FILE_LOC_RE.match(text, m.start())
    return f"{f.group(1)}:{f.group(2)}:{f.group(3)}" if f else m.group(1)


_FILE_LOC_RE = re.compile(r'loc\("([^"]*)":(\d+):(\d+)\)')


def where(op: Any) -> str:
    """The op's location for a reason text: `name` or `file:line:col`."""
    text = str(getattr(op, "location", "") or "")
    m = _FILE_LOC_RE.search(text)
    if m is not None:
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    return source_loc(op) or "?"


def attr_of(op: Any, name: str) -> Any:
    props = getattr(op, "properties", {}) or {}
    if name in props:
        return props[name]
    return (getattr(op, "attributes", {}) or {}).get(name)


def int_value(attr: Any) -> int | None:
    value = getattr(attr, "value", None)
    data = getattr(value, "data", None)
    if isinstance(data, bool):
        return int(data)
    if isinstance(data, int):
        return data
    return None


def int_tuple(attr: Any) -> tuple[int, ...] | None:
    for getter in ("as_tuple", "get_values"):
        fn = getattr(attr, getter, None)
        if fn is not None:
            try:
                return tuple(int(v) for v in fn())
            except (TypeError, ValueError):
                return None
    return None


def callee_name(op: Any) -> str | None:
    attr = attr_of(op, "callee")
    if attr is None:
        return None
    root = getattr(attr, "root_reference", None)
    if root is not None:
        return str(root.data)
    text = str(attr)
    return text.lstrip("@") if text else None


def type_text(value: Any) -> str:
    return str(getattr(value, "type", ""))


def pointer_like(value: Any) -> bool:
    """Could a value of this type hold a handle?  Pointers, structs of them,
    tokens and types the reader did not give."""
    t = type_text(value)
    return not t or "ptr" in t or "token" in t or "struct" in t or t.startswith("!")


# A reason text, or a function that writes it: most are never shown.
Words = str | Callable[[], str]


def words(text: Words) -> str:
    return text() if callable(text) else text


def func_name(op: Any) -> str:
    name = attr_of(op, "sym_name")
    return str(getattr(name, "data", name))


def has_body(op: Any) -> bool:
    return bool(op.regions) and bool(op.regions[0].blocks)
