"""A canonical op sequence as the model's `Program` (one function `@f0`),
printed as MLIR the way generated programs are."""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc_verify.verify.certify.space import Step
from gpu_alloc_verify.verify.model import program as prog

ELEM = "f32"
SHAPE = (4,)
# The kernel a launch runs: reads and writes its one buffer.
KERNEL_SHAPE = "scale"
SCALAR = 2


def _type(space: int | None) -> prog.MemRefType:
    return prog.MemRefType(SHAPE, ELEM, space)


def _space(step: Step) -> int | None:
    for v in step.variant:
        if v.startswith("space"):
            return int(v[len("space"):])
    return None


def to_program(steps: Sequence[Step]) -> prog.Program:
    names: dict[int, str] = {}
    types: dict[int, prog.MemRefType] = {}
    args: list[prog.Arg] = []
    counts = {"t": 0, "m": 0}

    def define(v: int, prefix: str) -> str:
        counts[prefix] += 1
        names[v] = f"%{prefix}{counts[prefix]}"
        return names[v]

    def buffer(v: int) -> str:
        if v not in names:  # first seen as an operand: a function argument
            names[v] = f"%arg{len(args)}"
            types[v] = _type(None)
            args.append(prog.Arg(names[v], types[v]))
        return names[v]

    body: list[prog.Op] = []
    for k, s in enumerate(steps, start=1):
        op_id = f"op{k}"
        deps = tuple(names[d] for d in s.deps)
        bufs = tuple(buffer(b) for b in s.buffers)
        token = define(s.defines[-1], "t") if s.is_async and s.kind != "alloc" else None
        if s.kind == "wait":
            body.append(prog.Wait(op_id, token, deps))
        elif s.kind == "alloc":
            mtype = _type(_space(s))
            result = define(s.defines[0], "m")
            types[s.defines[0]] = mtype
            token = define(s.defines[1], "t") if s.is_async else None
            body.append(prog.Alloc(op_id, result, token, deps, "shared" in s.variant, mtype))
        elif s.kind == "dealloc":
            body.append(prog.Dealloc(op_id, token, deps, bufs[0], types[s.buffers[0]]))
        elif s.kind == "memset":
            body.append(prog.Memset(op_id, token, deps, bufs[0], types[s.buffers[0]], 1))
        elif s.kind == "memcpy":
            body.append(prog.Memcpy(op_id, token, deps, bufs[0], bufs[1],
                                    types[s.buffers[0]]))
        elif s.kind == "launch":
            mtype = types[s.buffers[0]]
            body.append(prog.Launch(op_id, token, deps, prog.KernelRef(KERNEL_SHAPE, mtype),
                                    bufs, SCALAR, (len(SHAPE) and SHAPE[0], 1, 1)))
        else:
            raise ValueError(f"certify: no program form for step kind {s.kind!r}")
    return prog.Program((prog.Function("f0", tuple(args), tuple(body)),))
