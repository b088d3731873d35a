"""The campaigns behind the findings catalogue: every installed `mlir-opt`
version with each pipeline people use, into one results file.

Each (version, pipeline) is one `fuzz` campaign of the same size and seed,
so the triage of the file sees which versions and pipelines share a root
cause.  Campaigns run through the command line's own code path (`fuzz
--results FILE --json`), their summaries kept quiet.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_alloc_verify.reports.findings import Finding
from gpu_alloc_verify.verify.ir.tools import KNOWN_VERSIONS, find_mlir_opt

PIPELINES = (
    "gpu-to-llvm",
    "func.func(gpu-async-region),gpu-to-llvm",
    "convert-scf-to-cf,gpu-to-llvm",
    "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm",
)


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
                    "-j", str(jobs), "--results", str(results), "--json", "--allow-unknown"]
            with contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(io.StringIO()):
                status = cli_main(argv)
            runs.append(Run(lowering, pipeline, status))
    return runs


def build_findings(cli_main: Callable[[list[str]], int],
                   out_file: str | Path, results: str | Path, lowerings: list[str],
                   pipelines: list[str], examples: int, seed: int = 0, jobs: int = 1,
                   lit_dir: str | Path | None = None, fixed: str | None = "xdsl:reference",
                   progress: Callable[[str], None] | None = None,
                   run: bool = True) -> list[Finding]:
    """Run the campaigns with `cli_main` (the CLI's `main`; unless `run` is
    false: `results` holds them already), triage them, write a lit test per
    finding and the catalogue (`reports.findings`)."""
    from gpu_alloc_verify.reports.findings import catalogue, findings_of, reproduced_on
    from gpu_alloc_verify.reports.lit_export import (
        LitTest,
        export_bucket,
        unique_names,
        write_lit_config,
        write_provenance,
    )
    from gpu_alloc_verify.reports.lit_proof import find_filecheck
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
        tests[f.lead.key] = export_bucket(f.lead, lit, fixed, name=names[f.lead.key])
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
    catalogue(triage, tests, out_file, lowerings, pipelines, examples, lit, reproduced)
    return found
