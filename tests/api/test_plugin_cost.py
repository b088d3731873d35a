"""The plugin costs nothing until asked (issue 44, item 8): it loads in every
pytest run of an environment where gpu-alloc-verify is installed, so loading
it imports neither Hypothesis nor the harness; the hooks and fixtures that
need them import them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from gpu_alloc_verify.verify import pytest_plugin

BUDGET_US = 50_000  # 50 ms, generous for CI's two cores; it takes about 2 ms


def _import_time_us(module: str) -> int:
    """Cumulative import time of `module`, in a fresh interpreter where pytest
    and Hypothesis' own plugin (which pytest loads first) are imported."""
    res = subprocess.run(
        [sys.executable, "-X", "importtime", "-c",
         f"import pytest, _hypothesis_pytestplugin; import {module}"],
        capture_output=True, text=True, check=True)
    line = re.search(rf"^import time:\s+\d+ \|\s+(\d+) \| {re.escape(module)}$",
                     res.stderr, re.M)
    assert line, res.stderr[-2000:]
    return int(line.group(1))


def test_loading_the_plugin_takes_under_50_ms() -> None:
    assert _import_time_us("gpu_alloc_verify.verify.pytest_plugin") < BUDGET_US


def test_loading_the_plugin_imports_neither_hypothesis_nor_the_harness() -> None:
    res = subprocess.run(
        [sys.executable, "-c", "import sys, gpu_alloc_verify.verify.pytest_plugin\n"
         "print(sorted(m for m in sys.modules if m == 'hypothesis' or "
         "m.startswith('gpu_alloc_verify.verify.')))"],
        capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "['gpu_alloc_verify.verify.pytest_plugin']"


def test_its_constants_are_the_harness_ones() -> None:
    from gpu_alloc_verify.verify.config import RUNTIMES
    from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE

    assert pytest_plugin.RUNTIMES == RUNTIMES
    assert pytest_plugin.DEFAULT_PIPELINE == DEFAULT_PIPELINE


PROJECT_TEST = '''
import sys


def test_nothing_of_ours_was_imported():
    assert "gpu_alloc_verify.verify.pytest_plugin" in sys.modules  # it did load
    assert "hypothesis" not in sys.modules
    assert not [m for m in sys.modules if m.startswith("gpu_alloc_verify.verify.")
                and m != "gpu_alloc_verify.verify.pytest_plugin"]
'''


def test_a_project_that_does_not_use_it_imports_nothing_of_ours(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text(PROJECT_TEST, encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "HYPOTHESIS")) and k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:randomly"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr


LOOKS_UP_OURS = '''
from hypothesis import settings


def test_a_profile_of_ours_is_there_once_hypothesis_is():
    assert settings.get_profile("gpu-alloc-verify-ci").max_examples == 30
    assert settings.get_current_profile_name() != "gpu-alloc-verify-ci"  # none loaded
'''


def test_a_test_module_that_imports_hypothesis_finds_our_profiles(tmp_path: Path) -> None:
    (tmp_path / "test_lookup.py").write_text(LOOKS_UP_OURS, encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "HYPOTHESIS")) and k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:randomly"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
