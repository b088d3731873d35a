"""`differential`: run source and lowered program on the reference runtime
(the simulated one for `--runtime`) and compare what a user could observe.
The work is in `oracles/`; this adapts it to the checker interface."""

from __future__ import annotations

from verify.invariants.context import CheckContext
from verify.model.verdicts import CheckResult


def check_differential(ctx: CheckContext) -> CheckResult:
    from oracles.differential import check, simulated
    from verify.ir.lowered_ir import opaque_pointers

    if ctx.program is None:
        return CheckResult("differential", "not-applicable",
                           reason="the oracle runs only programs in the generator's model; "
                           "this module uses ops outside it")
    # The text (LLVM 16's typed pointers made opaque, which xDSL needs), read
    # by the fast reader, by xDSL where that declines.  Not `ctx.module`: the
    # fast reader's objects are cheaper to walk than an in-process lowering's
    # xDSL module, and the fallback then parses the same text as before.
    return check(ctx.program, opaque_pointers(ctx.lowered_text), simulated(ctx.runtime))
