"""One run: lower a batch of programs with each lowering, then judge every
invariant on every (program, lowering)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.verify.extract.calls import LoweredFacts, extract
from gpu_alloc_verify.verify.invariants import CHECKERS, CheckContext
from gpu_alloc_verify.verify.invariants.options import DEFAULT_TRUTH as DEFAULT_TRUTH
from gpu_alloc_verify.verify.invariants.options import NO_CRASH, CheckOptions
from gpu_alloc_verify.verify.invariants.options import active_invariants as active_invariants
from gpu_alloc_verify.verify.invariants.witness import Disagreement, reconcile
from gpu_alloc_verify.verify.ir.fastparse import Unsupported
from gpu_alloc_verify.verify.ir.lowered_ir import LoweredParseError, parse_lowered, read_lowered
from gpu_alloc_verify.verify.lowerings.base import Lowering, LoweringOutcome, Status
from gpu_alloc_verify.verify.lowerings.failure_kind import CONFIRMED_BY_TOOL
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.verdicts import (
    VERDICTS,
    CheckResult,
    InvariantId,
    Verdict,
    Violation,
)
from gpu_alloc_verify.verify.source.facts import read_source
from gpu_alloc_verify.verify.source.of_program import judged_as, source_facts
from gpu_alloc_verify.verify.source.text import parse_text
from gpu_alloc_verify.verify.source.user_file import SourceModule
from gpu_alloc_verify.verify.tools.llvm_version import lowering_version

# `DEFAULT_TRUTH` and `active_invariants` live in `options`; imported from here too.
# Invariants about what gpu-to-llvm does with the ops it is given.
ENTRY_JUDGED = (InvariantId.SYNC_ALLOC_NO_STREAM, InvariantId.HOST_SHARED_FLAG)


@dataclass
class Judgement:
    """The verdicts of one lowering on one program."""

    spec: str
    status: Status
    results: dict[InvariantId, CheckResult]
    lowered: str = ""
    diagnostics: str = ""
    notes: list[str] = field(default_factory=list)  # how the verdicts were reached
    # Where the analysis and execution disagreed (execution's answer is in
    # `results`): analysis defects, reported.
    disagreements: list[Disagreement] = field(default_factory=list)

    def violations(self) -> list[Violation]:
        return [v for r in self.results.values() for v in r.violations]

    def verdicts(self) -> dict[InvariantId, Verdict]:
        return {k: r.verdict for k, r in self.results.items()}


def judge(program: Program | SourceModule, outcome: LoweringOutcome, spec: str,
          options: CheckOptions, *, parser: str | None = None,
          timings: dict[str, float] | None = None) -> Judgement:
    """The verdicts of `options.invariants` (`verify.invariants.options`: the
    runtime profile, solver timeout and how execution checks the verdicts
    too).  `parser`: see `verify.ir.lowered_ir.read_lowered`.  `timings`, if
    given, gets the seconds spent in "parse", "extract" and each invariant
    added."""
    wanted = list(options.invariants)
    results: dict[InvariantId, CheckResult] = {}
    rest = [i for i in wanted if i != NO_CRASH]
    if outcome.status in ("crash", "timeout"):
        results[NO_CRASH] = CheckResult(NO_CRASH, Verdict.VIOLATED, [Violation(
            NO_CRASH, f"the lowering {'hung' if outcome.status == 'timeout' else 'crashed'}"
            f" on a valid program: {_first_line(outcome.diagnostics)}",
            {"diagnostics": outcome.diagnostics})])
        for i in rest:
            results[i] = CheckResult(i, Verdict.NOT_APPLICABLE, reason=f"lowering {outcome.status}")
        return Judgement(spec, outcome.status, _ordered(results, wanted),
                         diagnostics=outcome.diagnostics)
    if outcome.status == "invalid-ir":
        results[NO_CRASH] = CheckResult(NO_CRASH, Verdict.VIOLATED,
                                        [invalid_ir_violation(outcome)])
        for i in rest:
            results[i] = CheckResult(i, Verdict.NOT_APPLICABLE,
                                     reason="the lowering emitted IR that fails verification")
        return Judgement(spec, "invalid-ir", _ordered(results, wanted),
                         diagnostics=outcome.diagnostics)
    if outcome.not_applicable:  # the lowering cannot take this input at all
        for i in wanted:
            results[i] = CheckResult(i, Verdict.NOT_APPLICABLE, reason=outcome.not_applicable)
        return Judgement(spec, outcome.status, _ordered(results, wanted),
                         diagnostics=outcome.not_applicable)
    results[NO_CRASH] = CheckResult(NO_CRASH, Verdict.HOLDS)
    if outcome.status == "rejected":
        for i in rest:
            results[i] = CheckResult(i, Verdict.REJECTED, reason=_error_line(outcome.diagnostics))
        return Judgement(spec, "rejected", _ordered(results, wanted),
                         diagnostics=outcome.diagnostics)
    clock = time.perf_counter()
    try:
        # A generated program holding host code the in-process consumers do
        # not build is read as its text, as a user's file is.
        program = judged_as(program)
        src = source_facts(program)
    except SourceParseError as e:  # valid for the tool, unreadable to the harness
        for i in rest:
            results[i] = CheckResult(i, Verdict.UNKNOWN, reason=f"the source is not read: {e}")
        return Judgement(spec, "ok", _ordered(results, wanted), outcome.lowered,
                         outcome.diagnostics)
    try:
        module: Any = read_lowered(outcome.lowered, parser, outcome.module)
        parsed = time.perf_counter()
        facts = _extract(module, outcome, src.lowered_arg_names)
    except LoweredParseError as e:
        results[NO_CRASH] = CheckResult(NO_CRASH, Verdict.VIOLATED, [Violation(
            NO_CRASH, f"the lowering reported success but printed unreadable IR: {e}")])
        for i in rest:
            results[i] = CheckResult(i, Verdict.NOT_APPLICABLE, reason="unreadable output")
        return Judgement(spec, "crash", _ordered(results, wanted), outcome.lowered,
                         outcome.diagnostics)
    if outcome.module is not None:
        module = outcome.module  # checkers see the in-process lowering's own module
    model = program if isinstance(program, Program) else program.program()
    ctx = CheckContext(model, src, facts, module, outcome.lowered, options.runtime,
                       options.timeout_ms)
    ctx.llvm_version = lowering_version(spec)  # runtime-contract reads that version's wrappers
    if isinstance(program, SourceModule):  # what `differential` runs outside the model
        ctx.source_text = program.text
    notes: list[str] = []
    if outcome.entry:
        try:
            ctx.entry = read_source(parse_text(outcome.entry, "entry IR"))
            notes.append(f"{', '.join(ENTRY_JUDGED)} judged against the IR entering "
                         "gpu-to-llvm (the pipeline rewrites the source before it); the "
                         "others against the program as written")
        except SourceParseError as e:
            for i in ENTRY_JUDGED:
                if i in rest:
                    results[i] = CheckResult(i, Verdict.UNKNOWN,
                                             reason=f"the IR entering gpu-to-llvm is not read: {e}")
            rest = [i for i in rest if i not in ENTRY_JUDGED]
    if timings is None:
        for i in rest:
            results[i] = CHECKERS[i](ctx)
    else:
        now = time.perf_counter()
        timings["parse"] = timings.get("parse", 0.0) + parsed - clock
        timings["extract"] = timings.get("extract", 0.0) + now - parsed
        for i in rest:
            results[i] = CHECKERS[i](ctx)
            clock, now = now, time.perf_counter()
            timings[i] = timings.get(i, 0.0) + now - clock
    truth = options.truth
    disagreements = reconcile(ctx, results, truth) if truth is not None else []
    if timings is not None:
        timings["ground-truth"] = timings.get("ground-truth", 0.0) + time.perf_counter() - now
    return Judgement(spec, "ok", _ordered(results, wanted), outcome.lowered,
                     outcome.diagnostics, notes, disagreements)


def invalid_ir_violation(outcome: LoweringOutcome) -> Violation:
    """`lowering-no-crash` broken by IR a pass produced, in the tool's words."""
    bad = outcome.invalid
    if bad is None:  # a status without its record: say what the tool said
        return Violation(NO_CRASH, "the lowering emitted IR that fails verification: "
                         + _first_line(outcome.diagnostics), {"diagnostics": outcome.diagnostics},
                         confirmation=CONFIRMED_BY_TOOL)
    producer = bad.producer or "a pass of the pipeline"
    at = f" (at {bad.where})" if bad.where else ""
    return Violation(
        NO_CRASH, f"{producer} emitted IR that fails verification on a valid program: "
        f"{bad.error}{at}",
        {"diagnostics": outcome.diagnostics, "op": bad.op, "pass": bad.producer,
         **Roles(error=bad.error, error_at=bad.where.strip('"') or None).entries()},
        confirmation=f"{CONFIRMED_BY_TOOL}: {bad.evidence}")


def _extract(module: Any, outcome: LoweringOutcome, arg_names: dict[str, list[str]]
             ) -> LoweredFacts:
    try:
        return extract(module, arg_names)
    except Unsupported:  # an attribute the fast reader reads on demand: xDSL reads all
        module = outcome.module if outcome.module is not None else parse_lowered(outcome.lowered)
        return extract(module, arg_names)


def _error_line(text: str) -> str:
    """The first diagnostic line that says `error:` (the tool may print the
    failing op and notes around it), else the first line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return next((ln for ln in lines if "error:" in ln), lines[0] if lines else "")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _ordered(results: dict[InvariantId, CheckResult], order: Sequence[InvariantId]
             ) -> dict[InvariantId, CheckResult]:
    return {i: results[i] for i in order if i in results}


def check_batch(programs: Sequence[Program | SourceModule], lowerings: Sequence[Lowering],
                options: CheckOptions, parser: str | None = None
                ) -> list[dict[str, Judgement]]:
    """Judgements per program, keyed by lowering spec (on several processes:
    `verify.campaign.parallel.check_batch_parallel`)."""
    table: list[dict[str, Judgement]] = [{} for _ in programs]
    for lowering in lowerings:
        outcomes = lowering.lower_batch(programs)
        for row, program, outcome in zip(table, programs, outcomes, strict=False):
            row[lowering.spec] = judge(program, outcome, lowering.spec, options,
                                       parser=parser)
    return table


@dataclass
class Tally:
    """Verdict counts per invariant and per (lowering, invariant)."""

    examples: int = 0
    by_invariant: dict[str, dict[str, int]] = field(default_factory=dict)
    by_lowering: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)

    def add(self, row: dict[str, Judgement]) -> None:
        self.examples += 1
        for spec, j in row.items():
            for inv, r in j.results.items():
                self.by_invariant.setdefault(inv, dict.fromkeys(VERDICTS, 0))[r.verdict] += 1
                per = self.by_lowering.setdefault(spec, {})
                per.setdefault(inv, dict.fromkeys(VERDICTS, 0))[r.verdict] += 1
