"""`host-shared-flag`: the allocation call passes the source's host_shared."""

from __future__ import annotations

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.invariants.common import Findings
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.model.fold import conj, ne, value_of
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.runtime_api import ALLOC_CALLEES, arg_of
from gpu_alloc_verify.verify.model.values import unknown_vars
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict


def check_host_shared_flag(ctx: CheckContext) -> CheckResult:
    f = Findings(InvariantId.HOST_SHARED_FLAG, ctx)
    checked = 0
    for call in ctx.lowered.calls:
        src = ctx.lowering_input.ops.get(call.source_op or "")
        if call.callee not in ALLOC_CALLEES or src is None or src.kind != "alloc":
            continue
        flag = arg_of(call.callee, call.args, "flag")
        if flag is None:
            f.violations.append(_no_flag(call.callee, src.id))
            continue
        checked += 1
        expected = 1 if src.host_shared else 0
        if _opaque(flag, ctx.lowered.unknown_values):
            f.unknown.append(f"flag of {call.callee} for {src.id} is not a constant")
            continue
        f.query(conj(call.guard, ne(flag, expected)),
                f"{call.callee} for gpu.alloc {src.id} passes host_shared="
                f"{'0' if expected else '1'} but the source says "
                f"{'host_shared' if expected else 'not host_shared'}",
                [src.id], {**Roles(source_op=src.id).entries(), "expected_flag": expected})
    if checked == 0 and not f.violations and not f.unknown:
        return CheckResult(InvariantId.HOST_SHARED_FLAG, Verdict.NOT_APPLICABLE,
                           reason="no lowered allocation call")
    return f.result()


def _opaque(term: smt.ExprRef, unknown: set[int]) -> bool:
    """Does the flag depend on a value the extractor could not follow (a
    stand-in number, or an unknown integer of its own name)?"""
    if unknown_vars(term):
        return True
    known = value_of(term)
    if known is not None:
        return known in unknown
    stack = [term]
    while stack:
        e = stack.pop()
        if smt.is_int_value(e) and e.as_long() in unknown:
            return True
        stack.extend(e.children())
    return False


def _no_flag(callee: str, op_id: str):  # type: ignore[no-untyped-def]
    from gpu_alloc_verify.verify.model.verdicts import Violation

    return Violation(InvariantId.HOST_SHARED_FLAG,
                     f"{callee} for gpu.alloc {op_id} has no host_shared argument",
                     Roles(source_op=op_id).entries(), [op_id])
