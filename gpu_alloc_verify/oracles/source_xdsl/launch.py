"""Un-outlined `gpu.launch`: its body run as a kernel, as the lowered side
runs the kernel `gpu-kernel-outlining` made of it.

`outline(launch, name)` builds the `gpu.func` that upstream's outlining
(`mlir/lib/Dialect/GPU/Transforms/KernelOutlining.cpp`, LLVM 16-22; sinking
index computations is a pass of its own since LLVM 15) makes:

- the kernel's parameters are the values the body uses from above, in the
  order `getUsedValuesDefinedAbove` finds them (a post-order walk of the
  body, first use first; constants too), as `mlir-opt-19` and `-22` print
  (`tests/oracles/test_differential_ops.py` checks one against them);
- the body's block arguments (block and thread ids, grid and block sizes)
  become `gpu.block_id`/`thread_id`/`grid_dim`/`block_dim`, its
  `gpu.terminator`s `gpu.return`s.

The same parameter order on both sides lets one kernel serve the source
launch and the lowered `gpu.launch_func`; `check` also compares the order
with the outlined kernel's signature in the lowered module where it is there
(a pipeline that sinks index computations first passes fewer values).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import FunctionType, IndexType, StringAttr
from xdsl.ir import Operation, SSAValue

from gpu_alloc_verify.oracles.kernel_api import Kernel, KernelUnsupported
from gpu_alloc_verify.verify.ir.attrs import attr_of, int_tuple
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.xdsl_context import gpu_unregistered

# The body's 12 block arguments, in order (`gpu.launch`'s region signature).
_IDS = [(name, dim) for name in ("gpu.block_id", "gpu.thread_id", "gpu.grid_dim",
                                 "gpu.block_dim") for dim in "xyz"]


def _inside(launch: Operation) -> tuple[set[int], set[int]]:
    """ids of the ops and blocks inside the launch's body."""
    ops = {id(o) for o in launch.walk()} - {id(launch)}
    blocks = {id(b) for o in launch.walk() for r in o.regions for b in r.blocks}
    return ops, blocks


def _defined_above(v: SSAValue, ops: set[int], blocks: set[int]) -> bool:
    owner = v.owner
    return id(owner) not in (ops if isinstance(owner, Operation) else blocks)


def _used_above(body_ops: Sequence[Operation], ops: set[int],
                blocks: set[int]) -> list[SSAValue]:
    """`getUsedValuesDefinedAbove`: operands from above, post-order, first use first."""
    out: dict[SSAValue, None] = {}
    for top in body_ops:
        for o in top.walk(region_first=True):
            for x in o.operands:
                if _defined_above(x, ops, blocks):
                    out.setdefault(x)
    return list(out)


def segments(launch: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
    """(async dependencies, the six grid and block sizes); KernelUnsupported
    where the launch has cluster sizes or dynamic shared memory."""
    seg = int_tuple(attr_of(launch, "operandSegmentSizes") or
                    attr_of(launch, "operand_segment_sizes"))
    if not seg or sum(seg) != len(launch.operands) or len(seg) not in (8, 11):
        raise KernelUnsupported("gpu.launch without the operand segments of LLVM 16-22")
    parts, at = [], 0
    for n in seg:
        parts.append(list(launch.operands[at:at + n]))
        at += n
    if any(parts[7:-1]) or parts[-1]:
        raise KernelUnsupported("gpu.launch with cluster sizes or dynamic shared memory")
    if any(len(p) != 1 for p in parts[1:7]):
        raise KernelUnsupported("gpu.launch without its six sizes")
    return parts[0], [p[0] for p in parts[1:7]]


def plan(launch: Operation) -> list[SSAValue]:
    """The values outlining passes as the kernel's parameters, in order."""
    body = launch.regions[0] if launch.regions else None
    if body is None or not body.blocks or len(body.blocks[0].args) != len(_IDS):
        raise KernelUnsupported("gpu.launch whose body takes other than the 12 ids")
    if attr_of(launch, "workgroup_attributions") or len(launch.regions) != 1:
        raise KernelUnsupported("gpu.launch with workgroup or private memory")
    ops, blocks = _inside(launch)
    return _used_above([o for b in body.blocks for o in b.ops], ops, blocks)


def outline(launch: Operation, name: str) -> tuple[Operation, list[SSAValue]]:
    """(the `gpu.func` upstream outlines `launch` to, the values it passes)."""
    captured = plan(launch)
    region = launch.regions[0].clone()
    entry = region.blocks[0]
    ctx = gpu_unregistered()
    prefix: list[Operation] = []
    for arg, (op_name_, dim) in zip(list(entry.args), _IDS, strict=True):
        cls: Any = ctx.get_optional_op(op_name_)
        id_op = cls.create(result_types=[IndexType()], attributes={"dimension": StringAttr(dim)})
        prefix.append(id_op)
        arg.replace_all_uses_with(id_op.results[0])
    for arg in list(entry.args):
        entry.erase_arg(arg)
    inner = {id(o) for o in region.walk()}
    for k, v in enumerate(captured):  # uses inside the copy only; the source keeps its own
        v.replace_uses_with_if(entry.insert_arg(v.type, k), lambda use: id(use.operation) in inner)
    first = entry.first_op
    if first is None:
        raise KernelUnsupported("gpu.launch with an empty body")
    entry.insert_ops_before(prefix, first)
    ret: Any = ctx.get_optional_op("gpu.return")
    for b in region.blocks:
        last = b.last_op
        if last is not None and op_name(last) == "gpu.terminator":
            b.insert_op_before(ret.create(), last)
            b.erase_op(last)
    func_cls: Any = ctx.get_optional_op("gpu.func")
    fn = func_cls.create(regions=[region], attributes={
        "function_type": FunctionType.from_lists([v.type for v in captured], []),
        "sym_name": StringAttr(name)})
    return fn, captured


def launch_kernel(launch: Operation, name: str) -> tuple[Kernel, list[SSAValue]]:
    """The kernel of an un-outlined launch, and the values a launch passes it."""
    from gpu_alloc_verify.oracles.kernel_interp import kernel_of_func

    fn, captured = outline(launch, name)
    return kernel_of_func(name, fn), captured


def lowered_signature(kernel: Kernel) -> list[str]:
    """The LLVM argument types the outlined, converted kernel takes: a
    memref as its descriptor's 3 + 2 * rank fields, an index as i64."""
    out: list[str] = []
    for p in kernel.params:
        if p.kind == "memref":
            out += ["!llvm.ptr", "!llvm.ptr", "i64", *["i64"] * (2 * p.rank)]
        else:
            out.append("i64" if p.type == "index" else p.type)
    return out

