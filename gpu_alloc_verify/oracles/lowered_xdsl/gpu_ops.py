"""The `gpu` ops a lowering leaves in a lowered module: `gpu.launch_func`
(a launch on its stream) and the residues run with their source meaning
(`oracles.lowered_gpu.RESIDUES`).  Any other `gpu.*` op is a residue not
modelled: nobody implements it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from gpu_alloc_verify.oracles import lowered_gpu
from gpu_alloc_verify.oracles.lowered_xdsl.framework import op_type
from gpu_alloc_verify.oracles.lowered_xdsl.scalar_ops import machine

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
