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

from verify.lowerings.mlir_opt import KNOWN_VERSIONS, find_mlir_opt

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


def run_campaigns(results: str | Path, lowerings: Sequence[str], pipelines: Sequence[str],
                  max_examples: int, seed: int = 0, jobs: int = 1,
                  progress: Callable[[str], None] | None = None) -> list[Run]:
    """One campaign per (lowering, pipeline), all appended to `results`."""
    from verify.cli import main

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
                status = main(argv)
            runs.append(Run(lowering, pipeline, status))
    return runs
