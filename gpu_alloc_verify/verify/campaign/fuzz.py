"""A fuzz campaign in two phases.

1. Search: Hypothesis generates programs; they are lowered in batches (one
   `mlir-opt` process per batch) and judged.  Every distinct violated
   (lowering, invariant) is noted with the first program that showed it.
2. Shrink: for the violations found, a Hypothesis property that fails with
   one exception class per (lowering, invariant) replays the same search
   (same seed) one program at a time, and Hypothesis's multiple-bug
   reporting shrinks each distinct failure to its own minimal program.

Durability: with a results file every judged program is one fsynced line,
so a killed campaign keeps every program it finished, and `resume` (a
`ResumeState` from `verify.campaign.resume`) continues it under the same id:
the same seed regenerates the same programs, recorded ones are skipped by
text, tallies and violations found are rebuilt from the file.  A time budget
stops generation cleanly: the pending batch is judged, shrinking runs over
the programs the search drew, and campaign-end is written.

Example database (`db`): both phases use one database key per campaign
configuration (lowerings, generator settings, invariants, runtime,
pipeline).  The shrink phase reads and writes it (Hypothesis saves each
shrunk counterexample there); the search phase reads it through
`ReadOnlyDatabase`, so yesterday's counterexamples are replayed (and
recorded) before anything new is generated, and the search, which never
fails, cannot delete them.  Without a database, or with an empty one, the
search draws exactly the programs the seed gives; stored examples come
first and count towards max_examples, and may change what is drawn after
them.  The seed stays the campaign's (recorded in campaign-start).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import Phase
from hypothesis.database import ExampleDatabase, ReadOnlyDatabase

from gpu_alloc_verify.generators.features import features
from gpu_alloc_verify.generators.hypothesis_private import current_choices
from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.campaign.eta import guessed_program_s, shrink_left
from gpu_alloc_verify.verify.campaign.example_db import open_database
from gpu_alloc_verify.verify.campaign.progress import Progress
from gpu_alloc_verify.verify.campaign.resume import ResumeState, add_to_tally, found_keys
from gpu_alloc_verify.verify.campaign.shards import streams
from gpu_alloc_verify.verify.campaign.shrink import (
    Found,
    Key,
    campaign_key,
    campaign_property,
    hypothesis_settings,
    in_baseline,
    seeded,
    shrink,
)
from gpu_alloc_verify.verify.invariants.ground_truth import EXECUTION_DECIDED
from gpu_alloc_verify.verify.invariants.options import (
    CAMPAIGN_TRUTH,
    DEFAULT_TRUTH,
    CheckOptions,
)
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, Tally, check_batch, judge
from gpu_alloc_verify.verify.invariants.witness import TruthPolicy
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.lowerings.portfolio import PORTFOLIO, PortfolioLowering
from gpu_alloc_verify.verify.model.baseline import BaselineTally, baseline_entry
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.results import ResultsWriter
from gpu_alloc_verify.verify.model.verdicts import InvariantId, Verdict


@dataclass
class FuzzOptions:
    lowerings: Sequence[Lowering]
    # What each program is judged on (invariants, runtime, solver timeout) and
    # how execution checks it: every violation's witness run, the holds of a
    # share of the programs cross-checked (`campaign_truth(--crosscheck-share)`).
    check: CheckOptions = CheckOptions(truth=CAMPAIGN_TRUTH)
    max_examples: int = 200
    time_budget: float | None = None
    seed: int | None = 0
    db: str | None = None
    pipeline: str = DEFAULT_PIPELINE
    gen: GenConfig = field(default_factory=GenConfig)
    batch_size: int = 100
    shrink: bool = True
    results: str | None = None
    progress: Callable[[Progress], None] | None = None
    # Regression mode: a violation counts only where this lowering (e.g. the
    # released mlir-opt) does not violate the same invariant on the program.
    baseline: Lowering | None = None
    jobs: int = 1  # worker processes judging each batch (verify.campaign.parallel)
    resume: ResumeState | None = None  # continue this unfinished campaign
    # Every record also goes here (a cluster shard streams them to its driver).
    record_sink: Callable[[dict[str, Any]], None] | None = None
    # Seeded searches the examples are split over (verify.campaign.shards: the
    # programs a cluster campaign with as many shards draws).
    shards: int = 1
    # The example database, already open (a cluster shard's, whose saves wait
    # for the campaign's end); None: `db` is opened.
    database: ExampleDatabase | None = None
    # The command line's own options (report directory, -j, ...), recorded in
    # campaign-start and campaign-resume so `--resume` restores them
    # (verify.cli.fuzz_resume); the campaign itself never reads them.
    command_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class FuzzReport:
    tally: Tally
    found: dict[Key, Found]
    coverage: dict[str, int]
    elapsed: float
    first_seen: dict[Key, int]
    campaign: str = ""
    stopped_by: str = "max-examples"  # or "time-budget"
    resumed: int = 0  # programs taken over from the file by --resume
    unknown: list[dict[str, Any]] = field(default_factory=list)
    oracle_coverage: list[dict[str, Any]] = field(default_factory=list)
    analysis_defects: list[dict[str, Any]] = field(default_factory=list)
    # Programs the search drew in this run, duplicates included: Hypothesis
    # draws max_examples, texts already judged are not judged again.
    generated: int | None = None
    # With --baseline: the verdicts the lowering adds over it, and those it shares.
    baseline: BaselineTally | None = None

    def summary(self) -> dict[str, Any]:
        extra = {"baseline": self.baseline.to_json()} if self.baseline is not None else {}
        return extra | {
            "examples": self.tally.examples,
            "lowerings": list(self.tally.by_lowering),
            "by_invariant": self.tally.by_invariant,
            "by_lowering": self.tally.by_lowering,
            "violations": [f.to_json() for f in self.found.values()],
            "unknown": self.unknown,
            "campaign": self.campaign,
            "stopped_by": self.stopped_by,
            "resumed": self.resumed,
            "oracle_coverage": self.oracle_coverage,
            "analysis_defects": self.analysis_defects,
        }


class _Stop(Exception):
    """Raised inside the search property when the time budget is spent."""


@dataclass
class _First:
    index: int
    text: str
    program: Program | None = None  # None: recorded by an earlier run, not seen again yet
    judgement: Judgement | None = None


def new_campaign_id() -> str:
    # Seconds alone collide when two campaigns start together on one file.
    return f"c{int(time.time())}-{os.getpid()}"


def campaign_start(campaign: str, opts: FuzzOptions, gen: dict[str, Any]) -> dict[str, Any]:
    """The campaign-start record of a campaign of `opts`, `gen` its generator
    settings as recorded (a cluster adds its own fields)."""
    return {
        "kind": "campaign-start", "campaign": campaign,
        "lowerings": [lw.spec for lw in opts.lowerings], "seed": opts.seed,
        "runtime": opts.check.runtime, "pipeline": opts.pipeline,
        "config": _json_safe(gen) | {"max_examples": opts.max_examples},
        "invariants": list(opts.check.invariants),
        "baseline": opts.baseline.spec if opts.baseline else None,
        "solver_timeout_ms": opts.check.timeout_ms, "time_budget": opts.time_budget,
        "shrink": opts.shrink, "db": opts.db, "shard_count": opts.shards,
        "options": opts.command_options,
    }


def _json_safe(gen: dict[str, Any]) -> dict[str, Any]:
    """Generator settings as JSON holds them: a set as its sorted list."""
    return {k: sorted(v) if isinstance(v, (set, frozenset)) else v for k, v in gen.items()}


def run_fuzz(opts: FuzzOptions) -> FuzzReport:
    """Run (or, with `opts.resume`, continue) a campaign.  KeyboardInterrupt
    propagates after the results file is closed: every line in it is whole,
    and the campaign, which has no campaign-end, can be resumed."""
    writer = ResultsWriter(opts.results) if opts.results else None
    try:
        return _Campaign(opts, writer).run()
    finally:
        if writer:
            writer.close()


class _Campaign:
    def __init__(self, opts: FuzzOptions, writer: ResultsWriter | None) -> None:
        self.opts = opts
        self.writer = writer
        self.start = time.monotonic()
        self.key = campaign_key(opts)
        self.tally = Tally()
        self.coverage: dict[str, int] = {}
        self.first: dict[Key, _First] = {}
        # Hypothesis choices behind each program, so the shrink phase can
        # start from the very example the search found (see campaign_shrink).
        self.choices: dict[str, tuple[Any, ...]] = {}
        self.uncaptured: dict[str, list[Key]] = {}  # text -> resumed keys it was first for
        self.unknown: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.defects: dict[tuple[str, str, str], dict[str, Any]] = {}
        # (lowering, invariant, "exhaustive"/"sampled") -> programs whose
        # testing-oracle "holds" covered that much
        self.oracle_cov: dict[tuple[str, str, str], int] = {}
        self.base = BaselineTally(opts.baseline.spec) if opts.baseline else None
        self.violated = 0  # violated verdicts counted (not the baseline's)
        self.pending: list[Program] = []
        self.pending_at: list[tuple[int, int]] = []  # (shard, draw) of each pending program
        self.shard = 0  # the seeded search drawing now
        self.shard_drawn = 0  # its draws so far
        self.seen: set[str] = set()
        self.generated = 0  # search calls in this run
        self.judged = 0  # programs judged in this run
        self.stopped_by = "max-examples"
        self.phase = "search"
        self._last_tick = 0.0
        # The shrink phase, for its ETA (verify.campaign.eta): when it began, the
        # guessed cost of one program before it timed its own, programs judged,
        # violated (lowering, invariant) pairs not shrunk yet.
        self.shrink_start = 0.0
        self.shrink_guess: float | None = None
        self.shrink_judged = 0
        self.unshrunk = 0
        self.external = any(lw.external_tool() for lw in [*opts.lowerings, *(
            [opts.baseline] if opts.baseline else [])])
        resume = opts.resume
        self.id = resume.campaign if resume else new_campaign_id()
        self.resumed = resume.recorded if resume else 0

    # -- records ---------------------------------------------------------
    def _write(self, record: dict[str, Any]) -> None:
        if self.writer:
            self.writer.write(record)
        if self.opts.record_sink is not None:
            self.opts.record_sink(record)

    def begin(self) -> None:
        opts = self.opts
        if opts.resume is not None:
            self._load(opts.resume)
            self._write({"kind": "campaign-resume", "campaign": self.id,
                         "recorded": self.resumed, "resumes": opts.resume.resumes + 1,
                         "violations_so_far": len(self.first),
                         "options": opts.command_options})
            return
        self._write(campaign_start(self.id, opts, vars(opts.gen)))

    def _load(self, resume: ResumeState) -> None:
        self.seen |= resume.texts  # a cluster shard's also holds its sibling shards' programs
        for rec in resume.programs:
            add_to_tally(self.tally, rec)
            if self.base is not None:
                self.base.add(rec)
            self.violated += len(found_keys(rec))
            text = rec["program"]
            self.seen.add(text)
            for feat in rec.get("features") or []:
                self.coverage[feat] = self.coverage.get(feat, 0) + 1
            for key in found_keys(rec):
                if key not in self.first:
                    self.first[key] = _First(self.tally.examples, text)
                    self.uncaptured.setdefault(text, []).append(key)
            for spec, res in (rec.get("results") or {}).items():
                for inv, reason in ((res or {}).get("reasons") or {}).items():
                    self._note_unknown(spec, inv, str(reason), text)
                for inv, cov in ((res or {}).get("coverage") or {}).items():
                    self._note_coverage(spec, inv, str(cov))

    def _note_coverage(self, spec: str, inv: str, coverage: str) -> None:
        key = (spec, inv, coverage.split(":")[0].split(" ")[0])
        self.oracle_cov[key] = self.oracle_cov.get(key, 0) + 1

    def _note_unknown(self, spec: str, inv: str, reason: str, text: str) -> None:
        short = reason.strip().splitlines()[0] if reason.strip() else "solver gave up"
        entry = self.unknown.setdefault((spec, inv, short), {
            "lowering": spec, "invariant": inv, "reason": short, "count": 0, "program": text})
        entry["count"] += 1

    def _note_defect(self, spec: str, defect: dict[str, str], text: str) -> None:
        key = (spec, defect["invariant"], defect["kind"])
        entry = self.defects.setdefault(key, {"lowering": spec, **defect, "count": 0,
                                              "program": text})
        entry["count"] += 1

    # -- search ----------------------------------------------------------
    def out_of_time(self) -> bool:
        budget = self.opts.time_budget
        return budget is not None and time.monotonic() - self.start > budget

    def body(self, program: Program) -> None:
        if self.out_of_time():
            self.stopped_by = "time-budget"
            raise _Stop
        self.generated += 1
        draw, self.shard_drawn = self.shard_drawn, self.shard_drawn + 1
        text = program.to_mlir()
        choices = current_choices()
        if choices is not None:
            self.choices.setdefault(text, choices)
        if text in self.seen:
            for key in self.uncaptured.pop(text, []):
                self.first[key].program = program
        else:
            self.seen.add(text)
            self.pending.append(program)
            self.pending_at.append((self.shard, draw))
            if len(self.pending) >= self.opts.batch_size:
                self.flush()
        self.tick()

    def judge_batch(self, batch: list[Program],
                    lowerings: Sequence[Lowering]) -> list[dict[str, Judgement]]:
        opts = self.opts
        if opts.jobs > 1 and len(batch) > 1:
            from gpu_alloc_verify.verify.campaign.parallel import check_batch_parallel

            return check_batch_parallel(batch, lowerings, opts.check, opts.jobs)
        return check_batch(batch, lowerings, opts.check)

    def flush(self) -> None:
        opts = self.opts
        batch, self.pending = self.pending, []
        at, self.pending_at = self.pending_at, []
        if not batch:
            return
        rows = self.judge_batch(batch, opts.lowerings)
        base_rows = (self.judge_batch(batch, [opts.baseline])
                     if opts.baseline else [{} for _ in batch])
        for program, row, base, (shard, draw) in zip(batch, rows, base_rows, at, strict=True):
            self.tally.add(row)
            self.judged += 1
            feats = features(program)
            for feat in feats:
                self.coverage[feat] = self.coverage.get(feat, 0) + 1
            text = program.to_mlir()
            counted: list[Key] = []
            for spec, j in row.items():
                for v in j.violations():
                    key = (spec, v.invariant)
                    if key in counted or in_baseline(base, v.invariant):
                        continue
                    counted.append(key)
                    self.violated += 1
                    if key not in self.first:
                        self.first[key] = _First(self.tally.examples, text, program, j)
            results: dict[str, Any] = {}
            for spec, j in row.items():
                entry: dict[str, Any] = {"status": j.status, "verdicts": j.verdicts()}
                reasons = {inv: r.reason or "solver gave up" for inv, r in j.results.items()
                           if r.verdict == Verdict.UNKNOWN}
                for inv, reason in reasons.items():
                    self._note_unknown(spec, inv, reason, text)
                for d in j.disagreements:
                    self._note_defect(spec, d.to_json(), text)
                if reasons:
                    entry["reasons"] = reasons
                covered = {inv: r.coverage for inv, r in j.results.items()
                           if r.verdict == Verdict.HOLDS and r.coverage}
                for inv, cov in covered.items():
                    self._note_coverage(spec, inv, cov)
                if covered:
                    entry["coverage"] = covered
                if j.status in ("crash", "timeout", "invalid-ir") and j.diagnostics:
                    entry["detail"] = j.diagnostics.strip()[:500]
                pipeline = self.pipeline_of(spec, program)
                if pipeline is not None:  # a portfolio's: triage and replay read it back
                    entry["pipeline"] = pipeline
                results[spec] = entry
            record = {
                "kind": "program", "campaign": self.id,
                "id": f"{self.id}-p{self.tally.examples}", "program": text,
                # Its place in the program stream (shard, draw): what an exact resume skips.
                "shard": shard, "draw": draw,
                "features": feats, "results": results, "found": [list(k) for k in counted],
            }
            if opts.baseline is not None and opts.baseline.spec in base:
                record["baseline"] = baseline_entry(opts.baseline.spec,
                                                    base[opts.baseline.spec].verdicts())
                assert self.base is not None
                self.base.add(record)
            self._write(record)
        self.tick(force=True)

    # -- progress --------------------------------------------------------
    def progress(self, final: bool = False) -> Progress:
        elapsed = time.monotonic() - self.start
        parts = [self.generated / max(1, self.opts.max_examples)]
        if self.opts.time_budget:
            parts.append(elapsed / self.opts.time_budget)
        left, shrunk, pairs = self._shrinking(elapsed)
        return Progress(self.phase, self.tally.examples, self.generated,
                        self.judged / max(1e-9, elapsed), self.violated, elapsed,
                        min(1.0, max(parts)), final, left, shrunk, pairs)

    def _shrinking(self, elapsed: float) -> tuple[float | None, int, int]:
        """(seconds of shrinking left, pairs shrunk, pairs to shrink): in the
        search, the whole phase's guess from the search's own pace."""
        pairs = len(self.first)
        if not self.opts.shrink or not pairs:
            return None, 0, 0
        if self.phase == "search":
            guess = guessed_program_s(elapsed, self.judged, self.external)
            return shrink_left(pairs, pairs, 0, guess), 0, pairs
        judged = self.shrink_judged
        program_s = ((time.monotonic() - self.shrink_start) / judged if judged
                     else self.shrink_guess)
        return (shrink_left(pairs, self.unshrunk, judged, program_s),
                pairs - self.unshrunk, pairs)

    def _shrink_step(self, judged: int, unshrunk: int) -> None:
        self.shrink_judged, self.unshrunk = judged, unshrunk
        self.tick()

    def tick(self, force: bool = False, final: bool = False) -> None:
        if self.opts.progress is None:
            return
        now = time.monotonic()
        if not (force or final) and now - self._last_tick < 0.5:
            return
        self._last_tick = now
        self.opts.progress(self.progress(final))

    # -- the whole campaign -----------------------------------------------
    def run(self) -> FuzzReport:
        opts = self.opts
        self.begin()
        db = (opts.database if opts.database is not None
              else open_database(opts.db, check=True))  # a directory, or redis://HOST:PORT/N
        phases = [Phase.reuse, Phase.generate] if db is not None else [Phase.generate]
        read_only = ReadOnlyDatabase(db) if db is not None else None
        try:
            # One seeded search per shard, in shard order (verify.campaign.shards).
            for k, (seed, count) in enumerate(streams(opts.seed, opts.shards,
                                                      opts.max_examples)):
                self.shard, self.shard_drawn = k, 0
                part = replace(opts, seed=seed)
                search = hypothesis_settings(part, phases, read_only, count,
                                             multiple_bugs=False)(
                    seeded(part, campaign_property(opts.gen, self.body, self.key)))
                search()
        except _Stop:
            pass
        self.flush()
        # The search's last line; not the campaign's when shrinking follows (its ETA counts it).
        shrinking = opts.shrink and bool(self.first)
        self.tick(force=True, final=not shrinking)

        found: dict[Key, Found] = {}
        if opts.shrink and self.first:
            self.shrink_guess = guessed_program_s(time.monotonic() - self.start, self.judged,
                                                  self.external)
            self.phase, self.shrink_start = "shrink", time.monotonic()
            self.unshrunk = len(self.first)
            self.tick(force=True)
            # Replay no further than the search went (all of it when it ran to
            # max_examples): a time budget bounds the replay too.
            replay = (max(1, self.generated) if self.stopped_by == "time-budget"
                      else opts.max_examples)
            seeds = {k: self.choices[f.text] for k, f in self.first.items()
                     if f.text in self.choices}
            found = shrink(opts, set(self.first), self.key, db, replay,
                            self._shrink_step, seeds)
        for key, first in self.first.items():
            if key not in found:
                f = self._unshrunk(key, first)
                if f is not None:
                    found[key] = f
        for f in found.values():
            self._confirm_natively(f)
        # A campaign killed while writing its violations keeps those written.
        written = opts.resume.violations if opts.resume else []
        done = {(r.get("lowering"), r.get("invariant")) for r in written}
        for k, f in enumerate(f for key, f in found.items() if key not in done):
            self._write({"kind": "violation", "campaign": self.id,
                         "id": f"{self.id}-v{k + len(written)}", **self._replay_settings(f),
                         **f.to_json()})
        report = FuzzReport(self.tally, found, self.coverage, time.monotonic() - self.start,
                            {k: v.index for k, v in self.first.items()}, self.id,
                            self.stopped_by, self.resumed, list(self.unknown.values()),
                            [{"lowering": s, "invariant": i, "coverage": c, "count": n}
                             for (s, i, c), n in sorted(self.oracle_cov.items())],
                            list(self.defects.values()), self.generated, self.base)
        self._write({"kind": "campaign-end", "campaign": self.id,
                     "summary": report.summary(), "coverage": self.coverage,
                     "stopped_by": self.stopped_by, "elapsed": report.elapsed})
        return report

    def _confirm_natively(self, found: Found) -> None:
        """Run a reported violation's witness natively as well (`check` does
        for every one; a campaign for those it reports, shrunk)."""
        if found.invariant not in EXECUTION_DECIDED:
            return
        lowering = next((lw for lw in self.opts.lowerings if lw.spec == found.spec), None)
        if lowering is None:
            return
        outcome = lowering.lower_batch([found.program])[0]
        j = judge(found.program, outcome, found.spec, self.opts.check.replace(
            invariants=(found.invariant,), truth=TruthPolicy(native=True)))
        again = {v.detail: v.confirmation for v in j.violations()}
        for v in found.judgement.results[found.invariant].violations:
            v.confirmation = again.get(v.detail, v.confirmation)

    def _replay_settings(self, found: Found) -> dict[str, Any]:
        """What `replay` needs, besides lowering and invariant, to judge a
        violation as this campaign did: with a portfolio, the one pipeline
        its program went through."""
        pipeline = self.pipeline_of(found.spec, found.program)
        if pipeline is None:
            pipeline = DEFAULT_PIPELINE if self.opts.pipeline == PORTFOLIO else self.opts.pipeline
        return {"pipeline": pipeline, "runtime": self.opts.check.runtime,
                "solver_timeout_ms": self.opts.check.timeout_ms}

    def pipeline_of(self, spec: str, program: Program) -> str | None:
        """The pipeline a portfolio lowering `spec` gave `program`; None for
        a lowering with one pipeline."""
        lowering = next((lw for lw in self.opts.lowerings if lw.spec == spec), None)
        if isinstance(lowering, PortfolioLowering):
            return lowering.pipeline_for(program)
        return None

    def _unshrunk(self, key: Key, first: _First) -> Found | None:
        """The first program that showed `key`, judged (again, if it came from
        the file and the search did not draw it in this run)."""
        program, j = first.program, first.judgement
        if program is None:
            from gpu_alloc_verify.verify.source.to_program import program_from_text

            try:
                program = program_from_text(first.text, f"{self.id} program {first.index}")
            except Exception as e:  # noqa: BLE001 - report, do not lose the campaign
                print(f"cannot re-read recorded program {first.index} for {key}: {e}",
                      file=sys.stderr)
                return None
        if j is None:
            by_spec = {lw.spec: lw for lw in self.opts.lowerings}
            if key[0] not in by_spec:
                return None
            # judged as the shrink phase judges (its witness runs, no cross-checks)
            j = check_batch([program], [by_spec[key[0]]],
                            self.opts.check.replace(truth=DEFAULT_TRUTH))[0][key[0]]
        return Found(key[0], InvariantId(key[1]), program, j, shrunk=False)
