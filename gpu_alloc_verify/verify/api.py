"""The public API for use from a test suite (pytest, Hypothesis).

    from gpu_alloc_verify.verify.api import GenConfig, assert_holds, check, lowering, programs

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
Text is read as `gpu-alloc-verify check FILE` reads a file (whatever the
lowering's mlir-opt accepts: kernels, helpers, loops, generic form) and judged
the same way; each takes `filename=`, and violations name the text's own
`filename:line:col` (default `<input>`).  A Program, and text the generator
printed (ops named `loc("op1")`...), is named by its ops (`op1 at
program:3:5`, in its MLIR).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from operator import methodcaller
from typing import Any

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.verify.invariants.options import CHECK_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, active_invariants, judge
from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.ir.text import has_generated_locs
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import InvariantId, Verdict

# The name text given without a `filename` goes by in locations (`<input>:3:9`).
DEFAULT_FILENAME = "<input>"

__all__ = ["GenConfig", "Program", "assert_holds", "check", "judgement", "lowering",
           "programs", "violation_records"]


@lru_cache(maxsize=64)
def lowering(spec: str, pipeline: str = DEFAULT_PIPELINE) -> Lowering:
    """The lowering named by `spec` (see `gpu-alloc-verify lowerings`).
    Raises `verify.model.errors.EnvironmentProblem` when its tool is missing."""
    from gpu_alloc_verify.verify.lowerings.registry import resolve

    return resolve(spec, pipeline)


# A frame to hide from pytest's traceback only when it fails an assertion:
# the user's test is what failed, not the library (a crash keeps its frames).
_HIDE_ON_FAILURE = methodcaller("errisinstance", AssertionError)


def _subject(program: object) -> Program | str:
    """What is judged: a Program as is; text the generator printed (ops
    named `loc("op1")`..., as a failing example or a Program's repr shows
    them) as that Program; any other text as written, for `check`'s reading."""
    if isinstance(program, Program):
        return program
    if not isinstance(program, str):
        raise TypeError(f"expected a verify.model.program.Program or MLIR text, "
                        f"not {type(program).__name__}")
    if not has_generated_locs(program):  # the generator names each op it prints
        return program
    from gpu_alloc_verify.verify.source.to_program import program_from_text

    try:
        return program_from_text(program)
    except SourceParseError:  # op names of ours, ops the model lacks: read as written
        return program


def _shown(subject: Program | str, filename: str | None) -> tuple[str, str]:
    """(the text violations point into, its name): text as written; a
    Program as its MLIR (named `program`, as `fuzz` names it, unless given)."""
    if isinstance(subject, str):
        return subject, filename or DEFAULT_FILENAME
    return subject.to_mlir(), filename or "program"


def _lowering(low: Lowering | str) -> Lowering:
    return lowering(low) if isinstance(low, str) else low


def _invariants(invariants: Sequence[str] | None) -> list[InvariantId]:
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
              timeout_ms: int = DEFAULT_TIMEOUT_MS, filename: str | None = None
              ) -> Judgement:
    """The full judgement (verdicts, reasons, violations, lowered text) of
    `lowering` on `program` for `invariants` (default: all).  Text is read
    as `gpu-alloc-verify check` reads a file (any module the lowering's
    mlir-opt accepts, kernels and all), its locations named `filename`.
    `runtime` (cuda, hip or sycl): ValueError for another."""
    subject = _subject(program)
    low = _lowering(lowering)
    options = CheckOptions(tuple(_invariants(invariants)), runtime, timeout_ms)
    if isinstance(subject, str):
        # the CLI's own reading and judging, so both give the same answer
        from gpu_alloc_verify.verify.campaign.check_file import check_text

        return check_text(subject, filename or DEFAULT_FILENAME, low,
                          options.replace(truth=CHECK_TRUTH))
    outcome = low.lower_batch([subject])[0]
    return judge(subject, outcome, low.spec, options)


def check(program: Program | str, lowering: Lowering | str,
          invariants: Sequence[str] | None = None, runtime: str = "cuda",
          timeout_ms: int = DEFAULT_TIMEOUT_MS, filename: str | None = None
          ) -> dict[InvariantId, Verdict]:
    """Verdict per invariant: holds, violated, unknown, rejected or not-applicable."""
    return judgement(program, lowering, invariants, runtime, timeout_ms, filename).verdicts()


def violation_records(program: Program | str, j: Judgement,
                      filename: str | None = None) -> list[dict[str, Any]]:
    """The violations of `j` as records (the `--json` shape `reports.explain.render` takes)."""
    text, _ = _shown(_subject(program), filename)
    return [{"id": "", "invariant": v.invariant, "lowering": j.spec, "program": text,
             "lowered": j.lowered, "detail": v.detail,
             "counterexample": v.counterexample, "marked_calls": v.marked_calls,
             "confirmation": v.confirmation}
            for v in j.violations()]


def assert_holds(program: Program | str, lowering: Lowering | str,
                 invariants: Sequence[str] | None = None, runtime: str = "cuda",
                 timeout_ms: int = DEFAULT_TIMEOUT_MS, allow_unknown: bool = False,
                 filename: str | None = None) -> None:
    """Raise AssertionError when an invariant is violated (the message: each
    counterexample, source as MLIR, offending lowered calls marked) or, unless
    `allow_unknown`, when one is unknown (the message names what the analysis
    could not follow).  `rejected` and `not-applicable` do not fail."""
    __tracebackhide__ = _HIDE_ON_FAILURE  # a failure shows the test's line, not ours
    subject = _subject(program)
    j = judgement(subject, lowering, invariants, runtime, timeout_ms, filename)
    text, name = _shown(subject, filename)
    parts = [render(r, program_name=name) for r in violation_records(subject, j, filename)]
    unknown = {i: r.reason or "solver gave up" for i, r in j.results.items()
               if r.verdict == Verdict.UNKNOWN}
    if unknown and not allow_unknown:
        lines = [f"UNKNOWN on {j.spec} (not proven either way, never counted as holds):"]
        lines += [f"  {i}: {reason.splitlines()[0]}" for i, reason in unknown.items()]
        if not parts:
            lines += ["", "Source:" if name == "program" else f"Source: {name}"]
            src = text.rstrip().splitlines()  # numbered, as the locations count
            lines += [f"  {n:>{len(str(len(src)))}} | {ln}" for n, ln in enumerate(src, 1)]
        parts.append("\n".join(lines) + "\n")
    if parts:
        raise AssertionError("\n".join(parts))
