"""`differential`: run source and lowered program on the reference runtime
(the simulated one for `--runtime`) and compare what a user could observe.
The work is in `oracles/`; this adapts it to the checker interface.  A
module outside the generator's model (and one whose kernels are not the
catalogue's) is run from its own text (`oracles.source_xdsl`).

Kernels run as the catalogue's (`verify.model.kernels`).  A program read
from text (tagged `kernels-by-name` by `verify.source.to_program`) names its
kernels only; their bodies are the user's, so each launched one is first
compared with the catalogue kernel of its name, and the verdict is `unknown`
where one differs or cannot be read: running the catalogue's in its place
would judge another program.

A lowered module that keeps a `gpu.*` op in host code no lowered run takes
(an un-outlined `gpu.launch`: `lowering-complete`'s matter) cannot run at
all: `not-applicable`, naming the op.
"""

from __future__ import annotations

from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict


def check_differential(ctx: CheckContext) -> CheckResult:
    from gpu_alloc_verify.oracles.differential import check, simulated
    from gpu_alloc_verify.verify.ir.parse import opaque_pointers

    left = _left_unrunnable(ctx)
    if left:
        return CheckResult(InvariantId.DIFFERENTIAL, Verdict.NOT_APPLICABLE, reason=left)

    different = kernels_not_catalogue(ctx.program) if ctx.program is not None else ""
    if ctx.program is None or different:
        # Outside the model, or kernels of the user's own: interpret the text.
        if ctx.source_text is None and different:
            return CheckResult(InvariantId.DIFFERENTIAL, Verdict.UNKNOWN, reason=different)
        if ctx.source_text is None:
            return CheckResult(InvariantId.DIFFERENTIAL, Verdict.NOT_APPLICABLE,
                               reason="the oracle runs only programs in the generator's "
                               "model, or a source text; this module is neither")
        from gpu_alloc_verify.oracles.source_xdsl import check_text

        return check_text(ctx.source_text, opaque_pointers(ctx.lowered_text),
                          simulated(ctx.runtime))
    # The text (LLVM 16's typed pointers made opaque, which xDSL needs), read
    # by the fast reader, by xDSL where that declines.  Not `ctx.module`: the
    # fast reader's objects are cheaper to walk than an in-process lowering's
    # xDSL module, and the fallback then parses the same text as before.
    return check(ctx.program, opaque_pointers(ctx.lowered_text), simulated(ctx.runtime))


def _left_unrunnable(ctx: CheckContext) -> str:
    """Why the lowered program cannot run: the gpu ops the lowering left in
    host code that no lowered run takes; "" when there are none."""
    from gpu_alloc_verify.oracles.lowered_xdsl.gpu_ops import unrunnable_gpu_ops

    if ctx.module is None:
        return ""
    left = unrunnable_gpu_ops(ctx.module)
    if not left:
        return ""
    name, loc = left[0]
    more = f" and {len(left) - 1} more gpu op(s)" if len(left) > 1 else ""
    return (f"the lowering left {name}{f' (from {loc})' if loc else ''}{more} in host code: "
            "the lowered program cannot run (lowering-complete judges that)")


def kernels_not_catalogue(program: Program) -> str:
    """Why the kernels of a program read by name are not known to be the
    catalogue's (the source runner runs catalogue kernels only); "" when they
    are, or when the program was generated (its kernels are the catalogue's)."""
    from gpu_alloc_verify.verify.source.to_program import KERNELS_BY_NAME, kernel_source

    if KERNELS_BY_NAME not in program.tags:
        return ""
    from gpu_alloc_verify.oracles.kernel_interp import same_as_catalogue

    text = kernel_source(program)
    reasons = []
    for ref in program.kernels:
        if text is None:
            reasons.append(f"the source text of kernel @{ref.name} is not at hand to compare "
                           f"it with the catalogue's {ref.shape}")
            continue
        why = same_as_catalogue(text, ref.name)
        if why is not None:
            reasons.append(why)
    if not reasons:
        return ""
    return "; ".join(reasons) + ": the source runner runs catalogue kernels only"
