"""The campaigns behind the findings catalogue: every installed `mlir-opt`
version with each pipeline people use, into one results file.

Each (version, pipeline) is one `fuzz` campaign of the same size and seed,
so the triage of the file sees which versions and pipelines share a root
cause.  Campaigns run through the command line's own code path (`fuzz
--results FILE --json`), their summaries kept quiet.  The generator draws
every shape it knows (`GENERATOR_FLAGS`): tokens that cross control flow
(`scf.if` / `scf.for` results, `iter_args`, events made outside a loop and
destroyed in it) and allocs in memory space 1, so the catalogue covers the
control-flow token defect and the invalid IR of memory spaces.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_alloc_verify.reports.findings import Finding
from gpu_alloc_verify.repro.export import LitTest
from gpu_alloc_verify.verify.ir.text import has_gpu_runtime_op
from gpu_alloc_verify.verify.ir.tools import KNOWN_VERSIONS, find_mlir_opt
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.buckets import Bucket

PIPELINES = (
    "gpu-to-llvm",
    "func.func(gpu-async-region),gpu-to-llvm",
    "convert-scf-to-cf,gpu-to-llvm",
    "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm",
)

# `fuzz` options of every findings campaign: GenConfig(cf_tokens=True,
# alloc_spaces=True), off in a plain `fuzz` so its seeds keep their programs.
GENERATOR_FLAGS = ("--cf-tokens", "--alloc-spaces")
_GENERATOR_TEXT = {"cf_tokens": "tokens that cross control flow (`--cf-tokens`)",
                   "alloc_spaces": "allocs in memory space 1 (`--alloc-spaces`)"}


def generator_text(results: str | Path) -> str:
    """What every campaign of `results` drew beyond a plain `fuzz` (read from
    the campaign-start records' generator settings), in words."""
    import json

    on: dict[str, bool] = {}
    try:
        with open(results, encoding="utf-8") as f:
            for line in f:
                if '"campaign-start"' not in line:
                    continue
                config = json.loads(line).get("config") or {}
                for flag in _GENERATOR_TEXT:
                    on[flag] = on.get(flag, True) and bool(config.get(flag))
    except (OSError, ValueError):
        return ""
    return " and ".join(text for flag, text in _GENERATOR_TEXT.items() if on.get(flag))


@dataclass(frozen=True)
class Run:
    lowering: str
    pipeline: str
    status: int  # the campaign's exit status (1: violations found)


def installed_versions() -> list[str]:
    """`mlir-opt-N` for every version installed here, oldest first."""
    return [f"mlir-opt-{v}" for v in sorted(KNOWN_VERSIONS) if find_mlir_opt(v)]


def run_campaigns(cli_main: Callable[[list[str]], int],
                  results: str | Path, lowerings: Sequence[str], pipelines: Sequence[str],
                  max_examples: int, seed: int = 0, jobs: int = 1,
                  progress: Callable[[str], None] | None = None) -> list[Run]:
    """One campaign per (lowering, pipeline), all appended to `results`, each
    run by `cli_main` (the CLI's `main`, passed in: this module sits below it)."""

    runs = []
    for lowering in lowerings:
        for pipeline in pipelines:
            if progress is not None:
                progress(f"findings: {lowering}, pipeline '{pipeline}', "
                         f"{max_examples} programs")
            argv = ["fuzz", "--lowering", lowering, "--pipeline", pipeline,
                    "--max-examples", str(max_examples), "--seed", str(seed),
                    "-j", str(jobs), "--results", str(results), "--json", "--allow-unknown",
                    *GENERATOR_FLAGS]
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                status = cli_main(argv)
            runs.append(Run(lowering, pipeline, status))
    return runs


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
                   pipelines: list[str], examples: int, seed: int = 0, jobs: int = 1,
                   lit_dir: str | Path | None = None, fixed: str | None = "xdsl:reference",
                   progress: Callable[[str], None] | None = None,
                   run: bool = True) -> list[Finding]:
    """Run the campaigns with `cli_main` (the CLI's `main`; unless `run` is
    false: `results` holds them already), triage them, write a lit test per
    finding and the catalogue (`reports.findings`)."""
    from gpu_alloc_verify.reports.findings import catalogue, findings_of
    from gpu_alloc_verify.repro.export import (
        reproduced_on,
        unique_names,
        write_lit_config,
        write_provenance,
    )
    from gpu_alloc_verify.repro.proof import find_filecheck
    from gpu_alloc_verify.verify.triage.buckets import triage_file

    if run:
        run_campaigns(cli_main, results, lowerings, pipelines, examples, seed, jobs, progress)
    if progress is not None:
        progress(f"findings: triage of {results}")
    triage = triage_file(results)
    found = findings_of(triage)
    lit = Path(lit_dir) if lit_dir is not None else Path(out_file).parent / "findings-lit"
    names = unique_names([f.lead for f in found])
    tests: dict[str, LitTest] = {}
    for f in found:
        if f.lead.kind != "defect":
            continue  # a limitation is upstream's intent: no test pretending otherwise
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
    catalogue(triage, tests, out_file, lowerings, pipelines, examples, lit, reproduced,
              generator=generator_text(results))
    return found
