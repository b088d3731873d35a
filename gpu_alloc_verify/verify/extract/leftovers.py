"""What a lowering left of the gpu runtime dialect: a fact of the module.

A leftover op makes the module untranslatable to LLVM IR wherever it sits,
so `lowering-complete` asks the module, not the explored paths: every op of
every function, region and block (reachable or not, past any loop bound) is
looked at.  The walk is iterative: modules nest deeper than Python recurses.
"""

from __future__ import annotations

from gpu_alloc_verify.verify.extract.facts import GPU_RUNTIME_OPS, Residue
from gpu_alloc_verify.verify.ir.attrs import func_name, launch_operands, source_loc, type_text
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRModule, IROp
from gpu_alloc_verify.verify.model.runtime_api import LAUNCH

# Casts that resolve to nothing once the conversion is done: one still
# producing a token means a token was never replaced.
CASTS = frozenset({"builtin.unrealized_conversion_cast", "llvm.bitcast", "llvm.addrspacecast",
                   "llvm.ptrtoint", "llvm.inttoptr"})
# Device code is not what gpu-to-llvm converts: its gpu ops are no residue.
_DEVICE = frozenset({"gpu.module", "gpu.binary", "gpu.launch"})
_FUNCS = frozenset({"llvm.func", "func.func"})


def _converted_launch(op: IROp) -> bool:
    """A `gpu.launch_func` on a stream (`<%s : !llvm.ptr>`) or synchronous,
    with no token: the form gpu-to-llvm leaves for translation to LLVM IR."""
    return not any("gpu.async.token" in type_text(v) for v in [*op.operands, *op.results]) \
        and launch_operands(op) is not None


def _what(op: IROp, name: str) -> str | None:
    """What `op` leaves behind, or None when it is no residue."""
    if name == LAUNCH and _converted_launch(op):
        return None
    if name in GPU_RUNTIME_OPS:
        return name
    if any("gpu.async.token" in type_text(r) for r in op.results):
        if name in CASTS:
            return "unresolved cast to !gpu.async.token"
        return f"!gpu.async.token result of {name}"
    return None


def module_residue(module: IRModule) -> list[Residue]:
    """Every leftover of `module` in text order, each with the function it
    is in ("" at module level) and the source op it maps to (its location
    tag, as lowered calls carry it)."""
    out: list[Residue] = []
    # (op, enclosing function); pushed in reverse so ops pop in text order.
    stack: list[tuple[IROp, str]] = [(op, "") for op in reversed(list(module.body.blocks[0].ops))]
    while stack:
        op, func = stack.pop()
        name = op_name(op)
        what = _what(op, name)
        if what is not None:
            out.append(Residue(what, func, source_loc(op), name))
        if name in _DEVICE:
            continue  # a leftover gpu.launch is counted above; its body is device code
        inner = func_name(op) if name in _FUNCS else func
        nested = [(o, inner) for region in op.regions for block in region.blocks
                  for o in block.ops]
        stack.extend(reversed(nested))
    return out


__all__ = ["CASTS", "module_residue"]
