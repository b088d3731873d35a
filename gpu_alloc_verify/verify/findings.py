"""The campaigns behind the findings catalogue (the nightly job): every
installed `mlir-opt` version with the pipelines people use, into one results
file, within a time budget.

By default each version is one `fuzz` campaign over the pipeline portfolio
(`verify.lowerings.portfolio`: each program through one of the pipelines,
recorded with it); `--pipeline` makes one campaign per (version, pipeline)
instead.  Every campaign has the same seed, so the triage of the file sees
which versions and pipelines share a root cause.  The budget is spread over
the campaigns not run yet; an interrupted run keeps every finished program,
and the next run resumes its campaign (`fuzz --resume`).  Campaigns run
through the command line's own code path (`fuzz --results FILE --json`),
their summaries kept quiet, their progress shown.  The generator is
fuzz's default: each program a swarm subset of every construct it knows
(tokens across control flow, memory spaces, async.execute, views, calls,
...), so no flag is needed to reach the known defects.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_alloc_verify.reports.findings import Finding
from gpu_alloc_verify.repro.export import LitTest
from gpu_alloc_verify.verify.ir.text import has_gpu_runtime_op
from gpu_alloc_verify.verify.ir.tools import KNOWN_VERSIONS, find_mlir_opt
from gpu_alloc_verify.verify.lowerings.portfolio import PORTFOLIO
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.buckets import Bucket

# `findings --pipeline` names these one by one; by default each campaign
# runs the portfolio (verify.lowerings.portfolio), which holds them all.
PIPELINES = (
    "gpu-to-llvm",
    "func.func(gpu-async-region),gpu-to-llvm",
    "convert-scf-to-cf,gpu-to-llvm",
    "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm",
)

# `fuzz` options of every findings campaign beyond its defaults: none since
# swarm testing is the default (issue 40); `--cf-tokens`/`--alloc-spaces`
# would force their constructs into every program and thin the others out.
GENERATOR_FLAGS: tuple[str, ...] = ()
_GENERATOR_TEXT = {"cf_tokens": "tokens that cross control flow (`--cf-tokens`)",
                   "alloc_spaces": "allocs in memory space 1 (`--alloc-spaces`)"}


def generator_text(results: str | Path) -> str:
    """What every campaign of `results` drew beyond a plain `fuzz` (read from
    the campaign-start records' generator settings), in words."""
    import json

    on: dict[str, bool] = {}
    swarm = True
    try:
        with open(results, encoding="utf-8") as f:
            for line in f:
                if '"campaign-start"' not in line:
                    continue
                config = json.loads(line).get("config") or {}
                swarm = swarm and bool(config.get("swarm"))
                for flag in _GENERATOR_TEXT:
                    on[flag] = on.get(flag, True) and bool(config.get(flag))
    except (OSError, ValueError):
        return ""
    if swarm and on:
        return ("a random subset of every construct it knows in each program (swarm "
                "testing: tokens across control flow, memory spaces, async.execute, views, "
                "calls, host ops)")
    return " and ".join(text for flag, text in _GENERATOR_TEXT.items() if on.get(flag))


@dataclass(frozen=True)
class Run:
    lowering: str
    pipeline: str  # PORTFOLIO: the campaign spread its programs over the portfolio
    status: int  # the campaign's exit status (1: violations found; 130: interrupted)


class Interrupted(Exception):
    """A campaign was interrupted (Ctrl-C): every program it finished is in
    the results file, which `fuzz --resume` continues."""


def installed_versions() -> list[str]:
    """`mlir-opt-N` for every version installed here, oldest first."""
    return [f"mlir-opt-{v}" for v in sorted(KNOWN_VERSIONS) if find_mlir_opt(v)]


# Of the whole budget, the share the campaigns' searches get; the rest is for
# the triage and the lit tests.  Triage judges every violating program again
# in one process, about as long as the campaigns took on two (measured on 2
# cores: a 540 s search left over 10 minutes of triage).
SEARCH_SHARE = 0.35
# Programs per campaign when only a time budget bounds it.
UNBOUNDED_EXAMPLES = 100_000


@dataclass
class Budget:
    """The campaigns' share of a time budget, spread over the campaigns not
    run yet, so that one that stops early leaves its time to the rest."""

    seconds: float | None  # None: no time budget
    start: float = dataclasses.field(default_factory=time.monotonic)

    def share(self, campaigns_left: int) -> float | None:
        if self.seconds is None:
            return None
        left = self.seconds * SEARCH_SHARE - (time.monotonic() - self.start)
        return max(1.0, left / max(1, campaigns_left))


def _unfinished(results: str | Path) -> tuple[str, str] | None:
    """(lowering, pipeline) of the campaign of `results` that was stopped
    before its end (killed or interrupted), or None."""
    from gpu_alloc_verify.verify.model.results import read_records, unfinished_campaign

    if not Path(results).is_file():
        return None
    records = read_records(results)
    cid = unfinished_campaign(records)
    start = next((r for r in records if r.get("campaign") == cid
                  and r.get("kind") == "campaign-start"), None)
    if cid is None or start is None or not start.get("lowerings"):
        return None
    return str(start["lowerings"][0]), str(start.get("pipeline") or PORTFOLIO)


def run_campaigns(cli_main: Callable[[list[str]], int],
                  results: str | Path, lowerings: Sequence[str], pipelines: Sequence[str],
                  max_examples: int | None, seed: int = 0, jobs: int = 1,
                  progress: Callable[[str], None] | None = None,
                  time_budget: float | None = None) -> list[Run]:
    """One campaign per (lowering, pipeline), all appended to `results`, each
    run by `cli_main` (the CLI's `main`, passed in: this module sits below it).
    A pipeline PORTFOLIO runs `fuzz` without --pipeline.  A campaign of
    `results` left unfinished by an earlier run is resumed first, in place of
    its (lowering, pipeline).  Interrupted when a campaign is."""
    budget = Budget(time_budget)
    todo = [(lw, p) for lw in lowerings for p in pipelines]
    stopped = _unfinished(results)
    runs = []
    if stopped is not None:
        todo = [t for t in todo if t != stopped]
        share = budget.share(len(todo) + 1)
        if progress is not None:
            progress(f"findings: resuming the unfinished campaign of {results} "
                     f"({stopped[0]}, pipeline {stopped[1]})")
        argv = ["fuzz", "--resume", "--results", str(results), "-j", str(jobs), "--json",
                "--allow-unknown", *(["--time-budget", f"{share:.0f}"] if share else [])]
        runs.append(Run(*stopped, _quiet(cli_main, argv)))
        if runs[-1].status == 130:
            raise Interrupted(str(results))
    n = max_examples if max_examples is not None else (
        UNBOUNDED_EXAMPLES if time_budget is not None else 300)
    for k, (lowering, pipeline) in enumerate(todo):
        share = budget.share(len(todo) - k)
        if progress is not None:
            bound = f"{share:.0f}s" if share is not None else f"{n} programs"
            progress(f"findings: campaign {k + 1}/{len(todo)}: {lowering}, "
                     f"{'the pipeline portfolio' if pipeline == PORTFOLIO else repr(pipeline)}"
                     f", {bound}")
        # Within a budget, no shrinking (unbounded in time: measured 6 minutes
        # after a 90 s search on a busy 2-core machine); triage reduces each
        # defect's example and the lit export its own.
        argv = ["fuzz", "--lowering", lowering, "--max-examples", str(n), "--seed", str(seed),
                "-j", str(jobs), "--results", str(results), "--json", "--allow-unknown",
                *GENERATOR_FLAGS, *(["--pipeline", pipeline] if pipeline != PORTFOLIO else []),
                *(["--time-budget", f"{share:.0f}", "--no-shrink"] if share is not None
                  else [])]
        runs.append(Run(lowering, pipeline, _quiet(cli_main, argv)))
        if runs[-1].status == 130:
            raise Interrupted(str(results))
        if runs[-1].status == 2 and progress is not None:  # its own message is above
            progress(f"findings: the campaign on {lowering} failed (exit 2); the others go on")
    return runs


def _quiet(cli_main: Callable[[list[str]], int], argv: list[str]) -> int:
    """The campaign's exit status; its JSON summary kept off the terminal
    (its progress lines, on stderr, shown)."""
    with contextlib.redirect_stdout(io.StringIO()):
        return cli_main(argv)


def _from_reduced(bucket: Bucket) -> Bucket | None:
    """The bucket with its triage-reduced program as its only example: the
    reproducer triage reduced with no op left unconverted (a knock-on's
    program shows the signature too, and the lit export's own reduction
    can reach one)."""
    example = bucket.example
    if not bucket.reduced or example is None:
        return None
    return dataclasses.replace(bucket, smallest=[((0,), {**example, "program": bucket.reduced})])


def _export_defect(bucket: Bucket, lit: Path, fixed: str | None, name: str) -> LitTest:
    """A defect's lit test from its triage-reduced reproducer as it is, else
    the lit export's own reduction of its smallest examples."""
    from gpu_alloc_verify.repro.export import export_bucket

    reduced = _from_reduced(bucket)
    if reduced is not None:
        test = export_bucket(reduced, lit, fixed, name=name, reduce=False)
        if test.written and test.proof is not None:
            return test
    test = export_bucket(bucket, lit, fixed, name=name)
    if bucket.signature.invariant != InvariantId.LOWERING_COMPLETE and _leaves_unconverted(test):
        # The export's reduction reached a program that shows the signature
        # only through an op the pass leaves unconverted: a limitation's
        # knock-on, not this defect.  No test pretending otherwise.
        if test.path is not None:
            test.path.unlink(missing_ok=True)
        test.reason = ("the only program proven reduces to one with an op left unconverted "
                       "(a limitation's knock-on, not this defect); the checks derived for "
                       "the reproducer above were not proven")
        test.path, test.text, test.proof, test.reduced = None, "", None, ""
    return test


def _leaves_unconverted(test: LitTest) -> bool:
    """Does the lowering the test is proven on leave an op of its program
    unconverted?"""
    from gpu_alloc_verify.repro.export import run_pipeline
    from gpu_alloc_verify.repro.proof import lower_for_test

    if not test.written or test.proof is None or not test.reduced:
        return False
    lowered = lower_for_test(test.proof.buggy, run_pipeline(test.text), test.reduced)
    # An op the pass leaves behind (gpu.launch_func stays by design until
    # translation; a token cast for an scf op the pipeline keeps is no leftover).
    return lowered.ok and has_gpu_runtime_op(lowered.text)


def build_findings(cli_main: Callable[[list[str]], int],
                   out_file: str | Path, results: str | Path, lowerings: list[str],
                   pipelines: list[str], examples: int | None, seed: int = 0, jobs: int = 1,
                   lit_dir: str | Path | None = None, fixed: str | None = "xdsl:reference",
                   progress: Callable[[str], None] | None = None,
                   run: bool = True, time_budget: float | None = None,
                   failed: list[Run] | None = None) -> list[Finding]:
    """Run the campaigns with `cli_main` (the CLI's `main`; unless `run` is
    false: `results` holds them already), triage them, write a lit test per
    finding and the catalogue (`reports.findings`).  `failed` gets the
    campaigns that ended in an error (exit 2)."""
    from gpu_alloc_verify.reports.findings import catalogue, findings_of
    from gpu_alloc_verify.repro.export import (
        reproduced_on,
        unique_names,
        write_lit_config,
        write_provenance,
    )
    from gpu_alloc_verify.repro.proof import find_filecheck
    from gpu_alloc_verify.verify.triage.buckets import triage_file
    from gpu_alloc_verify.verify.triage.reduce import reductions_out_of_time, reductions_until

    deadline = None if time_budget is None else time.monotonic() + time_budget
    if run:
        runs = run_campaigns(cli_main, results, lowerings, pipelines, examples, seed, jobs,
                             progress, time_budget)
        if failed is not None:  # exit 2: an error, not a verdict
            failed += [r for r in runs if r.status == 2]
    if progress is not None:
        progress(f"findings: triage of {results}")
    # Reductions stop with 15% of the budget left, for the lit tests.
    reduce_by = None if deadline is None or time_budget is None \
        else deadline - 0.15 * time_budget
    with reductions_until(reduce_by):
        triage = triage_file(results)
        if progress is not None and reductions_out_of_time():
            progress("findings: time budget spent in triage: the remaining root causes "
                     "keep their examples unreduced")
    found = findings_of(triage)
    lit = Path(lit_dir) if lit_dir is not None else Path(out_file).parent / "findings-lit"
    names = unique_names([f.lead for f in found])
    tests: dict[str, LitTest] = {}
    for f in found:
        if f.lead.kind != "defect":
            continue  # a limitation is upstream's intent: no test pretending otherwise
        if deadline is not None and time.monotonic() > deadline:
            if progress is not None:
                progress(f"findings: time budget spent: no lit test for {names[f.lead.key]}")
            continue
        if progress is not None:
            progress(f"findings: lit test for {names[f.lead.key]}")
        tests[f.lead.key] = _export_defect(f.lead, lit, fixed, names[f.lead.key])
    written = [t for t in tests.values() if t.written and t.proof is not None]
    reproduced: dict[str, dict[str, str]] = {}
    filecheck = find_filecheck()
    if written and filecheck is not None:
        proven_on = [t.proof.buggy for t in written if t.proof is not None]
        write_lit_config(lit, max(set(proven_on), key=proven_on.count))
        write_provenance(lit, [f.lead for f in found], list(tests.values()))
        for f in found:
            test = tests.get(f.lead.key)
            if test is not None and test.written:
                reproduced[test.key] = reproduced_on(test, f.lowerings(), filecheck)
    catalogue(triage, tests, out_file, lowerings, pipelines,
              examples if examples is not None else programs_per_campaign(results), lit,
              reproduced, generator=generator_text(results))
    return found


def programs_per_campaign(results: str | Path) -> int:
    """Programs judged per campaign of `results`, on average (what a campaign
    bounded by time alone reached)."""
    from gpu_alloc_verify.verify.model.results import read_records

    campaigns: dict[str, int] = {}
    for rec in read_records(results):
        if rec.get("kind") == "program" and isinstance(rec.get("campaign"), str):
            campaigns[rec["campaign"]] = campaigns.get(rec["campaign"], 0) + 1
    return round(sum(campaigns.values()) / len(campaigns)) if campaigns else 0
