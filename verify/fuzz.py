"""A fuzz campaign in two phases.

1. Search: Hypothesis generates programs; they are lowered in batches (one
   `mlir-opt` process per batch) and judged.  Every distinct violated
   (lowering, invariant) is noted with the first program that showed it.
2. Shrink: for the violations found, a Hypothesis property that fails with
   one exception class per (lowering, invariant) replays the same search
   (same seed) one program at a time, and Hypothesis's multiple-bug
   reporting shrinks each distinct failure to its own minimal program.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.database import DirectoryBasedExampleDatabase

from generators.features import features
from generators.programs import GenConfig, programs
from verify.lowerings.base import Lowering
from verify.pipeline import Judgement, Tally, check_batch, judge
from verify.program import Program
from verify.results import ResultsWriter


@dataclass
class FuzzOptions:
    lowerings: Sequence[Lowering]
    invariants: Sequence[str]
    max_examples: int = 200
    time_budget: float | None = None
    seed: int | None = 0
    db: str | None = None
    runtime: str = "cuda"
    pipeline: str = "gpu-to-llvm"
    gen: GenConfig = field(default_factory=GenConfig)
    batch_size: int = 100
    shrink: bool = True
    results: str | None = None
    progress: Callable[[str], None] | None = None
    # Regression mode: a violation counts only where this lowering (e.g. the
    # released mlir-opt) does not violate the same invariant on the program.
    baseline: Lowering | None = None


@dataclass
class Found:
    spec: str
    invariant: str
    program: Program
    judgement: Judgement

    def to_json(self) -> dict[str, Any]:
        viol = next(v for v in self.judgement.violations() if v.invariant == self.invariant)
        return {
            "invariant": self.invariant,
            "lowering": self.spec,
            "program": self.program.to_mlir(),
            "ops": self.program.op_count(),
            "lowered": self.judgement.lowered,
            "detail": viol.detail,
            "counterexample": viol.counterexample,
            "marked_calls": viol.marked_calls,
        }


@dataclass
class FuzzReport:
    tally: Tally
    found: dict[tuple[str, str], Found]
    coverage: dict[str, int]
    elapsed: float
    first_seen: dict[tuple[str, str], int]

    def summary(self) -> dict[str, Any]:
        return {
            "examples": self.tally.examples,
            "lowerings": list(self.tally.by_lowering),
            "by_invariant": self.tally.by_invariant,
            "by_lowering": self.tally.by_lowering,
            "violations": [f.to_json() for f in self.found.values()],
        }


class _Stop(Exception):
    """Raised inside the search property when the time budget is spent."""


def _search_settings(opts: FuzzOptions, phases: list[Phase], db: Any = None) -> settings:
    return settings(
        max_examples=opts.max_examples,
        deadline=None,
        database=db,
        derandomize=opts.seed is None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=True,
    )


def _seeded(opts: FuzzOptions, test: Any) -> Any:
    return hypothesis_seed(opts.seed)(test) if opts.seed is not None else test


def run_fuzz(opts: FuzzOptions) -> FuzzReport:
    start = time.monotonic()
    writer = ResultsWriter(opts.results) if opts.results else None
    campaign = f"c{int(time.time())}"
    if writer:
        writer.write({"kind": "campaign-start", "campaign": campaign,
                      "lowerings": [lw.spec for lw in opts.lowerings], "seed": opts.seed,
                      "runtime": opts.runtime, "pipeline": opts.pipeline,
                      "config": vars(opts.gen) | {"max_examples": opts.max_examples}})
    tally = Tally()
    coverage: dict[str, int] = {}
    first: dict[tuple[str, str], tuple[int, Program, Judgement]] = {}
    pending: list[Program] = []
    seen_texts: set[str] = set()

    def flush() -> None:
        rows = check_batch(pending, opts.lowerings, opts.invariants, opts.runtime)
        base_rows = (check_batch(pending, [opts.baseline], opts.invariants, opts.runtime)
                     if opts.baseline else [{} for _ in pending])
        for program, row, base in zip(pending, rows, base_rows, strict=True):
            tally.add(row)
            feats = features(program)
            for feat in feats:
                coverage[feat] = coverage.get(feat, 0) + 1
            for spec, j in row.items():
                for v in j.violations():
                    if _in_baseline(base, v.invariant):
                        continue
                    first.setdefault((spec, v.invariant), (tally.examples, program, j))
            if writer:
                writer.write({
                    "kind": "program", "campaign": campaign,
                    "id": f"{campaign}-p{tally.examples}", "program": program.to_mlir(),
                    "features": feats,
                    "results": {s: {"status": j.status, "verdicts": j.verdicts()}
                                for s, j in row.items()},
                })
        pending.clear()
        if opts.progress:
            rate = tally.examples / max(1e-9, time.monotonic() - start)
            opts.progress(f"{tally.examples} programs, {rate:.0f}/s, "
                          f"{len(first)} distinct violation(s)")

    def out_of_time() -> bool:
        return opts.time_budget is not None and time.monotonic() - start > opts.time_budget

    @given(programs(opts.gen))
    def search(program: Program) -> None:
        if out_of_time():
            raise _Stop
        text = program.to_mlir()
        if text in seen_texts:
            return
        seen_texts.add(text)
        pending.append(program)
        if len(pending) >= opts.batch_size:
            flush()

    search_test = _search_settings(opts, [Phase.generate])(_seeded(opts, search))
    try:
        search_test()
    except _Stop:
        pass
    if pending:
        flush()

    found: dict[tuple[str, str], Found] = {}
    if opts.shrink and first:
        found = _shrink(opts, set(first))
    for key, (_, program, j) in first.items():
        found.setdefault(key, Found(key[0], key[1], program, j))
    if writer:
        for k, f in enumerate(found.values()):
            writer.write({"kind": "violation", "campaign": campaign, "id": f"{campaign}-v{k}",
                          "pipeline": opts.pipeline, **f.to_json()})
    report = FuzzReport(tally, found, coverage, time.monotonic() - start,
                        {k: v[0] for k, v in first.items()})
    if writer:
        writer.write({"kind": "campaign-end", "campaign": campaign,
                      "summary": report.summary(), "coverage": coverage})
        writer.close()
    return report


def _in_baseline(base_row: dict[str, Judgement], invariant: str) -> bool:
    return any(j.results.get(invariant) is not None
               and j.results[invariant].verdict == "violated" for j in base_row.values())


def _violation_class(spec: str, invariant: str) -> type[Exception]:
    # A class per (lowering, invariant): Hypothesis tells bugs apart by
    # exception type, so each one is shrunk and reported on its own.
    name = f"Violation[{spec}|{invariant}]"
    return type(name, (AssertionError,), {})


def _shrink(opts: FuzzOptions, keys: set[tuple[str, str]]) -> dict[tuple[str, str], Found]:
    by_spec = {lw.spec: lw for lw in opts.lowerings}
    if opts.baseline is not None:
        by_spec.setdefault(opts.baseline.spec, opts.baseline)
    classes = {k: _violation_class(*k) for k in keys}
    cache: dict[tuple[str, str], Judgement] = {}
    found: dict[tuple[str, str], Found] = {}
    db = DirectoryBasedExampleDatabase(str(Path(opts.db))) if opts.db else None

    def judge_one(spec: str, program: Program) -> Judgement:
        text = program.to_mlir()
        if (spec, text) not in cache:
            outcome = by_spec[spec].lower_batch([program])[0]
            cache[(spec, text)] = judge(program, outcome, spec, opts.invariants, opts.runtime)
        return cache[(spec, text)]

    remaining = set(keys)
    for _ in range(3):  # a bug masked by another in one round is chased in the next
        if not remaining:
            break
        wanted = sorted(remaining)

        @given(programs(opts.gen))
        def prop(program: Program) -> None:
            for spec, inv in wanted:  # noqa: B023 - runs within this round
                j = judge_one(spec, program)
                if j.results.get(inv) is not None and j.results[inv].verdict == "violated":
                    if opts.baseline is not None and _in_baseline(
                            {"b": judge_one(opts.baseline.spec, program)}, inv):
                        continue
                    err = classes[(spec, inv)](f"{inv} on {spec}")
                    err.found = Found(spec, inv, program, j)  # type: ignore[attr-defined]
                    raise err

        test = _search_settings(
            opts, [Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink], db
        )(_seeded(opts, prop))
        try:
            test()
        except BaseException as e:  # noqa: BLE001 - Hypothesis raises our errors or a group
            errors = list(e.exceptions) if isinstance(e, BaseExceptionGroup) else [e]
            for err in errors:
                f = getattr(err, "found", None)
                if f is None:
                    if isinstance(err, KeyboardInterrupt):
                        raise
                    print(f"shrink round failed: {err!r}", file=sys.stderr)
                    continue
                key = (f.spec, f.invariant)
                if key not in found or f.program.op_count() < found[key].program.op_count():
                    found[key] = f
                remaining.discard(key)
        else:
            break  # nothing reproduced in this round: keep phase-1 programs
    return found
