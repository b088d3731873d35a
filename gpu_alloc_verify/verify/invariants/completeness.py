"""`lowering-complete`: nothing of the gpu runtime dialect survives a success.

A leftover op is a fact of the module (`verify.extract.leftovers` scans all
of it), not of the paths the extractor explored: the verdict depends on no
path condition, loop bound or cut.  A leftover in code that never runs still
makes the module untranslatable to LLVM IR, so it counts too.

Tokens hide in more places than op results: a function's signature (a
declaration has nothing else) and block arguments (a function's parameters,
a loop's carried token) are read here too (`token_signatures`).
"""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.verify.extract.facts import Residue
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.ir.attrs import attr_of, func_name, type_text
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict, Violation

INVARIANT = InvariantId.LOWERING_COMPLETE
TOKEN = "gpu.async.token"
_FUNCS = frozenset({"llvm.func", "func.func"})
_DEVICE = frozenset({"gpu.module", "gpu.binary"})


def token_signatures(module: Any) -> list[Residue]:
    """`!gpu.async.token`s in function signatures and block arguments: one
    per function signature, one per block argument elsewhere."""
    out: list[Residue] = []
    body = getattr(module, "body", None)
    if body is None or not getattr(body, "blocks", None):
        return out
    stack: list[tuple[Any, str]] = [(op, "") for op in reversed(list(body.blocks[0].ops))]
    while stack:
        op, func = stack.pop()
        name = str(op.name)
        if name in _DEVICE:
            continue
        signed = False  # the signature named a token already
        if name in _FUNCS:
            func = func_name(op)
            signed = TOKEN in str(attr_of(op, "function_type"))
            if signed:
                out.append(Residue(f"!{TOKEN} in the signature of @{func}", func, None, name))
        for i, region in enumerate(op.regions):
            for j, block in enumerate(region.blocks):
                entry = signed and i == 0 and j == 0
                if not entry and any(TOKEN in type_text(a) for a in block.args):
                    out.append(Residue(f"!{TOKEN} block argument in {name}", func, None, name))
                stack.extend((o, func) for o in reversed(list(block.ops)))
    return out


def check_lowering_complete(ctx: CheckContext) -> CheckResult:
    violations: list[Violation] = []
    shown: set[tuple[str, str | None]] = set()  # one violation per (what, source op)
    for r in [*ctx.lowered.residue, *token_signatures(ctx.module)]:
        key = (r.what, r.source_op)
        if key in shown:
            continue
        shown.add(key)
        place = f"@{r.func}" if r.func else "the module"
        violations.append(Violation(
            INVARIANT, f"{r.what} left in {place} (from {r.source_op or '?'}) although the "
            "lowering reported success",
            {"path": {}, **Roles(source_op=r.source_op, left=r.op).entries()},
            [r.source_op] if r.source_op else []))
    if violations:
        return CheckResult(INVARIANT, Verdict.VIOLATED, violations)
    return CheckResult(INVARIANT, Verdict.HOLDS)
