"""Self-check: the analysis fuzzed against execution on mutated lowered code.

Generated programs are lowered for real; each lowered module is rewritten by
the operators of `verify.campaign.mutants` (keeping or changing behaviour);
a mutant the real MLIR parser (the lowering's own `mlir-opt`) or the
project's reader rejects is counted and dropped.  Each valid mutant gets the
analysis's verdicts (`pipeline.judge`, no execution checks) and runs on
every boundary input (`ground_truth`).  Per (mutant, execution-decided
invariant):

- agree: execution decided and says what the analysis says;
- unsound: the analysis says `holds`, a run shows the violation;
- imprecise: the analysis says `violated`, yet the runs of its
  counterexample inputs and of every boundary input decided and show none;
- undecided: execution cannot tell (a run declined), or the analysis said
  `unknown`;
- n/a: the analysis says the invariant does not apply (nothing to check).

A disagreement the unmutated module already has is marked `inherited`.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from gpu_alloc_verify.verify.campaign.mutants import OPERATORS, Operator
from gpu_alloc_verify.verify.invariants.ground_truth import (
    EXECUTION_DECIDED,
    Execution,
    Observation,
    execute,
    observe,
)
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.invariants.truth_inputs import boundary_inputs, witness_inputs
from gpu_alloc_verify.verify.ir.text import has_generic_gpu_runtime_op
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import InvariantId, Verdict
from gpu_alloc_verify.verify.source.facts import SourceFacts
from gpu_alloc_verify.verify.source.of_program import source_facts
from gpu_alloc_verify.verify.tools.commands import mlir_opt_argv
from gpu_alloc_verify.verify.tools.runner import find_mlir_opt, run_tool

DEFAULT_LOWERINGS = ("mlir-opt-19", "mlir-opt-22", "xdsl:split-api")
KINDS = ("agree", "unsound", "imprecise", "undecided", "n/a")
BATCH = 16  # programs lowered at a time
# The analysis's own verdicts: no execution checks (execution is what they are
# compared with), on the invariants execution decides.
SELFCHECK_OPTIONS = CheckOptions((InvariantId.LOWERING_NO_CRASH, *EXECUTION_DECIDED), truth=None)


@dataclass
class Base:
    """One generated program lowered by one lowering: what mutants start from."""

    index: int
    program: Program
    spec: str
    outcome: LoweringOutcome
    facts: SourceFacts  # what gpu-to-llvm was given (observe's facts)
    source: SourceFacts
    validator: str | None  # the mlir-opt that reads this lowering's output
    baseline: dict[str, str] = field(default_factory=dict)  # invariant -> kind
    check: CheckOptions = SELFCHECK_OPTIONS  # what the analysis judges mutants with


@dataclass
class Disagreement:
    operator: str
    klass: str
    spec: str
    program: int
    invariant: InvariantId
    kind: str
    analysis: str
    execution: str
    inherited: bool
    file: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class SelfcheckReport:
    mutants: int = 0  # valid mutants judged
    tried: int = 0  # operator applications that made a mutant
    not_applicable: int = 0
    rejected_mlir: int = 0
    rejected_reader: int = 0
    seconds: float = 0.0
    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)  # (class, inv)
    by_operator: dict[str, Counter[str]] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def unsound(self) -> list[Disagreement]:
        return [d for d in self.disagreements if d.kind == "unsound"]

    @property
    def rate(self) -> float:
        return self.mutants / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "mutants": self.mutants, "tried": self.tried, "not_applicable": self.not_applicable,
            "rejected_mlir": self.rejected_mlir, "rejected_reader": self.rejected_reader,
            "seconds": round(self.seconds, 1), "mutants_per_s": round(self.rate, 2),
            "counts": [{"class": k, "invariant": i, **dict(c)}
                       for (k, i), c in sorted(self.counts.items())],
            "by_operator": {k: dict(c) for k, c in sorted(self.by_operator.items())},
            "disagreements": [d.to_json() for d in self.disagreements],
        }


def _validator(spec: str) -> str | None:
    m = re.fullmatch(r"mlir-opt-(\d+)", spec)
    version = int(m.group(1)) if m else 19  # xDSL's output is read by mlir-opt-19
    return find_mlir_opt(version)


def mlir_accepts(tool: str, text: str) -> bool:
    """Does the real MLIR parser (and verifier) read `text`?"""
    return run_tool(mlir_opt_argv(tool), stdin=text, timeout_s=60).ok


def _runnable(text: str) -> Any:
    from gpu_alloc_verify.oracles.lowered_interp import read_fast
    from gpu_alloc_verify.verify.ir.parse import opaque_pointers

    plain = opaque_pointers(text)
    fast = read_fast(plain)
    return fast if fast is not None else plain


class Runs:
    """Executions of one module, each made once (as `witness._Runs`)."""

    def __init__(self, base: Base, text: str) -> None:
        self.base, self.text = base, text
        self.module = _runnable(text)
        self.made: dict[tuple[str, tuple[tuple[str, Any], ...]], Execution] = {}

    def get(self, function: str, inputs: dict[str, Any]) -> Execution:
        from gpu_alloc_verify.verify.ir import fastparse

        key = (function, tuple(sorted(inputs.items())))
        if key not in self.made:
            try:
                ex = execute(self.base.program, self.module, function, inputs)
            except fastparse.Unsupported:  # outside the fast reader: xDSL's parse
                from gpu_alloc_verify.oracles.lowered_interp import parse_module
                from gpu_alloc_verify.verify.ir.parse import opaque_pointers

                self.module = parse_module(opaque_pointers(self.text))
                self.made.clear()
                ex = execute(self.base.program, self.module, function, inputs)
            self.made[key] = ex
        return self.made[key]

    def boundary(self) -> list[Execution]:
        prog = self.base.program
        return [self.get(fn.name, inputs) for fn in prog.functions
                for inputs in boundary_inputs(prog, fn.name)]


def classify(runs: Runs, invariant: InvariantId, verdict: Verdict, violations: list[Any],
             residue: bool) -> tuple[str, str]:
    """(kind, what execution showed) for one invariant's verdict."""
    if verdict == Verdict.NOT_APPLICABLE:
        return "n/a", "the analysis says not-applicable"
    if verdict not in (Verdict.HOLDS, Verdict.VIOLATED):
        return "undecided", f"the analysis says {verdict}"
    facts = runs.base.facts
    seen: list[tuple[Execution, Observation]] = []
    for ex in runs.boundary():
        seen.append((ex, observe(invariant, ex, facts)))
    if verdict == Verdict.VIOLATED:
        for v in violations:
            path = v.counterexample.get("path") or {}
            for fn, inputs in witness_inputs(runs.base.program, runs.base.source, path):
                ex = runs.get(fn, inputs)
                seen.append((ex, observe(invariant, ex, facts)))
    shown = [(ex, o) for ex, o in seen if o.decided and o.seen]
    if residue:
        return "undecided", "ops left unconverted: runs are of a model"
    if shown:
        ex, o = shown[0]
        what = f"{ex.show_inputs(runs.base.source)}: {o.seen[0]}"
        return ("agree" if verdict == Verdict.VIOLATED else "unsound"), what
    undecided = [o.why_not for _, o in seen if not o.decided]
    if verdict == Verdict.HOLDS:
        return ("agree", "") if len(undecided) < len(seen) else \
            ("undecided", undecided[0] if undecided else "nothing ran")
    if undecided or not seen:
        return "undecided", undecided[0] if undecided else "nothing ran"
    ran = ", ".join(sorted({ex.show_inputs(runs.base.source) for ex, _ in seen}))
    return "imprecise", f"{ran} run without it"


def _judge(base: Base, text: str
           ) -> tuple[dict[InvariantId, tuple[Verdict, list[Any]]], bool] | None:
    """The analysis's verdicts on `text` (None: the project's reader rejects
    it), and whether it has ops left unconverted."""
    outcome = LoweringOutcome("ok", lowered=text, entry=base.outcome.entry)
    j = judge(base.program, outcome, base.spec, base.check)
    if j.status != "ok":
        return None
    residue = has_generic_gpu_runtime_op(text)
    return {i: (r.verdict, r.violations) for i, r in j.results.items()
            if i in EXECUTION_DECIDED}, residue


def check_text(base: Base, text: str) -> dict[InvariantId, tuple[str, str, str]] | None:
    """invariant -> (kind, analysis verdict, execution's words) for `text`."""
    judged = _judge(base, text)
    if judged is None:
        return None
    verdicts, residue = judged
    runs = Runs(base, text)
    out: dict[InvariantId, tuple[str, str, str]] = {}
    for inv, (verdict, violations) in verdicts.items():
        kind, what = classify(runs, inv, verdict, violations, residue)
        detail = violations[0].detail if verdict == Verdict.VIOLATED and violations else verdict
        out[inv] = (kind, detail, what)
    return out


def make_bases(programs: list[Program], first: int, specs: list[str],
               check: CheckOptions = SELFCHECK_OPTIONS) -> list[Base]:
    """Each program lowered by each lowering (those that lower it fully)."""
    from gpu_alloc_verify.verify.lowerings.registry import resolve
    from gpu_alloc_verify.verify.source.facts import read_source
    from gpu_alloc_verify.verify.source.text import parse_text

    by_spec = {spec: resolve(spec).lower_batch(programs) for spec in specs}
    out: list[Base] = []
    for k, program in enumerate(programs):
        src = source_facts(program)
        for spec in specs:
            outcome = by_spec[spec][k]
            if outcome.status != "ok" or not outcome.lowered:
                continue
            facts = read_source(parse_text(outcome.entry, "entry IR")) if outcome.entry \
                else src
            tool = _validator(spec)
            if tool is not None and not mlir_accepts(tool, outcome.lowered):
                tool = None  # that mlir-opt does not read this lowering's output at all
            base = Base(first + k, program, spec, outcome, facts, src, tool, check=check)
            checked = check_text(base, outcome.lowered)
            base.baseline = {i: v[0] for i, v in (checked or {}).items()}
            out.append(base)
    return out


@dataclass
class Options:
    lowerings: list[str]
    mutants: int = 200
    seed: int = 0
    out: Path | None = None
    progress: TextIO | None = None  # where progress lines go (None: nowhere)
    check: CheckOptions = SELFCHECK_OPTIONS  # what the analysis judges mutants with


def run_selfcheck(opts: Options, operators: tuple[Operator, ...] = OPERATORS
                  ) -> SelfcheckReport:
    report = SelfcheckReport()
    start = last = time.monotonic()
    batch, serial = 0, 0
    while report.mutants < opts.mutants:
        from gpu_alloc_verify.oracles.campaign import sample_programs

        programs = sample_programs(BATCH, seed=opts.seed * 1000 + batch)
        bases = make_bases(programs, batch * BATCH, opts.lowerings, opts.check)
        batch += 1
        if not bases and batch > 50:
            break
        for base in bases:
            for operator in operators:
                if report.mutants >= opts.mutants:
                    break
                rng = random.Random(f"{opts.seed}:{base.index}:{base.spec}:{operator.name}")
                serial += _one(report, base, operator, rng, opts.out, serial)
                if opts.progress is not None and time.monotonic() - last > 10:
                    last = time.monotonic()
                    report.seconds = last - start
                    print(f"selfcheck: {report.mutants} mutants, {report.rate:.1f}/s, "
                          f"{len(report.unsound)} unsound, "
                          f"{len(report.disagreements)} disagreements",
                          file=opts.progress, flush=True)
    report.seconds = time.monotonic() - start
    return report


def _one(report: SelfcheckReport, base: Base, operator: Operator, rng: random.Random,
         out: Path | None, serial: int) -> int:
    """Apply `operator` once to `base`, judge and run the mutant; 1 if judged."""
    text = operator.fn(base.outcome.lowered, rng)
    if text is None or text == base.outcome.lowered:
        report.not_applicable += 1
        return 0
    report.tried += 1
    if base.validator is not None and not mlir_accepts(base.validator, text):
        report.rejected_mlir += 1
        return 0
    try:
        checked = check_text(base, text)
    except Exception as e:  # noqa: BLE001 - a reader or analysis crash is a finding too
        checked = {i: ("undecided", "", f"crashed: {type(e).__name__}: {e}")
                   for i in EXECUTION_DECIDED}
    if checked is None:
        report.rejected_reader += 1
        return 0
    report.mutants += 1
    per_op = report.by_operator.setdefault(operator.name, Counter())
    for inv, (kind, analysis, what) in checked.items():
        report.counts.setdefault((operator.klass, inv), Counter())[kind] += 1
        per_op[kind] += 1
        if kind in ("unsound", "imprecise"):
            d = Disagreement(operator.name, operator.klass, base.spec, base.index, inv, kind,
                             analysis, what, base.baseline.get(inv) == kind)
            if out is not None:
                d.file = str(_save(out, base, operator, d, text, serial))
            report.disagreements.append(d)
    return 1


def _save(out: Path, base: Base, operator: Operator, d: Disagreement, text: str,
          serial: int) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    spec = re.sub(r"[^\w.-]", "_", base.spec)
    path = out / f"{serial:05d}_{d.kind}_{operator.name}_{spec}_{d.invariant}.mlir"
    head = [f"// selfcheck {d.kind}: {d.invariant} ({'inherited' if d.inherited else 'new'})",
            f"// operator {operator.name} ({operator.klass}) on {base.spec}, program "
            f"{base.index}", f"// analysis: {d.analysis}", f"// execution: {d.execution}",
            "", "// ---- source", str(base.program).strip(), "", "// ---- mutant"]
    path.write_text("\n".join(head) + "\n" + text)
    return path


def render(report: SelfcheckReport) -> str:
    """The classification table, by operator class and invariant."""
    rows = [f"{report.mutants} mutants judged ({report.tried} made; rejected: "
            f"{report.rejected_mlir} by mlir-opt, {report.rejected_reader} by the reader; "
            f"{report.not_applicable} not applicable) in {report.seconds:.0f}s "
            f"({report.rate:.2f} mutants/s)", "",
            f"{'class':28} {'invariant':28} " + " ".join(f"{k:>9}" for k in KINDS)]
    for (klass, inv), c in sorted(report.counts.items()):
        rows.append(f"{klass:28} {inv:28} " + " ".join(f"{c[k]:9d}" for k in KINDS))
    if report.disagreements:
        rows += ["", "disagreements:"]
        for d in report.disagreements:
            rows.append(f"  {d.kind:9} {d.invariant:26} {d.operator:20} {d.spec:15} "
                        f"p{d.program}{' inherited' if d.inherited else ''}: {d.execution}"
                        + (f" [{d.file}]" if d.file else ""))
    return "\n".join(rows)
