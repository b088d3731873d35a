"""The public API for use from a test suite (pytest, Hypothesis).

    from verify.api import GenConfig, assert_holds, check, lowering, programs

- `programs(cfg)`: the Hypothesis strategy of valid GPU programs (composable
  like any strategy: `programs(GenConfig(max_ops=4)).filter(...)`);
- `lowering(spec, pipeline)`: a lowering by spec (`mlir-opt-19`,
  `mlir-opt:/path/to/build`, `xdsl:pr69969`), resolved once per (spec, pipeline);
- `check(program, lowering)`: the verdict of every invariant,
  `{"stream-no-leak": "violated", ...}`;
- `assert_holds(program, lowering)`: raises AssertionError, whose message is
  each counterexample rendered with the source as MLIR, when an invariant is
  violated (or, unless `allow_unknown`, undecided).

`program` is a `verify.model.program.Program` (what `programs()` draws; its repr is
its MLIR text, so a failing Hypothesis example prints as MLIR) or MLIR text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from generators.programs import GenConfig, programs
from reports.explain import render
from verify.invariants.pipeline import Judgement, active_invariants, judge
from verify.invariants.solver import DEFAULT_TIMEOUT_MS
from verify.lowerings.base import Lowering
from verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from verify.model.program import Program

__all__ = ["GenConfig", "Program", "assert_holds", "check", "judgement", "lowering",
           "programs", "violation_records"]


@lru_cache(maxsize=64)
def lowering(spec: str, pipeline: str = DEFAULT_PIPELINE) -> Lowering:
    """The lowering named by `spec` (see `gpu-alloc-verify lowerings`).
    Raises `verify.model.errors.EnvironmentProblem` when its tool is missing."""
    from verify.lowerings.registry import resolve

    return resolve(spec, pipeline)


def _program(program: Program | str) -> Program:
    if isinstance(program, Program):
        return program
    if isinstance(program, str):
        from verify.ir.source_reader import program_from_text

        return program_from_text(program)
    raise TypeError(f"expected a verify.model.program.Program or MLIR text, "
                    f"not {type(program).__name__}")


def _lowering(low: Lowering | str) -> Lowering:
    return lowering(low) if isinstance(low, str) else low


def _invariants(invariants: Sequence[str] | None) -> list[str]:
    if isinstance(invariants, str):
        invariants = [invariants]
    known = active_invariants()
    bad = [i for i in invariants or () if i not in known]
    if bad:
        raise ValueError(f"unknown invariant(s) {', '.join(map(repr, bad))}; "
                         f"valid: {', '.join(known)}")
    return active_invariants(invariants)


def judgement(program: Program | str, lowering: Lowering | str,
              invariants: Sequence[str] | None = None, runtime: str = "cuda",
              timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Judgement:
    """The full judgement (verdicts, reasons, violations, lowered text) of
    `lowering` on `program` for `invariants` (default: all)."""
    prog = _program(program)
    low = _lowering(lowering)
    outcome = low.lower_batch([prog])[0]
    return judge(prog, outcome, low.spec, _invariants(invariants), runtime, timeout_ms)


def check(program: Program | str, lowering: Lowering | str,
          invariants: Sequence[str] | None = None, runtime: str = "cuda",
          timeout_ms: int = DEFAULT_TIMEOUT_MS) -> dict[str, str]:
    """Verdict per invariant: holds, violated, unknown, rejected or not-applicable."""
    return judgement(program, lowering, invariants, runtime, timeout_ms).verdicts()


def violation_records(program: Program | str, j: Judgement) -> list[dict[str, Any]]:
    """The violations of `j` as records (the `--json` shape `reports.explain.render` takes)."""
    text = _program(program).to_mlir()
    return [{"id": "", "invariant": v.invariant, "lowering": j.spec, "program": text,
             "lowered": j.lowered, "detail": v.detail,
             "counterexample": v.counterexample, "marked_calls": v.marked_calls}
            for v in j.violations()]


def assert_holds(program: Program | str, lowering: Lowering | str,
                 invariants: Sequence[str] | None = None, runtime: str = "cuda",
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, allow_unknown: bool = False) -> None:
    """Raise AssertionError when an invariant is violated (the message: each
    counterexample, source as MLIR, offending lowered calls marked) or, unless
    `allow_unknown`, when one is unknown (the message names what the analysis
    could not follow).  `rejected` and `not-applicable` do not fail."""
    prog = _program(program)
    j = judgement(prog, lowering, invariants, runtime, timeout_ms)
    parts = [render(r) for r in violation_records(prog, j)]
    unknown = {i: r.reason or "solver gave up" for i, r in j.results.items()
               if r.verdict == "unknown"}
    if unknown and not allow_unknown:
        lines = [f"UNKNOWN on {j.spec} (not proven either way, never counted as holds):"]
        lines += [f"  {i}: {reason.splitlines()[0]}" for i, reason in unknown.items()]
        if not parts:
            lines += ["", "Source:"] + ["  " + ln for ln in prog.to_mlir().rstrip().splitlines()]
        parts.append("\n".join(lines) + "\n")
    if parts:
        raise AssertionError("\n".join(parts))
