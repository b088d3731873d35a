"""Faulty `mlir-opt` wrappers and a small fixed set of programs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.model.program import Memcpy, Program
from tests.conftest import need_mlir_opt

FIXTURES = Path(__file__).parent.parent / "fixtures"
ROOT = Path(__file__).parent.parent.parent
MARKER = "gpu.memcpy"


@pytest.fixture
def faulty(tmp_path: Path):
    """`faulty(mode, marker=MARKER)` -> path of an mlir-opt that fails on inputs holding
    `marker` (see tests/fixtures/faulty_mlir_opt.py)."""

    def make(mode: str, marker: str = MARKER, version: int = 19) -> str:
        real = need_mlir_opt(version)
        script = tmp_path / f"mlir-opt-{mode}"
        script.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" "{FIXTURES / "faulty_mlir_opt.py"}" '
            f'{mode} "{marker}" "{real}" "$@"\n'
        )
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return str(script)

    return make


def has_marker(program: Program) -> bool:
    return any(isinstance(op, Memcpy) for op in program.walk())


def sample(n_clean: int, n_marked: int) -> list[Program]:
    """Deterministic programs: `n_clean` without gpu.memcpy, `n_marked` with."""
    clean: list[Program] = []
    marked: list[Program] = []

    @settings(max_examples=300, derandomize=True, database=None)
    @given(programs(GenConfig(max_ops=5)))
    def collect(p: Program) -> None:
        (marked if has_marker(p) else clean).append(p)

    collect()
    assert len(clean) >= n_clean and len(marked) >= n_marked
    chosen = clean[:n_clean] + marked[:n_marked]
    # The marked ones in the middle, not at either end of a batch.
    return chosen[: n_clean // 2] + chosen[n_clean:] + chosen[n_clean // 2: n_clean]


def cli(*argv: str, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`gpu-alloc-verify ARGV` in a subprocess."""
    return subprocess.run([sys.executable, "-m", "gpu_alloc_verify", *argv], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **(env or {})})
