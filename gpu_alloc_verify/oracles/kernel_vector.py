"""`vector` ops in kernels, for `oracles.kernel_interp`'s compiler.

A 1-D `vector<N x T>` value is its N lanes, each compiled as a scalar of T
(`_Compiler.vecs`).  An elementwise `arith`/`math` op on vectors compiles
once per lane with the lanes of its operands; the `vector` ops below move
lanes: `transfer_read`/`transfer_write` (minor identity map; a lane past
the memref's last dimension reads the padding and writes nothing, unless
`in_bounds` says it cannot be), `load`/`store`, `broadcast`/`splat`,
`extract`/`insert` at a static position, `reduction` (in lane order,
rounding each float step, as `kernel_collectives.combiner` does).  Masks,
other maps and vectors of rank > 1 raise `KernelUnsupported` naming them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from xdsl.dialects import builtin
from xdsl.ir import Operation, SSAValue

from gpu_alloc_verify.oracles.kernel_collectives import combiner, reduction_kind
from gpu_alloc_verify.oracles.llvm_values import prop

M64 = (1 << 64) - 1


def lanes_of(t: object) -> int | None:
    """N of a 1-D `vector<N x T>` type, None for any other type."""
    if isinstance(t, builtin.VectorType):
        shape = t.get_shape()
        return int(shape[0]) if len(shape) == 1 else -1
    return None


def _n(c: Any, v: SSAValue, what: str) -> int:
    n = lanes_of(v.type)
    if n is None or n < 1:
        raise c.unsupported(f"{what} of {v.type}")
    return n


def _minor_identity(c: Any, op: Operation, name: str) -> None:
    pmap = prop(op, "permutation_map")
    if pmap is not None and not re.search(r"\(([^()]*)\)\s*->\s*\(\s*d\d+\s*\)", str(pmap)):
        raise c.unsupported(f"{name} with map {pmap}")
    if len(op.operands) > 0 and prop(op, "operandSegmentSizes") is not None:
        sizes = [int(x) for x in re.findall(r"-?\d+", str(prop(op, "operandSegmentSizes")))]
        if len(sizes) >= 4 and sizes[-1]:
            raise c.unsupported(f"{name} with a mask")


def _in_bounds(op: Operation) -> bool:
    return "true" in str(prop(op, "in_bounds") or "")


def _lane_addr(c: Any, m: Any, indices: Sequence[SSAValue], k: int) -> str:
    addr = c.address(m, indices)
    rank = m.width
    return f"(({addr}) + {k} * S{m.param}_{rank - 1}) & {M64}" if k else addr


def _guard(c: Any, m: Any, indices: Sequence[SSAValue], k: int) -> str:
    """The condition that lane k lies within the last dimension."""
    last = c.val(indices[-1]).expr
    return f"(({last}) + {k}) < D{m.param}_{m.width - 1}"


def _transfer_read(c: Any, op: Operation, name: str, out: list[str], ind: int,
                  hoist: bool) -> None:
    _minor_identity(c, op, name)
    n = _n(c, op.results[0], name)
    m = c.memref(op, op.operands[0])
    indices = list(op.operands[1:1 + m.width])
    pad = c.val(op.operands[1 + m.width])
    lanes = []
    sp = "    " * ind
    for k in range(n):
        if _in_bounds(op):
            lanes.append(c.load_at(m, _lane_addr(c, m, indices, k), out, ind))
            continue
        # A lane past the dimension loads nothing: it is the padding.
        lane = c.fresh()
        out.append(f"{sp}if {_guard(c, m, indices, k)}:")
        v = c.load_at(m, _lane_addr(c, m, indices, k), out, ind + 1)
        out += [f"{sp}    {lane} = {v.expr}", f"{sp}else:", f"{sp}    {lane} = {pad.expr}"]
        lanes.append(c.scalar(lane, m.ftype))
    c.vecs[op.results[0]] = lanes


def _transfer_write(c: Any, op: Operation, name: str, out: list[str], ind: int,
                   hoist: bool) -> None:
    _minor_identity(c, op, name)
    lanes = c.lanes(op.operands[0], name)
    m = c.memref(op, op.operands[1])
    indices = list(op.operands[2:2 + m.width])
    for k, v in enumerate(lanes):
        line = c.store_line(m, _lane_addr(c, m, indices, k), v)
        if not _in_bounds(op):
            line = f"if {_guard(c, m, indices, k)}: {line}"
        out.append(f"{'    ' * ind}{line}")


def _load(c: Any, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
    n = _n(c, op.results[0], name)
    m = c.memref(op, op.operands[0])
    c.vecs[op.results[0]] = [c.load_at(m, _lane_addr(c, m, list(op.operands[1:]), k), out, ind)
                             for k in range(n)]


def _store(c: Any, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
    lanes = c.lanes(op.operands[0], name)
    m = c.memref(op, op.operands[1])
    indices = list(op.operands[2:])
    for k, v in enumerate(lanes):
        out.append(f"{'    ' * ind}{c.store_line(m, _lane_addr(c, m, indices, k), v)}")


def _broadcast(c: Any, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
    n = _n(c, op.results[0], name)
    src = op.operands[0]
    if lanes_of(src.type) is not None:
        raise c.unsupported(f"{name} of a vector")
    c.vecs[op.results[0]] = [c.val(src)] * n


def _position(c: Any, op: Operation, name: str) -> int:
    pos = [int(x) for x in re.findall(r"-?\d+", str(prop(op, "static_position")
                                                  or prop(op, "position") or ""))]
    dynamic = [o for o in op.operands[1:] if lanes_of(o.type) is None
               and "index" in str(o.type)]
    if len(pos) != 1 or pos[0] < 0 or dynamic:
        raise c.unsupported(f"{name} at a dynamic or multi-dimensional position")
    return pos[0]


def _extract(c: Any, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
    lanes = c.lanes(op.operands[0], name)
    c.vals[op.results[0]] = lanes[_position(c, op, name)]


def _insert(c: Any, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
    lanes = list(c.lanes(op.operands[1], name))
    lanes[_position(c, op, name)] = c.val(op.operands[0])
    c.vecs[op.results[0]] = lanes


def _reduction(c: Any, op: Operation, name: str, out: list[str], ind: int, hoist: bool) -> None:
    lanes = c.lanes(op.operands[0], name)
    if len(op.operands) > 1:
        raise c.unsupported(f"{name} with an accumulator")
    first = lanes[0]
    try:
        fn = combiner(reduction_kind(prop(op, "kind")), first.width, first.ftype)
    except ValueError as e:
        raise c.unsupported(f"{name}: {e}") from None
    key = f"_c{len(c.ns)}"
    c.ns[key] = fn
    expr = first.expr
    for v in lanes[1:]:
        expr = f"{key}({expr}, {v.expr})"
    c.emit(op, expr, 2, out, ind, hoist)


HANDLERS = {
    "vector.transfer_read": _transfer_read, "vector.transfer_write": _transfer_write,
    "vector.load": _load, "vector.store": _store, "vector.broadcast": _broadcast,
    "vector.splat": _broadcast, "vector.extract": _extract, "vector.insert": _insert,
    "vector.reduction": _reduction,
}
