"""`runtime-contract`: each call is one the chosen runtime's wrapper accepts.

Checked per profile (`--runtime cuda|hip|sycl`): the callee and arity are ones
the platform's upstream wrapper exports at the lowering's LLVM version (any
version of the runtime table for an in-process lowering, or a version it did
not read; or the split API's proposals); each stream or event argument (by its
role in `runtime_api.SIGNATURES`, kernel launches included, the calls' other
effects modelled or not) is a handle of that kind the runtime created: not a
handle of the other kind, not null (but for a stream where the profile takes
the null stream: not in destroy, nor where the wrapper dereferences it), not
an integer turned into a pointer (`inttoptr 3`) but the runtime's own
streams (`RuntimeProfile.special_streams`: CU_STREAM_LEGACY is 1); a pointer the runtime did not
create in this module (a caller's argument, a stack slot, a buffer) or a value
the analysis cannot follow gives `unknown`, never `holds`.  And, for HIP,
whose mgpuMemAlloc ignores host_shared, no host access to a buffer the source
allocated host_shared.
"""

from __future__ import annotations

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.facts import Call
from gpu_alloc_verify.verify.invariants.common import Findings, describe_path
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.model.fold import boolean, conj, eq, neg, one_of, value_of
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.runtime_api import LAUNCH, PROFILES, knows, roles
from gpu_alloc_verify.verify.model.runtime_table import versions
from gpu_alloc_verify.verify.model.values import HANDLE_BASE, leaves, literal, unknown_name
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Violation

_AN = {"stream": "a stream", "event": "an event"}
_OTHER = {"stream": "event", "event": "stream"}


def check_runtime_contract(ctx: CheckContext) -> CheckResult:
    f = Findings(InvariantId.RUNTIME_CONTRACT, ctx)
    made = {kind: [h for h, _ in ctx.lowered.handles_of(kind)] for kind in _AN}
    # The same handles as sets, built once: a concrete argument is looked up,
    # not compared with every handle of a long function.
    members = {kind: frozenset(hs) for kind, hs in made.items()}
    for call in ctx.lowered.calls:
        if call.is_host_access or not (call.callee.startswith("mgpu") or call.callee == LAUNCH):
            continue
        sig = roles(call.callee, len(call.args))
        passed = call.arity if call.arity is not None else len(call.args)
        if sig is None or not knows(ctx.runtime, call.callee, passed, ctx.llvm_version):
            at = f" at LLVM {ctx.llvm_version}" if ctx.llvm_version in versions() else ""
            f.violations.append(Violation(
                InvariantId.RUNTIME_CONTRACT,
                f"{ctx.runtime} runtime{at} has no {call.callee} taking {passed} "
                "argument(s)",
                Roles(source_op=call.source_op).entries(),
                [call.source_op] if call.source_op else []))
            continue
        for role, value in zip(sig, call.args, strict=False):
            if role in _AN:
                _check_handle(f, call, role, value, made, members)
    if ctx.runtime == "hip":
        _hip_host_access(ctx, f)
    for v in f.violations:
        if v.counterexample.get("path"):
            v.detail += ", " + describe_path(v.counterexample["path"])
    return f.result()


def _null_ok(runtime: str, callee: str, role: str) -> bool:
    """May this argument be the null stream on `runtime`?"""
    return role == "stream" and callee != "mgpuStreamDestroy" \
        and callee not in PROFILES[runtime].needs_stream


def _among(value: smt.ArithRef, handles: list[int], members: frozenset[int]) -> smt.BoolRef:
    """`one_of(value, handles)`, where `members` holds `handles`: a concrete
    value is looked up in it."""
    v = value_of(value)
    return boolean(v in members) if v is not None else one_of(value, handles)


def _check_handle(f: Findings, call: Call, role: str, value: smt.ArithRef,
                  made: dict[str, list[int]], members: dict[str, frozenset[int]]) -> None:
    """`value`, given as the `role` argument of `call`, is a `role` handle the
    runtime created (or the null stream where the profile takes it)."""
    runtime = f.ctx.runtime
    where = f"{call.callee} (from {call.source_op or '?'})"
    marked = [call.source_op]
    if unknown_name(value) is not None:
        # A value the analysis could not follow may be anything.
        f.possible(call.guard, f"{where} may be given something else than {_AN[role]}",
                   about=[value])
        return
    other = _OTHER[role]
    f.query(conj(call.guard, _among(value, made[other], members[other])),
            f"{where} is given {_AN[other]} where {_AN[role]} is expected", marked,
            Roles(source_op=call.source_op, given=other, expected=role).entries())
    if not _null_ok(runtime, call.callee, role):
        detail = f"{where} is given the null stream, which the {runtime} wrapper " \
            "dereferences or cannot destroy" if role == "stream" \
            else f"{where} is given null where an event is expected"
        f.query(conj(call.guard, eq(value, 0)), detail, marked)
    # Stand-ins: pointers the runtime did not create in this module.
    pointers = [v for leaf in leaves(value) if (v := literal(leaf)) is not None and v < 0]
    # The runtime's own stream handles (CU_STREAM_LEGACY, ...): a stream to
    # every call but a destroy; never an event.
    special = sorted(PROFILES[runtime].special_streams) \
        if role == "stream" and call.callee != "mgpuStreamDestroy" else []
    ints = sorted({v for leaf in leaves(value) if (v := literal(leaf)) is not None
                   and 0 < v < HANDLE_BASE and v not in special})
    handles = [*made[role], *made[other], 0, *special, *pointers]
    what = f"the integer {', '.join(str(v) for v in ints)} as a pointer" if ints \
        else "a value"
    own = [v for v in ints if v in PROFILES[runtime].special_streams and role == "stream"]
    why = f" (the {runtime} runtime's own stream {', '.join(map(str, own))} cannot be " \
        "destroyed)" if own else ""
    v = value_of(value)
    created = boolean(v in members[role] or v in members[other] or v in {0, *special, *pointers}) \
        if v is not None else one_of(value, handles)
    f.query(conj(call.guard, neg(created)),
            f"{where} is given {what}, which is no {role} the {runtime} runtime created{why}",
            marked)
    if pointers:
        f.possible(conj(call.guard, one_of(value, pointers)),
                   f"{where} may be given a pointer the runtime did not create in this "
                   f"module (a caller's argument, a stack slot, a buffer) as {_AN[role]}",
                   about=[])


def _hip_host_access(ctx: CheckContext, f: Findings) -> None:
    allocs = {op.result: op for op in ctx.source.allocs() if op.result}
    if not any(op.host_shared for op in allocs.values()):
        return  # only host_shared buffers are misplaced by HIP's mgpuMemAlloc
    for place in ctx.source.hidden_host_access:
        f.unknown.append(f"{place} may read a buffer on the host: HIP host accesses of "
                         "host_shared buffers not decided")
    for call in ctx.lowered.calls:
        src = ctx.source.ops.get(call.source_op or "")
        if not call.is_host_access or src is None or not src.is_host_access:
            continue
        # Every buffer it touches: a host copy (`memref.copy`) touches two.
        for alloc in (allocs.get(b) for b in src.buffers):
            if alloc is not None and alloc.host_shared:
                f.query(call.guard,
                        f"host access {src.id} of host_shared buffer from {alloc.id}: HIP's "
                        "mgpuMemAlloc ignores host_shared, so this reads device memory",
                        [src.id, alloc.id])
