"""Ground truth: what running the lowered code shows about an invariant.

The lowered module is run by the lowered-IR interpreter (`oracles.lowered_interp`)
on the checking runtime (`oracles.simulated`: the semantics of upstream's
CUDA/HIP/SYCL wrappers, handle lives, happens-before races), one function
with concrete inputs at a time.  The source runs beside it under the
reference semantics, for the two facts an invariant's definition takes from
the source: which tokens it leaves un-awaited on that path (a lowering may
then keep their streams) and whether it races itself.

`observe` reads one invariant off one execution: what it shows broken (in
words), nothing, or why this execution cannot tell (a leftover op that made
a token, an op the interpreter does not model, a source that races).  The
analysis is judged against it by `verify.invariants.witness`; the inputs
come from `truth_inputs`, and `native_truth` runs a witness again natively.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.oracles.differential import (
    default_value,
    host_reads,
    lowered_run,
    normalize,
    program_kernels,
    source_run,
)
from gpu_alloc_verify.oracles.lowered_interp import LoweredRun, parse_module, run_function
from gpu_alloc_verify.oracles.runtime import (
    DEVICE_RACE,
    DOUBLE_DESTROY,
    HOST_RACE,
    INVALID_HANDLE,
    NULL_STREAM,
    USE_AFTER_DESTROY,
)
from gpu_alloc_verify.oracles.simulated import OrderLog, SimulatedRuntime
from gpu_alloc_verify.oracles.source_interp import (
    ArgValue,
    SourceRun,
    program_unmodelled,
)
from gpu_alloc_verify.verify.invariants.order_truth import broken_edges
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.model.program import MemRefType, Program
from gpu_alloc_verify.verify.model.runtime_api import arg_of, roles
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId
from gpu_alloc_verify.verify.source.facts import SourceFacts

# Invariants a run of the lowered code decides (the others are facts of the
# module text, or, for `differential`, an execution already).
EXECUTION_DECIDED: tuple[InvariantId, ...] = (
    InvariantId.SYNC_ALLOC_NO_STREAM, InvariantId.STREAM_NO_LEAK,
    InvariantId.STREAM_NO_USE_AFTER_DESTROY, InvariantId.EVENT_NO_LEAK,
    InvariantId.HOST_SHARED_FLAG, InvariantId.ASYNC_ORDER, InvariantId.RUNTIME_CONTRACT,
)
MAX_INPUT = 1 << 12  # a larger integer input (a trip count) is not run
RACES = (HOST_RACE, DEVICE_RACE)
# Errors after which a wrong value is still an order's doing: work on a
# destroyed stream or on no stream at all never runs (async-order counts
# that as a broken edge), a host read of memory still being written.
ORDER_ERRORS = (*RACES, USE_AFTER_DESTROY, DOUBLE_DESTROY, INVALID_HANDLE, NULL_STREAM)
# Queued work a refused handle keeps from running (`CheckedRuntime`'s call
# names; an allocation that ignores its stream still happens).
REFUSED_WORK = ("memset8", "memset16", "memset32", "memset64", "memcpy", "launch",
                "mem_alloc_async", "mem_free_async")


@dataclass
class Execution:
    """One function run with concrete inputs: lowered code and source."""

    function: str
    inputs: dict[str, ArgValue]  # by the program model's argument names
    lowered: LoweredRun | None = None
    source: SourceRun | None = None
    why_not: str = ""  # why nothing ran (or ran to the end)
    arg_order: tuple[str, ...] = ()  # the model's argument names, in order
    # What each run's runtime logged of the order of its effects (simulated runs).
    source_order: OrderLog | None = None
    lowered_order: OrderLog | None = None

    @property
    def ran(self) -> bool:
        return (not self.why_not and self.lowered is not None and self.lowered.status == "ok"
                and self.lowered.outcome is not None)

    def named_inputs(self, facts: SourceFacts) -> dict[str, ArgValue]:
        """The inputs by the source's own argument names (the model may rename)."""
        labels = facts.arg_names.get(self.function, [])
        names = list(self.arg_order)
        return {labels[names.index(k)] if k in names and names.index(k) < len(labels) else k: v
                for k, v in self.inputs.items()}

    def show_inputs(self, facts: SourceFacts) -> str:
        shown = ", ".join(f"{k}={_show(v)}" for k, v in self.named_inputs(facts).items())
        return f"@{self.function}({shown})"


@dataclass
class Observation:
    """What one execution shows about one invariant."""

    decided: bool
    seen: list[str] = field(default_factory=list)  # the violations it shows, in words
    why_not: str = ""  # why it cannot tell (decided False)


def _show(v: ArgValue) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def execute(program: Program, module: Any, function: str, inputs: Mapping[str, ArgValue],
            profile: str = "cuda") -> Execution:
    """Run `function` of the lowered `module` (and of the source) with `inputs`."""
    ex = Execution(function, dict(inputs))
    fn = next((f for f in program.functions if f.name == function), None)
    if fn is None:
        ex.why_not = f"@{function} is not a function of the source"
        return ex
    big = [f"{k}={v}" for k, v in inputs.items()
           if not isinstance(v, bool) and isinstance(v, int) and abs(v) > MAX_INPUT]
    if big:
        ex.why_not = f"input {big[0]} is too large to execute"
        return ex
    unmodelled = program_unmodelled(program)
    if unmodelled is not None:
        ex.why_not = unmodelled
        return ex
    ex.arg_order = tuple(a.name for a in fn.args)
    values: dict[str, ArgValue] = {}
    for a in fn.args:
        if not isinstance(a.type, MemRefType):
            values[a.name] = inputs.get(a.name, False if a.type == "i1" else default_value(a.type))
    ex.inputs = dict(values)
    src_rt, low_rt = SimulatedRuntime(profile, 0), SimulatedRuntime(profile, 0)
    ex.source_order, ex.lowered_order = src_rt.order, low_rt.order
    try:
        src = source_run(fn, values, src_rt)
        if isinstance(src, CheckResult):
            ex.why_not = f"the source does not run: {src.reason}"
            return ex
        ex.source = src[0]
        low = lowered_run(fn, module, values, low_rt, program_kernels(program))
    except fastparse.Unsupported:
        raise  # the fast reader's model falls short: the caller runs xDSL's parse
    except Exception as e:  # noqa: BLE001 - a model gap ends the run, never the harness
        ex.why_not = f"the code does not run: {type(e).__name__}: {e}"
        return ex
    if isinstance(low, CheckResult):
        ex.why_not = f"the lowered code does not run to the end: {low.reason}"
        return ex
    ex.lowered = low
    return ex


def execute_lowered_only(facts: SourceFacts, module: Any, function: str,
                         inputs: Mapping[str, ArgValue], profile: str = "cuda") -> Execution:
    """Run `function` of the lowered `module` alone, its arguments made from
    the source facts' labels (a source outside the executable model);
    `inputs` by source label.  The source does not run (`source` None)."""
    from gpu_alloc_verify.verify.invariants.lowered_args import function_types, lowered_arguments

    ex = Execution(function, dict(inputs), arg_order=tuple(facts.arg_names.get(function, [])))
    if isinstance(module, str):
        try:
            module = parse_module(module)
        except Exception as e:  # noqa: BLE001 - unreadable: nothing runs
            ex.why_not = f"the lowered module is not read: {e}"
            return ex
    types = function_types(module, function)
    if types is None:
        ex.why_not = f"the lowered module has no @{function} with a body"
        return ex
    rt = SimulatedRuntime(profile, 0)
    try:
        args = lowered_arguments(facts.lowered_arg_names.get(function, []), types, inputs, rt)
        if isinstance(args, str):
            ex.why_not = args
            return ex
        ex.lowered = run_function(module, function, args, rt)
    finally:
        rt.close()
    if ex.lowered.status != "ok":
        ex.why_not = f"the lowered code does not run to the end: {ex.lowered.reason}"
    return ex


def observe(invariant: InvariantId, ex: Execution, facts: SourceFacts) -> Observation:
    """What `ex` shows about `invariant` (`facts`: what gpu-to-llvm was given)."""
    if not ex.ran:
        return Observation(False, why_not=ex.why_not or "the lowered code did not run")
    low = ex.lowered
    assert low is not None and low.outcome is not None
    errors = low.outcome.errors
    if invariant == InvariantId.STREAM_NO_USE_AFTER_DESTROY:
        return Observation(True, [f"{e.kind} at {e.loc or '?'} ({e.detail})" for e in errors
                                  if e.kind in (USE_AFTER_DESTROY, DOUBLE_DESTROY)])
    if invariant in (InvariantId.STREAM_NO_LEAK, InvariantId.EVENT_NO_LEAK):
        return _leaks(invariant, ex, facts)
    if invariant == InvariantId.SYNC_ALLOC_NO_STREAM:
        sync = {op.id for op in facts.sync_allocs()}
        return Observation(True, [f"mgpuStreamCreate at {c.loc} (a synchronous gpu.alloc)"
                                  for c in low.raw_trace
                                  if c.callee == "mgpuStreamCreate" and c.loc in sync])
    if invariant == InvariantId.HOST_SHARED_FLAG:
        return Observation(True, _wrong_flags(ex, facts))
    if invariant == InvariantId.ASYNC_ORDER:
        src = ex.source
        if src is None or src.outcome is None:
            return Observation(False, why_not="the source did not run")
        if any(e.kind in RACES for e in src.outcome.errors):
            return Observation(False, why_not="the source itself races on these inputs")
        races = [f"{e.kind} at {e.loc or '?'} ({e.detail})" for e in errors if e.kind in RACES]
        if races:
            return Observation(True, races)
        broken = _broken_edges(ex, facts)
        if broken:
            return Observation(True, broken)
        misuse = [e for e in errors if e.kind not in ORDER_ERRORS]
        if misuse:
            # A value that differs then may come from the misuse, not the order.
            return Observation(False, why_not=f"the lowered run misuses the runtime "
                               f"({misuse[0].kind} at {misuse[0].loc or '?'}): what it "
                               "leaves in memory says nothing of order")
        return Observation(True, _out_of_order(ex))
    if invariant == InvariantId.RUNTIME_CONTRACT:
        return Observation(True, [f"{e.kind} at {e.loc or '?'} ({e.detail})" for e in errors
                                  if e.kind in (NULL_STREAM, INVALID_HANDLE)])
    return Observation(False, why_not=f"{invariant} is not decided by execution")


def _broken_edges(ex: Execution, facts: SourceFacts) -> list[str]:
    """The source's happens-before edges the lowered run does not keep (the
    runtime orders the two effects the other way round, or not at all)."""
    if ex.source_order is None or ex.lowered_order is None:
        return []
    quiet = frozenset(op.id for op in facts.ops.values() if op.kind == "dealloc")
    broken = broken_edges(ex.source_order, ex.lowered_order, quiet) or []
    # Work the runtime refused (its stream destroyed, null where the profile
    # dereferences it, no stream at all) never runs: every edge of its op
    # is broken, though no effect of it is left to compare.
    assert ex.lowered is not None and ex.lowered.outcome is not None
    refused = [e for e in ex.lowered.outcome.errors
               if e.kind in (USE_AFTER_DESTROY, NULL_STREAM, INVALID_HANDLE)
               and e.call.split(" ")[0] in REFUSED_WORK and e.loc is not None]
    if refused:
        ordered = _ordered_ops(facts)
        broken += [f"{e.call} of {e.loc} never runs ({e.kind}: {e.detail}), though the "
                   "source orders it" for e in refused if e.loc in ordered]
    return broken


def _ordered_ops(facts: SourceFacts) -> set[str]:
    """The source's gpu ops at an end of some edge: synchronous ones, those
    with dependencies, those whose token another op depends on."""
    consumed = {d for op in facts.ops.values() for d in op.deps}
    return {op.id for op in facts.ops.values() if op.is_gpu
            and (op.is_sync or op.deps or (op.token is not None and op.token in consumed))}


def _leaks(invariant: InvariantId, ex: Execution, facts: SourceFacts) -> Observation:
    low, src = ex.lowered, ex.source
    assert low is not None and low.outcome is not None
    if low.token_residue:
        return Observation(False, why_not="an op left unconverted made or took a token: the "
                           "handles behind it are not the lowered code's")
    kind = "stream" if invariant == InvariantId.STREAM_NO_LEAK else "event"
    if kind == "stream" and src is None and not _always_awaited(facts):
        return Observation(False, why_not="the source is outside the executable model and "
                           "may leave a token un-awaited: which on these inputs is not known")
    if kind == "stream" and src is not None and src.unawaited:
        return Observation(False, why_not="the source leaves token(s) un-awaited on these "
                           f"inputs ({', '.join(src.unawaited[:3])})")
    live = low.outcome.live_streams if kind == "stream" else low.outcome.live_events
    seen = [f"{label} is live at exit" for label in live]
    seen += [f"{e.detail} at {e.loc or '?'}" for e in low.outcome.errors
             if e.kind == DOUBLE_DESTROY and e.call.startswith(kind)]
    return Observation(True, seen)


def _out_of_order(ex: Execution) -> list[str]:
    """Buffers whose final bytes differ from the source's although nothing
    raced: work ordered, but in another order than the source's edges."""
    assert ex.source is not None and ex.source.outcome is not None
    assert ex.lowered is not None and ex.lowered.outcome is not None
    s_norm, l_norm = normalize(ex.source.outcome, False), normalize(ex.lowered.outcome, False)
    src, low = s_norm["allocations"], l_norm["allocations"]
    out = [f"{label} ends with {low[label]['contents']}, the source's with "
           f"{src[label]['contents']} (work ran in another order)"
           for label in sorted(set(src) & set(low))
           # Live on both sides: one freed and one not is a leak, no order.
           if None not in (src[label]["contents"], low[label]["contents"])
           and src[label]["contents"] != low[label]["contents"]]
    s_reads, l_reads = host_reads(s_norm["host_accesses"]), host_reads(l_norm["host_accesses"])
    out += [f"the host read at {key[0]} sees {l_reads[key][1]}, the source's {s_reads[key][1]} "
            "(it ran before or after other work than in the source)"
            for key in sorted(set(s_reads) & set(l_reads), key=str)
            if s_reads[key] != l_reads[key]]
    return out


def _always_awaited(facts: SourceFacts) -> bool:
    """Does the source await every token it makes, on every path?  Then no
    stream is exempt from stream-no-leak, whatever the inputs."""
    from gpu_alloc_verify.verify.model import fold

    return all(fold.truth(facts.awaited.get(op.id)) is True for op in facts.ops.values()
               if op.is_gpu and op.token is not None)


def _wrong_flags(ex: Execution, facts: SourceFacts) -> list[str]:
    """Allocation calls whose host_shared flag differs from their source op's."""
    low = ex.lowered
    assert low is not None
    shared = {op.id: op.host_shared for op in facts.allocs()}
    out = []
    for c in low.raw_trace:
        names = roles(c.callee, len(c.args))
        if c.loc not in shared or names is None or "flag" not in names:
            continue
        flag = bool(int(arg_of(c.callee, c.args, "flag")) & 1)
        if flag != shared[c.loc]:
            out.append(f"{c.callee} at {c.loc} passes host_shared={int(flag)}, the source "
                       f"says {int(shared[c.loc])}")
    return out
