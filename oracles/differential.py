"""The `differential` invariant: the lowered program's outcome equals the source's.

Each function of the program runs twice per (argument assignment, schedule):
the source under the reference semantics (`source_interp`) and the lowered
module (`lowered_interp`), each on a fresh runtime from the same factory and
seed.  Outcomes are normalized before comparison: allocations are named by
the source op that made them and their order among that op's allocations
("op3#0"), host accesses likewise, errors by kind and source op; streams and
events only by how many are live at exit, and not at all where the source
path leaves a token un-awaited (a lowering may then keep its stream).  A live
allocation nothing ever wrote may be missing on one side: LLVM 22 erases an
unused `gpu.alloc` as dead code, which no program can observe.  Likewise a
host read whose value is unused may be missing on one side (a dead load).

Lowered text is run on `verify.fastparse`'s reading of it, which costs a
fraction of xDSL's parse; where that reader or the interpreter's model of
it declines (`fastparse.Unsupported`), on xDSL's parse, so the verdict is
the same either way (`tests/perf/test_differential_fast.py`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from oracles.lowered_interp import parse_module, read_fast, residual_gpu_ops, run_function
from oracles.runtime import Outcome, Runtime
from oracles.simulated import SimulatedRuntime
from oracles.source_interp import ArgValue, program_unmodelled
from oracles.source_interp import run_function as run_source
from verify import fastparse
from verify.lowered_ir import DEFAULT_PARSER
from verify.program import Function, Program
from verify.verdicts import CheckResult, Violation

RuntimeFactory = Callable[[int], Runtime]  # seed -> a fresh runtime
Assignment = Mapping[str, ArgValue]  # "%cond0" or "f1:%cond0" -> value
DEFAULT_SIZE = 3
MAX_ASSIGNMENTS = 4


def simulated(profile: str = "cuda") -> RuntimeFactory:
    return lambda seed: SimulatedRuntime(profile, seed)


def default_assignments(fn: Function) -> list[dict[str, ArgValue]]:
    """All-false, all-true, then alternating branch values; sizes DEFAULT_SIZE."""
    conds = [a.name for a in fn.args if a.type == "i1"]
    sizes = {a.name: DEFAULT_SIZE for a in fn.args if a.type != "i1"}
    if len(conds) <= 2:
        patterns = list(itertools.product((False, True), repeat=len(conds)))
    else:
        n = len(conds)
        patterns = [(False,) * n, (True,) * n,
                    tuple(i % 2 == 0 for i in range(n)), tuple(i % 2 == 1 for i in range(n))]
    return [{**sizes, **dict(zip(conds, p, strict=True))} for p in patterns[:MAX_ASSIGNMENTS]]


def _for_function(fn: Function, assignment: Assignment) -> dict[str, ArgValue]:
    out: dict[str, ArgValue] = {}
    for a in fn.args:
        for key in (f"{fn.name}:{a.name}", a.name):
            if key in assignment:
                out[a.name] = assignment[key]
                break
        else:
            out[a.name] = False if a.type == "i1" else DEFAULT_SIZE
    return out


def normalize(outcome: Outcome, compare_handles: bool = True) -> dict[str, Any]:
    """The comparable form of an outcome (see module docstring)."""
    return {
        "allocations": {
            a.label: {"size": a.size, "kind": a.kind, "live": a.live, "contents": a.contents}
            for a in outcome.allocations
        },
        "host_accesses": [
            [h.loc, h.access, h.target, h.value] for h in outcome.host_accesses
        ],
        "errors": sorted([e.kind, e.loc or "?"] for e in outcome.errors),
        "live_streams": len(outcome.live_streams) if compare_handles else "not compared",
        "live_events": len(outcome.live_events) if compare_handles else "not compared",
    }


def _unobservable(entry: Mapping[str, Any] | None) -> bool:
    """A live allocation nothing ever wrote: a lowering may drop it as dead code."""
    if entry is None:
        return True
    contents = entry["contents"] or ""
    return bool(entry["live"]) and all(
        run.split("*")[0].strip("?") == "" for run in contents.split(",")
    )


def _reads(accesses: Sequence[Sequence[Any]]) -> dict[tuple[Any, int], Any]:
    """Host reads keyed by (source op, n-th read by that op)."""
    seen: Counter[Any] = Counter()
    out: dict[tuple[Any, int], Any] = {}
    for loc, access, target, value in accesses:
        if access == "read":
            out[(loc, seen[loc])] = (target, value)
            seen[loc] += 1
    return out


def differences(source: Mapping[str, Any], lowered: Mapping[str, Any]) -> list[str]:
    """Keys of the normalized outcomes that differ (see module docstring)."""
    diffs: list[str] = []
    s_reads, l_reads = _reads(source["host_accesses"]), _reads(lowered["host_accesses"])
    # A load whose value is unused may be erased as dead code (LLVM 22 does):
    # such a read, and what the runtime said about it, counts on neither side.
    one_sided = {loc for loc, _ in set(s_reads) ^ set(l_reads)}
    for key in source:
        if key == "allocations":
            for label in sorted(set(source[key]) | set(lowered[key])):
                s_entry, l_entry = source[key].get(label), lowered[key].get(label)
                if s_entry == l_entry:
                    continue
                if (s_entry is None or l_entry is None) and _unobservable(s_entry) \
                        and _unobservable(l_entry):
                    continue  # an unused allocation present on one side only
                diffs.append(f"allocations[{label}]")
        elif key == "host_accesses":
            s_writes = [a for a in source[key] if a[1] == "write"]
            l_writes = [a for a in lowered[key] if a[1] == "write"]
            shared = set(s_reads) & set(l_reads)
            if s_writes != l_writes or any(s_reads[k] != l_reads[k] for k in shared):
                diffs.append(key)
        elif key == "errors":
            if [e for e in source[key] if e[1] not in one_sided] != \
                    [e for e in lowered[key] if e[1] not in one_sided]:
                diffs.append(key)
        elif source[key] != lowered[key]:
            diffs.append(key)
    return diffs


def compare(
    program: Program,
    lowered_module: str | Any,
    runtime_factory: RuntimeFactory | None = None,
    schedules: int = 3,
    args: Assignment | Sequence[Assignment] | None = None,
    source_runtime_factory: RuntimeFactory | None = None,
    parser: str | None = None,
) -> dict[str, Any] | None:
    """The first source/lowered mismatch, or None (also when not comparable).

    `args`: one assignment or several ("%cond0" for every function, or
    "f1:%cond0"); by default `default_assignments` of each function.
    """
    result = check(program, lowered_module, runtime_factory, schedules, args,
                   source_runtime_factory, parser)
    if result.verdict == "violated":
        return result.violations[0].counterexample
    return None


def check(
    program: Program,
    lowered_module: str | Any,
    runtime_factory: RuntimeFactory | None = None,
    schedules: int = 3,
    args: Assignment | Sequence[Assignment] | None = None,
    source_runtime_factory: RuntimeFactory | None = None,
    parser: str | None = None,
) -> CheckResult:
    """The `differential` verdict, with the mismatch as counterexample.

    `parser` for text: "fast" (`verify.fastparse`, xDSL where it declines) or
    "xdsl"; by default `verify.lowered_ir.DEFAULT_PARSER`.  A module is run as
    it is (a `verify.fastparse` one raises `fastparse.Unsupported` where its
    model falls short: no text to fall back on).
    """
    unmodelled = program_unmodelled(program)  # kernels, host buffers: not run (yet)
    if unmodelled is not None:
        return CheckResult("differential", "unknown", reason=unmodelled)
    factory = runtime_factory or simulated("cuda")
    src_factory = source_runtime_factory or factory
    if isinstance(lowered_module, str) and (parser or DEFAULT_PARSER) == "fast":
        fast = read_fast(lowered_module)
        if fast is not None:
            try:
                return _check_module(program, fast, factory, src_factory, schedules, args)
            except fastparse.Unsupported:
                pass  # outside the fast model: the same run on xDSL's parse
    try:
        module = parse_module(lowered_module) if isinstance(lowered_module, str) \
            else lowered_module
    except Exception as e:  # noqa: BLE001 - a bad module is a verdict, not a crash
        return CheckResult("differential", "unknown", reason=f"unparsable lowered module: {e}")
    return _check_module(program, module, factory, src_factory, schedules, args)


def _check_module(
    program: Program,
    module: Any,
    factory: RuntimeFactory,
    src_factory: RuntimeFactory,
    schedules: int,
    args: Assignment | Sequence[Assignment] | None,
) -> CheckResult:
    residue = residual_gpu_ops(module)
    if residue:
        return CheckResult("differential", "not-applicable",
                           reason="lowering incomplete: residual " + ", ".join(residue))
    for fn in program.functions:
        if args is None:
            assignments: Sequence[Assignment] = default_assignments(fn)
        elif isinstance(args, Mapping):
            assignments = [args]
        else:
            assignments = args
        for assignment in assignments:
            values = _for_function(fn, assignment)
            for seed in range(schedules):
                found = _compare_once(fn, module, values, seed, factory, src_factory)
                if isinstance(found, CheckResult):
                    return found
                if found is not None:
                    detail = (f"@{fn.name} with {_show(values)}, schedule {seed}: "
                              f"lowered outcome differs in {', '.join(found['differences'])}")
                    return CheckResult("differential", "violated",
                                       [Violation("differential", detail, found)])
    return CheckResult("differential", "holds")


def _show(values: Mapping[str, ArgValue]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in values.items()) + "}" if values else "no args"


def _compare_once(
    fn: Function,
    module: Any,
    values: dict[str, ArgValue],
    seed: int,
    factory: RuntimeFactory,
    src_factory: RuntimeFactory,
) -> dict[str, Any] | CheckResult | None:
    src_rt = src_factory(seed)
    try:
        src = run_source(fn, values, src_rt)
    finally:
        src_rt.close()
    if src.status != "ok" or src.outcome is None:
        return CheckResult("differential", "not-applicable", reason=src.reason)
    low_rt = factory(seed)
    try:
        positional = [int(values[a.name]) for a in fn.args]
        low = run_function(module, fn.name, positional, low_rt)
    finally:
        low_rt.close()
    if low.status == "incomplete":
        return CheckResult("differential", "not-applicable", reason=low.reason)
    if low.status != "ok" or low.outcome is None:
        return CheckResult("differential", "unknown",
                           reason=f"lowered interpreter: {low.status}: {low.reason}")
    compare_handles = not src.unawaited
    s_norm = normalize(src.outcome, compare_handles)
    l_norm = normalize(low.outcome, compare_handles)
    diffs = differences(s_norm, l_norm)
    if not diffs:
        return None
    return {
        "function": fn.name,
        "args": {k: (bool(v) if isinstance(v, bool) else int(v)) for k, v in values.items()},
        "schedule": seed,
        "profile": low.outcome.profile,
        "differences": diffs,
        "unawaited_tokens": src.unawaited,
        "source": s_norm,
        "lowered": l_norm,
        "lowered_trace": [[callee, list(a)] for callee, a in low.trace],
        "lowered_errors": [[e.kind, e.call, e.loc, e.detail] for e in low.outcome.errors],
    }
