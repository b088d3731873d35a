"""Shared fixtures: real mlir-opt discovery and buggy mlir-opt wrappers; the
project's Hypothesis profile for its own suite."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.pytest_plugin import load_project_profile

FIXTURES = Path(__file__).parent / "fixtures"

# The seed's question: a synchronous host_shared alloc.  mlir-opt-16 rejects
# it; 19 and 22 lower it to mgpuMemAlloc(size, null, 1), every invariant holds.
SYNC_SHARED = """func.func @main() {
  %0 = gpu.alloc host_shared () : memref<16xf32>
  %t = gpu.wait async
  %1 = gpu.dealloc async [%t] %0 : memref<16xf32>
  gpu.wait [%1]
  return
}
"""

# The plugin loads no profile by itself; this suite runs under the project's
# own: gpu-alloc-verify-ci when CI=true (derandomized, no database, modest
# counts), gpu-alloc-verify-dev otherwise, -nightly with HYPOTHESIS_PROFILE=nightly.
# `--hypothesis-profile` / `--gav-profile` still win.
load_project_profile()


def need_mlir_opt(version: int) -> str:
    path = find_mlir_opt(version)
    if path is None:
        pytest.skip(f"mlir-opt-{version} not installed (apt-get install mlir-{version}-tools)")
    return path


@pytest.fixture
def mutant(tmp_path: Path):
    """`mutant(mode, version=19)` -> path of an mlir-opt that breaks one thing."""

    def make(mode: str, version: int = 19) -> str:
        real = need_mlir_opt(version)
        script = tmp_path / f"mlir-opt-{mode}"
        script.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" "{FIXTURES / "mutating_mlir_opt.py"}" '
            f'{mode} "{real}" "$@"\n'
        )
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return str(script)

    return make


def collect_programs(n: int, cfg: GenConfig | None = None) -> list[Program]:
    """The first `n` programs Hypothesis generates for `cfg`, derandomized."""
    out: list[Program] = []

    @settings(max_examples=n, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(programs(cfg or GenConfig()))
    def grab(p: Program) -> None:
        out.append(p)

    grab()
    return out


# The lanes, written at each test: `@pytest.mark.nightly` campaigns run only
# in the nightly job; `@pytest.mark.slow` tests (a case of a second or more,
# marked by scripts/slow_lane.py) and every nightly one are left out of the
# development lane `-m "not slow"`; CI runs `-m "not nightly"`.
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("nightly"):
            item.add_marker(pytest.mark.slow)
