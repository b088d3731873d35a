"""A program's MLIR text read back as certificate steps, or the constructs
that put it outside the certificate's space.

`to_program` prints steps as MLIR; this reads a program the generator
printed (a `fuzz` program, a triage reduction, a certificate's own) back
into steps, so that "is this program one the certificate checked?" has an
exact answer: its canonical key is, or is not, among the enumeration's.

Outside the space are the constructs `space.KINDS` does not list: host
code (branches, loops, `memref.alloc`, loads and stores, views,
`async.execute`, calls), several functions with ops, scalar or index
arguments, a kernel other than the certificate's, dynamic shapes and
memory spaces the run did not enumerate.  A buffer's static shape and
element type are not a construct: the certificate checks one type
(`memref<4xf32>`) and triage's root causes do not depend on it, so another
one is read as that type and only noted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_alloc_verify.verify.certify.space import Step
from gpu_alloc_verify.verify.certify.to_program import ELEM, KERNEL_SHAPE, SHAPE
from gpu_alloc_verify.verify.ir.program_lines import (
    ARITH_CONSTANT,
    FUNC_HEADER,
    GPU_OP,
    KERNEL_REF,
    LAUNCH_ARGS,
    MEMREF_TYPE,
    OP_NAME,
    TRAILING_LOC,
    VALUE,
    leading_deps,
    opens_with_host_shared,
    split_at_values,
)
from gpu_alloc_verify.verify.model.kernels import parse_kernel_name


@dataclass
class Read:
    """What `read_program` found: the steps (None when some construct is
    outside the space), those constructs, and notes on types read as the
    certificate's."""

    steps: tuple[Step, ...] | None
    outside: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def in_space(self) -> bool:
        return self.steps is not None and not self.outside


@dataclass
class _Reader:
    spaces: bool
    values: dict[str, int] = field(default_factory=dict)
    args: dict[str, str] = field(default_factory=dict)  # name -> type text
    buffers: set[str] = field(default_factory=set)
    outside: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def miss(self, what: str) -> None:
        if what not in self.outside:
            self.outside.append(what)

    def value(self, name: str) -> int:
        return self.values.setdefault(name, len(self.values))

    def memref(self, body: str, allocated: bool) -> str | None:
        """The variant word of a buffer type (`space1`, or "" for space 0),
        None when the type is outside the space."""
        parts = [p.strip() for p in body.split(",")]
        dims = parts[0].split("x")
        if any(d == "?" for d in dims[:-1]):
            self.miss("dynamic shape")
            return None
        if len(parts) > 1 and parts[1].startswith("strided"):
            self.miss("memref view (strided layout)")
            return None
        space = parts[-1] if len(parts) > 1 and parts[-1].isdigit() else None
        wanted = "x".join(map(str, SHAPE)) + "x" + ELEM
        if parts[0] != wanted:
            note = f"memref<{parts[0]}> read as memref<{wanted}>"
            if note not in self.notes:
                self.notes.append(note)
        if space is None:
            return ""
        if not (self.spaces and allocated and space == "1"):
            self.miss(f"memory space {space}" + ("" if allocated else " on a buffer passed in"))
            return None
        return f"space{space}"

    def types(self, text: str, allocated: bool = False) -> tuple[str, ...] | None:
        found = [self.memref(m.group(1), allocated) for m in MEMREF_TYPE.finditer(text)]
        return None if any(f is None for f in found) else tuple(f for f in found if f)

    def buffer(self, name: str) -> int:
        if name in self.args:
            self.buffers.add(name)
        return self.value(name)


def _functions(lines: list[str]) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """The host functions (header, the lines of their top-level ops: a nested
    region shows as the op that opens it) and the module-level lines of no
    function (kernel modules skipped)."""
    funcs: list[tuple[str, list[str]]] = []
    other: list[str] = []
    depth = 0
    current: list[str] | None = None
    in_kernels = False
    for line in lines:
        opens, closes = line.count("{"), line.count("}")
        if depth == 1 and line.lstrip().startswith("gpu.module"):
            in_kernels = True
        elif depth == 1 and FUNC_HEADER.match(line):
            current = []
            funcs.append((line, current))
        elif current is not None and depth == 2 and line.strip() != "}":
            current.append(line)
        elif depth == 1 and not in_kernels and line.strip() not in ("}", ""):
            other.append(line)
        depth += opens - closes
        if depth <= 1:
            current, in_kernels = None, False
    return funcs, other


def read_program(text: str, spaces: bool = False) -> Read:
    """`text` (a program as `prog.Program.to_mlir` prints it) as steps.
    `spaces`: the certificate enumerated gpu.alloc in memory space 1."""
    r = _Reader(spaces)
    funcs, other = _functions(text.splitlines())
    for line in other:
        m = OP_NAME.match(line)
        r.miss(f"module-level {m.group(1) if m else line.strip()}")
    busy = [(h, b) for h, b in funcs if any(ln.strip() not in ("return", "") for ln in b)]
    if len(busy) > 1:
        r.miss(f"{len(busy)} functions with ops")
    if not busy:
        return Read((), r.outside, r.notes)
    header, body = busy[0]
    m = FUNC_HEADER.match(header)
    assert m is not None
    if m.group(1):
        r.miss("a private function (a callee)")
    if m.group(4):
        r.miss("function results")
    for arg in filter(None, (a.strip() for a in split_at_values(m.group(3)))):
        name, _, type_ = arg.partition(":")
        type_ = type_.strip()
        if type_.startswith("memref<"):
            r.args[name.strip()] = type_
            r.types(type_)
        else:
            r.miss("index argument (dynamic size)" if type_ == "index"
                   else f"scalar argument ({type_})")
    steps = []
    for line in body:
        line = TRAILING_LOC.sub("", line)
        if not line.strip() or line.strip() == "return" or ARITH_CONSTANT.match(line):
            continue
        g = GPU_OP.match(line)
        if line.lstrip().startswith("^"):
            r.miss("blocks (cf branches or loops)")
            continue
        if g is None:
            op = OP_NAME.match(line)
            r.miss(op.group(1) if op else line.strip())
            continue
        step = _step(r, g.group(2), g.group(1) or "", g.group(3))
        if step is not None:
            steps.append(step)
    if len(r.buffers) > 2:
        r.miss(f"{len(r.buffers)} buffers passed in")
    return Read(tuple(steps) if not r.outside else None, r.outside, r.notes)


def _step(r: _Reader, kind: str, results: str, rest: str) -> Step | None:
    """One gpu op line (`kind`, its results, the text after its name)."""
    defined = [v.strip() for v in results.split(",") if v.strip()]
    is_async = rest.lstrip().startswith("async")
    if is_async:
        rest = rest.lstrip()[len("async"):]
    dep_names, rest = leading_deps(rest)
    deps = tuple(r.value(d) for d in dep_names)
    if len(deps) > 3:
        r.miss(f"{len(deps)} dependencies")
    mode = ("async",) if is_async else ("sync",)
    if kind == "wait":
        return Step("wait", mode, deps, (), tuple(r.value(v) for v in defined))
    if kind == "alloc":
        kinds = r.types(rest, allocated=True)
        if kinds is None:
            return None
        shared = ("shared",) if opens_with_host_shared(rest) else ()
        return Step("alloc", mode + shared + kinds, deps, (),
                    tuple(r.value(v) for v in defined))
    if kind == "launch_func":
        return _launch(r, mode, deps, defined, rest)
    operands, _, type_text = rest.partition(":")
    if r.types(type_text, allocated=True) is None:
        return None
    names = VALUE.findall(operands)
    bufs = names[:2] if kind == "memcpy" else names[:1]
    return Step(kind, mode, deps, tuple(r.buffer(b) for b in bufs),
                tuple(r.value(v) for v in defined))


def _launch(r: _Reader, mode: tuple[str, ...], deps: tuple[int, ...], defined: list[str],
            rest: str) -> Step | None:
    km = KERNEL_REF.search(rest)
    ref = parse_kernel_name(km.group(1)) if km else None
    if ref is None or ref.shape != KERNEL_SHAPE:
        r.miss(f"kernel {ref.shape if ref else km.group(1) if km else '?'}")
        return None
    am = LAUNCH_ARGS.search(rest)
    bufs = [a.split(":")[0].strip() for a in split_at_values(am.group(1) if am else "")
            if "memref<" in a]
    if r.types(am.group(1) if am else "", allocated=True) is None:
        return None
    return Step("launch", mode, deps, tuple(r.buffer(b) for b in bufs),
                tuple(r.value(v) for v in defined))
