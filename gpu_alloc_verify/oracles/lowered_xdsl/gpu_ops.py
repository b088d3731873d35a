"""The `gpu` ops a lowering leaves in a lowered module: `gpu.launch_func`
(a launch on its stream) and the residues run with their source meaning
(`oracles.lowered_gpu.RESIDUES`).  Any other `gpu.*` op in host code (an
un-outlined `gpu.launch`, a sparse op) is a residue no lowered run can take:
`unrunnable_gpu_ops` names them, so `differential` says why it does not apply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from gpu_alloc_verify.oracles import lowered_gpu
from gpu_alloc_verify.oracles.lowered_xdsl.framework import op_type
from gpu_alloc_verify.oracles.lowered_xdsl.memory_ops import op_loc
from gpu_alloc_verify.oracles.lowered_xdsl.scalar_ops import machine
from gpu_alloc_verify.verify.ir.lowered_ir import op_name

Values = PythonValues


@register_impls
class GpuFunctions(InterpreterFunctions):
    """One implementation per `gpu` op the lowered oracle runs; the residues'
    are added below the class, one per `lowered_gpu.RESIDUES` entry."""

    @impl(op_type("gpu.launch_func"))
    def run_launch_func(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        return lowered_gpu.launch_func(machine(interp), op)


def _residue(run: lowered_gpu.Residue) -> Callable[[Any, Interpreter, Operation, Values], Values]:
    def residue(self: Any, interp: Interpreter, op: Operation, args: Values) -> Values:
        return run(machine(interp), op)
    return residue


for _name, _run in lowered_gpu.RESIDUES.items():
    setattr(GpuFunctions, "run_" + _name.replace(".", "_"), impl(op_type(_name))(_residue(_run)))
register_impls(GpuFunctions)  # again: the residues are part of it now


# Kernel containers: what they hold runs on the device, not as host code.
_KERNEL_CONTAINERS = frozenset({"gpu.module", "gpu.binary"})


def unrunnable_gpu_ops(module: Operation) -> list[tuple[str, str | None]]:
    """Each outermost `gpu.*` op of host code that no lowered run takes
    (neither `gpu.launch_func` nor a residue run with its source meaning),
    with the source location it carries; empty when every one runs."""
    out: list[tuple[str, str | None]] = []

    def visit(op: Any) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    name = op_name(inner)
                    if name in _KERNEL_CONTAINERS:
                        continue
                    if name.startswith("gpu.") and name not in lowered_gpu.HANDLED_OPS:
                        out.append((name, op_loc(inner)))
                        continue
                    visit(inner)

    visit(module)
    return out
