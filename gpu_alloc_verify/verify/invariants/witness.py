"""The analysis checked against execution (`ground_truth`), on every verdict.

- A `violated` verdict's counterexample gives concrete inputs; the lowered
  code runs with them.  Where the run shows the violation, the violation
  says "confirmed by execution".  Where it runs and shows nothing (nor on
  the default inputs of the other branch values), the violation is not
  reported: the verdict becomes `unknown`, naming the disagreement, and the
  disagreement is recorded as an analysis defect.  Where the code cannot run
  (an op left unconverted that made a token, an op the interpreter does not
  model), the violation stays, marked "not confirmed" with the reason.
- A `holds` verdict is cross-checked on boundary inputs
  (`ground_truth.boundary_inputs`).  A run that shows a violation overrides
  it: `violated`, "found by execution", recorded as an analysis defect.

Execution's answer wins because it is the ground truth the analysis
approximates: the lowered code itself, on a runtime with the wrappers'
semantics.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.invariants.ground_truth import (
    EXECUTION_DECIDED,
    Execution,
    execute,
    execute_lowered_only,
    observe,
)
from gpu_alloc_verify.verify.invariants.native_truth import run_natively
from gpu_alloc_verify.verify.invariants.truth_inputs import (
    boundary_inputs,
    label_boundary_inputs,
    label_witnesses,
    witness_inputs,
)
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict, Violation

# Campaigns cross-check the holds of this share of their programs (check: all).
DEFAULT_CROSSCHECK_SHARE = 0.1
CONFIRMED = "confirmed by execution"
NOT_CONFIRMED = "not confirmed"
FOUND = "found by execution"


@dataclass(frozen=True)
class TruthPolicy:
    """How much execution checks the analysis (`judge`'s `truth`)."""

    confirm: bool = True  # run each violation's witness
    crosscheck: bool = False  # run boundary inputs behind each `holds`
    native: bool = False  # also run each confirmed witness natively (JIT, C shim)
    budget: int = 16  # boundary inputs per function
    share: float = 1.0  # the share of programs whose holds are cross-checked

    def crosschecks(self, text: str) -> bool:
        """Is this program (by its lowered text) in the cross-checked share?
        Chosen by a hash, so a rerun checks the same programs."""
        if not self.crosscheck or self.share <= 0:
            return False
        digest = hashlib.sha256(text.encode()).digest()
        return int.from_bytes(digest[:4], "big") < self.share * (1 << 32)


@dataclass
class Disagreement:
    """The analysis and execution disagree: a defect of the analysis."""

    invariant: InvariantId
    kind: str  # "unsound" (holds, execution violates) or "imprecise" (the reverse)
    analysis: Verdict  # what the analysis said
    execution: str  # what the run showed, with its inputs

    def to_json(self) -> dict[str, str]:
        return {"invariant": self.invariant, "kind": self.kind, "analysis": self.analysis,
                "execution": self.execution}


@dataclass
class _Runs:
    """Executions of one (program, lowering), each made once."""

    ctx: CheckContext
    module: Any
    made: dict[tuple[str, tuple[tuple[str, Any], ...]], Execution] = field(default_factory=dict)
    # Each execution run natively once: violations shown by one run share it
    # (a wait on 1,000 tokens leaks 1,000 streams in one run).
    native: dict[int, Execution | str] = field(default_factory=dict)

    def get(self, function: str, inputs: dict[str, Any]) -> Execution:
        key = (function, tuple(sorted(inputs.items())))
        if key not in self.made:
            program = self.ctx.program
            self.made[key] = (
                execute(program, self.module, function, inputs, self.ctx.runtime)
                if program is not None else
                execute_lowered_only(self.ctx.source, self.module, function, inputs,
                                     self.ctx.runtime))
        return self.made[key]

    def witnesses(self, path: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        if self.ctx.program is not None:
            return witness_inputs(self.ctx.program, self.ctx.source, path)
        return label_witnesses(self.ctx.source, path)

    def functions(self) -> list[str]:
        if self.ctx.program is not None:
            return [fn.name for fn in self.ctx.program.functions]
        return list(self.ctx.source.arg_names)

    def boundary(self, function: str, budget: int) -> list[dict[str, Any]]:
        if self.ctx.program is not None:
            return boundary_inputs(self.ctx.program, function, budget)
        return label_boundary_inputs(self.ctx.source, self.module, function, budget)


def reconcile(ctx: CheckContext, results: MutableMapping[InvariantId, CheckResult],
              policy: TruthPolicy) -> list[Disagreement]:
    """Check each execution-decided verdict in `results` against execution,
    in place; returns the disagreements found (analysis defects)."""
    todo = [i for i in EXECUTION_DECIDED if i in results]
    if not todo:
        return []
    residue = sorted({r.what for r in ctx.lowered.residue})
    if residue:
        # The lowered code does not even translate to LLVM IR; the
        # interpreter would run leftovers by their source meaning, a model
        # of the source, not the code.  Nothing is run.
        why = (f"{NOT_CONFIRMED}: ops left unconverted ({', '.join(residue[:3])}): the "
               "lowered code cannot run as it is")
        for i in todo:
            for v in results[i].violations:
                v.confirmation = why
        return []
    runs = _Runs(ctx, _runnable(ctx))
    found: list[Disagreement] = []
    crosscheck = policy.crosschecks(ctx.lowered_text)
    for i in todo:
        result = results[i]
        if result.verdict == Verdict.VIOLATED and policy.confirm:
            found += _confirm(runs, result, policy.native)
        elif result.verdict == Verdict.HOLDS and crosscheck:
            found += _crosscheck(runs, result, policy.budget)
    return found


def _runnable(ctx: CheckContext) -> Any:
    from gpu_alloc_verify.oracles.lowered_interp import read_fast
    from gpu_alloc_verify.verify.ir import fastparse
    from gpu_alloc_verify.verify.ir.parse import opaque_pointers

    if isinstance(ctx.module, fastparse.Op) and "!llvm.ptr<" not in ctx.lowered_text:
        # read already, by the fast reader (typed pointers are made opaque first)
        return ctx.module
    text = opaque_pointers(ctx.lowered_text)
    fast = read_fast(text)
    if fast is not None:
        return fast
    from gpu_alloc_verify.oracles.lowered_interp import parse_module

    try:
        return parse_module(text)
    except Exception:  # noqa: BLE001 - unreadable: each run says so
        return text


def _execute(runs: _Runs, function: str, inputs: dict[str, Any]) -> Execution:
    from gpu_alloc_verify.verify.ir import fastparse

    try:
        return runs.get(function, inputs)
    except fastparse.Unsupported:  # outside the fast reader's model: run xDSL's parse
        from gpu_alloc_verify.oracles.lowered_interp import parse_module
        from gpu_alloc_verify.verify.ir.parse import opaque_pointers

        runs.module = parse_module(opaque_pointers(runs.ctx.lowered_text))
        runs.made.clear()
        runs.native.clear()  # keyed by the executions' ids
        return runs.get(function, inputs)


def _confirmed(runs: _Runs, invariant: InvariantId, ex: Execution, shown: str,
               native: bool) -> str:
    """The confirmation of a violation the interpreter showed: by the native
    run's calls too where the policy asks and the module runs natively."""
    interpreted = f"{CONFIRMED} (lowered-IR interpreter): {shown}"
    if not native:
        return interpreted
    if runs.ctx.program is None:
        return f"{interpreted}; not run natively: the source is outside the executable model"
    if id(ex) not in runs.native:
        runs.native[id(ex)] = run_natively(runs.ctx.program, ex, runs.ctx.lowered_text,
                                           runs.ctx.runtime)
    nat = runs.native[id(ex)]
    if isinstance(nat, str):
        return f"{interpreted}; not run natively: {nat}"
    seen = observe(invariant, nat, runs.ctx.lowering_input)
    if seen.decided and seen.seen:
        return f"{CONFIRMED} (native run): {ex.show_inputs(runs.ctx.source)}: {seen.seen[0]}"
    # The native run made the interpreter's calls, call for call; what it
    # does not trace (host accesses) only the interpreter saw.
    calls = len(nat.lowered.trace) if nat.lowered is not None else 0
    return (f"{interpreted}; the native run made the same {calls} calls (it does not "
            "trace host loads and stores)")


def _confirm(runs: _Runs, result: CheckResult, native: bool) -> list[Disagreement]:
    kept: list[Violation] = []
    contradicted: list[str] = []
    for v in result.violations:
        path = v.counterexample.get("path") or {}
        shown: list[tuple[Execution, str]] = []
        undecided, ran = [], []
        for function, inputs in runs.witnesses(path):
            ex = _execute(runs, function, inputs)
            seen = observe(result.invariant, ex, runs.ctx.lowering_input)
            if not seen.decided:
                undecided.append(seen.why_not)
            elif seen.seen:
                shown.append((ex, f"{ex.show_inputs(runs.ctx.source)}: {seen.seen[0]}"))
            else:
                ran.append(ex.show_inputs(runs.ctx.source))
        if shown:
            v.confirmation = _confirmed(runs, result.invariant, *shown[0], native)
            kept.append(v)
        elif undecided or not ran:
            v.confirmation = f"{NOT_CONFIRMED}: {undecided[0] if undecided else 'nothing ran'}"
            kept.append(v)
        else:
            contradicted.append(f"{v.detail}; but {', '.join(ran)} runs without it")
    result.violations = kept
    if kept or not contradicted:
        return []
    result.verdict = Verdict.UNKNOWN
    result.reason = ("the analysis and execution disagree (an analysis defect, reported): "
                     + contradicted[0])
    return [Disagreement(result.invariant, "imprecise", Verdict.VIOLATED, c)
            for c in contradicted]


def _crosscheck(runs: _Runs, result: CheckResult, budget: int) -> list[Disagreement]:
    tried = 0
    for function in runs.functions():
        for inputs in runs.boundary(function, budget):
            ex = _execute(runs, function, inputs)
            seen = observe(result.invariant, ex, runs.ctx.lowering_input)
            if not seen.decided:
                continue
            tried += 1
            if seen.seen:
                what = f"{ex.show_inputs(runs.ctx.source)}: {seen.seen[0]}"
                result.verdict = Verdict.VIOLATED
                result.violations = [Violation(
                    result.invariant, f"{FOUND} (the analysis said holds): {what}",
                    {"inputs": {f"{function}:{k}": v
                                for k, v in ex.named_inputs(runs.ctx.source).items()},
                     "found_by": "execution"}, confirmation=f"{FOUND}: {what}")]
                return [Disagreement(result.invariant, "unsound", Verdict.HOLDS, what)]
    if tried:
        result.coverage = f"cross-checked by execution on {tried} input(s)"
    return []
