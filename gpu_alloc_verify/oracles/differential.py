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
A launch with a zero grid or block dimension runs no thread: it changes no
memory and prints nothing, so the runtime's record of it is no observable
(LLVM 22's `gpu-to-llvm` erases such a `gpu.launch` with an empty body).

Lowered text is run on `verify.ir.fastparse`'s reading of it, which costs a
fraction of xDSL's parse; where that reader or the interpreter's model of
it declines (`fastparse.Unsupported`), on xDSL's parse, so the verdict is
the same either way (`tests/oracles/test_differential_fast.py`).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypedDict, cast

from gpu_alloc_verify.oracles.kernel_api import Kernel, MemRefView
from gpu_alloc_verify.oracles.lowered_interp import (
    LoweredRun,
    parse_module,
    read_fast,
    run_function,
)
from gpu_alloc_verify.oracles.mismatch import observables
from gpu_alloc_verify.oracles.runtime import (
    BAD_LAUNCH,
    DEVICE_RACE,
    HOST_RACE,
    MemoryKind,
    Outcome,
    Runtime,
    RuntimeErrorRecord,
)
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.oracles.source_interp import (
    ArgValue,
    SourceRun,
    bind_buffers,
    program_unmodelled,
)
from gpu_alloc_verify.oracles.source_interp import run_function as run_source
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.lowered_ir import DEFAULT_PARSER
from gpu_alloc_verify.verify.model.program import FLOAT_TYPES, Function, MemRefType, Program
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict, Violation

if TYPE_CHECKING:
    from xdsl.ir import Operation

RuntimeFactory = Callable[[int], Runtime]  # seed -> a fresh runtime
Assignment = Mapping[str, ArgValue]  # "%cond0" or "f1:%cond0" -> value
DEFAULT_SIZE = 3
MAX_ASSIGNMENTS = 16  # branch assignments run per function: all while 2**k fits
RACES = (HOST_RACE, DEVICE_RACE)


class NormalizedAllocation(TypedDict):
    size: int
    kind: MemoryKind
    live: bool
    contents: str | None  # `encode_contents` of the bytes at exit; None once freed


HostAccessRow: TypeAlias = list[str | None]  # [source op, "read" | "write", target, value]
ErrorRow: TypeAlias = list[str]  # [kind, source op or "?"]


class Normalized(TypedDict):
    """An outcome in the form compared (`normalize`)."""

    allocations: dict[str, NormalizedAllocation]  # by label
    host_accesses: list[HostAccessRow]
    errors: list[ErrorRow]
    live_streams: int | str  # a count, or "not compared"
    live_events: int | str


class Mismatch(TypedDict):
    """A differential counterexample: one function, one assignment, one schedule."""

    function: str
    args: dict[str, ArgValue]
    schedule: int
    schedule_name: str
    profile: str
    differences: list[str]  # `differences`
    observables: list[dict[str, str]]  # `mismatch.observables`
    unawaited_tokens: list[str]
    source: Normalized
    lowered: Normalized
    lowered_trace: list[list[str | list[str | int]]]  # [callee, args] per runtime call
    lowered_errors: list[list[str | None]]  # [kind, call, loc, detail]


class SourceSide(Protocol):
    """What `outcome_differences` reads of a source run: `source_interp.SourceRun`
    or `source_xdsl.machine.XRun`, run to the end."""

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def unawaited(self) -> list[str]: ...


def simulated(profile: str = "cuda") -> RuntimeFactory:
    return lambda seed: SimulatedRuntime(profile, seed)


def default_assignments(fn: Function) -> list[dict[str, ArgValue]]:
    """Every assignment of the function's i1 arguments while there are at most
    MAX_ASSIGNMENTS, else all-false, all-true, the two alternations and seeded
    random ones up to that many; other arguments get `default_value`."""
    conds = [a.name for a in fn.args if a.type == "i1"]
    others = {a.name: default_value(a.type) for a in fn.args
              if a.type != "i1" and not isinstance(a.type, MemRefType)}
    if 2 ** len(conds) <= MAX_ASSIGNMENTS:
        patterns = list(itertools.product((False, True), repeat=len(conds)))
    else:
        n = len(conds)
        chosen = [(False,) * n, (True,) * n,
                  tuple(i % 2 == 0 for i in range(n)), tuple(i % 2 == 1 for i in range(n))]
        rng = random.Random(n)
        while len(chosen) < MAX_ASSIGNMENTS:
            p = tuple(rng.random() < 0.5 for _ in range(n))
            if p not in chosen:
                chosen.append(p)
        patterns = chosen
    return [{**others, **dict(zip(conds, p, strict=True))} for p in patterns]


def default_value(type_: str | MemRefType) -> ArgValue:
    """An index or integer argument is DEFAULT_SIZE, a float one that as a float
    (a buffer is made by `bind_buffers` on each runtime)."""
    return float(DEFAULT_SIZE) if type_ in FLOAT_TYPES else DEFAULT_SIZE


def branch_space(fn: Function) -> int:
    return 2 ** sum(1 for a in fn.args if a.type == "i1")


def _for_function(fn: Function, assignment: Assignment) -> dict[str, ArgValue]:
    out: dict[str, ArgValue] = {}
    for a in fn.args:
        if isinstance(a.type, MemRefType):
            continue  # made on each runtime by `bind_buffers`
        for key in (f"{fn.name}:{a.name}", a.name):
            if key in assignment:
                out[a.name] = assignment[key]
                break
        else:
            out[a.name] = False if a.type == "i1" else default_value(a.type)
    return out


def normalize(outcome: Outcome, compare_handles: bool = True) -> Normalized:
    """The comparable form of an outcome (see module docstring)."""
    return {
        "allocations": {
            a.label: {"size": a.size, "kind": a.kind, "live": a.live, "contents": a.contents}
            for a in outcome.allocations
        },
        "host_accesses": [
            [h.loc, h.access, h.target, h.value] for h in outcome.host_accesses
        ],
        "errors": sorted([e.kind, e.loc or "?"] for e in outcome.errors if _observable(e)),
        "live_streams": len(outcome.live_streams) if compare_handles else "not compared",
        "live_events": len(outcome.live_events) if compare_handles else "not compared",
    }


def _observable(error: RuntimeErrorRecord) -> bool:
    """A runtime error a program could see: not a launch of no thread (some
    dimension 0, none negative), which does nothing at all."""
    if error.kind != BAD_LAUNCH:
        return True
    dims = error.dims
    return not dims or min(dims) < 0 or 0 not in dims


def _unobservable(entry: NormalizedAllocation | None) -> bool:
    """A live allocation nothing ever wrote: a lowering may drop it as dead code."""
    if entry is None:
        return True
    contents = entry["contents"] or ""
    if contents == "empty":  # zero bytes (`encode_contents`): nothing to observe
        return bool(entry["live"])
    return bool(entry["live"]) and all(
        run.split("*")[0].strip("?") == "" for run in contents.split(",")
    )


def host_reads(accesses: Sequence[HostAccessRow]
               ) -> dict[tuple[str | None, int], tuple[str | None, str | None]]:
    """Host reads keyed by (source op, n-th read by that op): (target, value)."""
    seen: Counter[str | None] = Counter()
    out: dict[tuple[str | None, int], tuple[str | None, str | None]] = {}
    for loc, access, target, value in accesses:
        if access == "read":
            out[(loc, seen[loc])] = (target, value)
            seen[loc] += 1
    return out


def differences(source: Normalized, lowered: Normalized) -> list[str]:
    """Keys of the normalized outcomes that differ (see module docstring)."""
    diffs: list[str] = []
    s_reads, l_reads = host_reads(source["host_accesses"]), host_reads(lowered["host_accesses"])
    # A load whose value is unused may be erased as dead code (LLVM 22 does):
    # such a read, and what the runtime said about it, counts on neither side.
    one_sided = {loc for loc, _ in set(s_reads) ^ set(l_reads)}
    s_fields: Mapping[str, object] = source  # by a key not spelled out (the counts)
    l_fields: Mapping[str, object] = lowered
    for key in source:
        if key == "allocations":
            s_allocs, l_allocs = source["allocations"], lowered["allocations"]
            for label in sorted(set(s_allocs) | set(l_allocs)):
                s_entry, l_entry = s_allocs.get(label), l_allocs.get(label)
                if s_entry == l_entry:
                    continue
                if (s_entry is None or l_entry is None) and _unobservable(s_entry) \
                        and _unobservable(l_entry):
                    continue  # an unused allocation present on one side only
                diffs.append(f"allocations[{label}]")
        elif key == "host_accesses":
            s_writes = [a for a in source["host_accesses"] if a[1] == "write"]
            l_writes = [a for a in lowered["host_accesses"] if a[1] == "write"]
            shared = set(s_reads) & set(l_reads)
            if s_writes != l_writes or any(s_reads[k] != l_reads[k] for k in shared):
                diffs.append(key)
        elif key == "errors":
            if [e for e in source["errors"] if e[1] not in one_sided] != \
                    [e for e in lowered["errors"] if e[1] not in one_sided]:
                diffs.append(key)
        elif s_fields[key] != l_fields[key]:
            diffs.append(key)
    return diffs


def compare(
    program: Program,
    lowered_module: str | Operation | fastparse.Op,
    runtime_factory: RuntimeFactory | None = None,
    schedules: int = 3,
    args: Assignment | Sequence[Assignment] | None = None,
    source_runtime_factory: RuntimeFactory | None = None,
    parser: str | None = None,
) -> Mismatch | None:
    """The first source/lowered mismatch, or None (also when not comparable).

    `args`: one assignment or several ("%cond0" for every function, or
    "f1:%cond0"); by default `default_assignments` of each function.
    """
    result = check(program, lowered_module, runtime_factory, schedules, args,
                   source_runtime_factory, parser)
    if result.verdict == Verdict.VIOLATED:
        return cast(Mismatch, result.violations[0].counterexample)  # `_mismatch`'s
    return None


def check(
    program: Program,
    lowered_module: str | Operation | fastparse.Op,
    runtime_factory: RuntimeFactory | None = None,
    schedules: int = 3,
    args: Assignment | Sequence[Assignment] | None = None,
    source_runtime_factory: RuntimeFactory | None = None,
    parser: str | None = None,
) -> CheckResult:
    """The `differential` verdict, with the mismatch as counterexample.

    `parser` for text: "fast" (`verify.ir.fastparse`, xDSL where it declines) or
    "xdsl"; by default `verify.ir.lowered_ir.DEFAULT_PARSER`.  A module is run as
    it is (a `verify.ir.fastparse` one raises `fastparse.Unsupported` where its
    model falls short: no text to fall back on).  `schedules` is kept for
    callers: one (lazy) schedule stands for all (see `_compare`).
    """
    unmodelled = program_unmodelled(program)  # a kernel the interpreter cannot run
    if unmodelled is not None:
        return CheckResult(InvariantId.DIFFERENTIAL, Verdict.UNKNOWN, reason=unmodelled)
    factory = runtime_factory or simulated("cuda")
    src_factory = source_runtime_factory or factory
    if isinstance(lowered_module, str) and (parser or DEFAULT_PARSER) == "fast":
        fast = read_fast(lowered_module)
        if fast is not None:
            try:
                return _check_module(program, fast, factory, src_factory, args)
            except fastparse.Unsupported:
                pass  # outside the fast model: the same run on xDSL's parse
    try:
        module = parse_module(lowered_module) if isinstance(lowered_module, str) \
            else lowered_module
    except Exception as e:  # noqa: BLE001 - a bad module is a verdict, not a crash
        return CheckResult(InvariantId.DIFFERENTIAL, Verdict.UNKNOWN,
                           reason=f"unparsable lowered module: {e}")
    return _check_module(program, module, factory, src_factory, args)


def _check_module(
    program: Program,
    module: Operation | fastparse.Op,
    factory: RuntimeFactory,
    src_factory: RuntimeFactory,
    args: Assignment | Sequence[Assignment] | None,
) -> CheckResult:
    kernels = program_kernels(program)
    runs = 0
    space = 0
    for fn in program.functions:
        if args is None:
            assignments: Sequence[Assignment] = default_assignments(fn)
            space += branch_space(fn)
        elif isinstance(args, Mapping):
            assignments = [args]
            space += branch_space(fn) if branch_space(fn) == 1 else 0
        else:
            assignments = args
        for assignment in assignments:
            values = _for_function(fn, assignment)
            found = _compare(fn, module, values, factory, src_factory, kernels)
            if isinstance(found, CheckResult):
                return found
            runs += 1
            if found is None:
                continue
            return CheckResult(InvariantId.DIFFERENTIAL, Verdict.VIOLATED, [Violation(
                InvariantId.DIFFERENTIAL, _detail(fn, values, found),
                cast("dict[str, Any]", found))])
    return CheckResult(InvariantId.DIFFERENTIAL, Verdict.HOLDS, coverage=_coverage(runs, space))


def _coverage(runs: int, space: int) -> str:
    """What a "holds" covered: branch assignments, schedules, argument values."""
    if runs == space:
        return (f"exhaustive: all {runs} branch assignment(s) x every schedule; "
                f"sizes and scalars {DEFAULT_SIZE}")
    of = f"{runs} of {space}" if space else f"{runs} given"
    return f"sampled {of} branch assignments x every schedule; sizes and scalars {DEFAULT_SIZE}"


def _detail(fn: Function, values: Mapping[str, ArgValue], found: Mismatch) -> str:
    shown = found["observables"][0] if found.get("observables") else None
    what = (f"{shown['observable']}: source {shown['source']}, lowered {shown['lowered']}"
            if shown else ", ".join(found["differences"]))
    return f"@{fn.name} with {_show(values)}, {found['schedule_name']}: {what}"


def _show(values: Mapping[str, ArgValue]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in values.items()) + "}" if values else "no args"


def program_kernels(program: Program) -> dict[str, Kernel]:
    """What runs each kernel the program launches, by symbol name."""
    if not program.kernels:
        return {}
    from gpu_alloc_verify.oracles.kernel_interp import catalogue_kernel

    return {ref.name: catalogue_kernel(ref) for ref in program.kernels}


def lowered_args(fn: Function, values: Mapping[str, ArgValue]) -> list[int | float]:
    """Positional arguments of the lowered function: a memref expanded into
    its descriptor's fields (allocated, aligned, offset, sizes, strides), as
    the LLVM calling convention of `func-to-llvm` passes it."""
    out: list[int | float] = []
    for a in fn.args:
        v = values[a.name]
        if isinstance(v, MemRefView):
            out += [v.ptr, v.ptr, v.offset, *v.sizes, *v.strides]
        elif isinstance(v, float) and not isinstance(v, bool):
            out.append(v)
        else:
            out.append(int(v))
    return out


def source_run(fn: Function, values: dict[str, ArgValue], rt: Runtime
               ) -> tuple[SourceRun, Outcome] | CheckResult:
    """`fn` under the reference semantics on `rt` (its buffers bound as a
    caller would): (run, outcome), or why it did not run to the end."""
    try:
        bound = {**values, **bind_buffers(fn, rt, DEFAULT_SIZE)}
        src = run_source(fn, bound, rt)
    finally:
        rt.close()
    if src.status != "ok" or src.outcome is None:
        return CheckResult(InvariantId.DIFFERENTIAL, Verdict.UNKNOWN,
                           reason=f"reference semantics: {src.reason}")
    return src, src.outcome


def lowered_run(fn: Function, module: Operation | fastparse.Op, values: dict[str, ArgValue],
                rt: Runtime, kernels: Mapping[str, Kernel]) -> LoweredRun | CheckResult:
    """The lowered `fn` on `rt`, called as `func-to-llvm` calls it: its
    `LoweredRun`, or why it did not run to the end."""
    try:
        bound = {**values, **bind_buffers(fn, rt, DEFAULT_SIZE)}
        low = run_function(module, fn.name, lowered_args(fn, bound), rt, kernels=kernels)
    finally:
        rt.close()
    if low.status != "ok" or low.outcome is None:
        return CheckResult(InvariantId.DIFFERENTIAL, Verdict.UNKNOWN,
                           reason=f"lowered interpreter: {low.status}: {low.reason}")
    return low


def _races(outcome: Outcome) -> list[str]:
    return [f"{e.kind} at {e.loc or '?'}" for e in outcome.errors if e.kind in RACES]


def _compare(
    fn: Function,
    module: Operation | fastparse.Op,
    values: dict[str, ArgValue],
    factory: RuntimeFactory,
    src_factory: RuntimeFactory,
    kernels: Mapping[str, Kernel],
) -> Mismatch | CheckResult | None:
    """One assignment, on the lazy schedule (seed 0: no device work runs
    before the host forces it): the mismatch, or None.

    The simulator flags every access unordered with queued work, whatever the
    schedule, and the lazy one leaves the most work queued.  So when the
    source does not race there, its conflicting work is ordered and every
    legal schedule gives the same outcome: this one run stands for all of
    them, and a lowered run that differs (a race it added included) differs
    on some schedule the source allows on none.  A source that races has no
    one outcome to compare with: unknown."""
    src = source_run(fn, values, src_factory(0))
    if isinstance(src, CheckResult):
        return src
    races = _races(src[1])
    if races:
        return CheckResult(InvariantId.DIFFERENTIAL, Verdict.UNKNOWN, reason=(
            f"the source itself races ({', '.join(races[:2])}) with {_show(values)}: its "
            "outcome depends on the schedule, so no lowered outcome can be shown wrong"))
    low = lowered_run(fn, module, values, factory(0), kernels)
    if isinstance(low, CheckResult):
        return low
    return _mismatch(fn, values, 0, src[0], low)


def outcome_differences(src: SourceSide, low: LoweredRun
                        ) -> tuple[list[str], Normalized, Normalized, bool]:
    """What differs between a source and a lowered run (their normalized
    outcomes too).  Handle counts are compared only where the source
    awaited every token and the lowering left none behind: otherwise a
    lowering may legitimately keep streams live."""
    assert src.outcome is not None and low.outcome is not None  # runs to the end
    compare_handles = not src.unawaited and not low.token_residue
    s_norm = normalize(src.outcome, compare_handles)
    l_norm = normalize(low.outcome, compare_handles)
    return differences(s_norm, l_norm), s_norm, l_norm, compare_handles


def _mismatch(fn: Function, values: Mapping[str, ArgValue], seed: int, src: SourceRun,
              low: LoweredRun) -> Mismatch | None:
    assert low.outcome is not None
    diffs, s_norm, l_norm, compare_handles = outcome_differences(src, low)
    if not diffs:
        return None
    return {
        "function": fn.name,
        "args": dict(values),
        "schedule": seed,
        "schedule_name": "lazy schedule" if seed == 0 else f"schedule {seed}",
        "profile": low.outcome.profile,
        "differences": diffs,
        "observables": observables(s_norm, l_norm, diffs),
        "unawaited_tokens": src.unawaited,
        "source": s_norm,
        "lowered": l_norm,
        "lowered_trace": [[callee, list(a)] for callee, a in low.trace],
        "lowered_errors": [[e.kind, e.call, e.loc, e.detail] for e in low.outcome.errors],
    }
