"""A downstream project: a throwaway pytest project in tmp_path, run by the
interpreter of an environment where gpu-alloc-verify is installed (this
repository's venv, where the plugin is a `pytest11` entry point), so the
plugin loads as it would anywhere.  The README's example passes as
documented, and an unrelated test behaves exactly as without the plugin."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

UNRELATED = '''
import os

import pytest
from hypothesis import given, settings, strategies as st


@pytest.fixture
def seen():
    return []


@given(st.integers())
def test_function_scoped_fixture_under_given(seen, x):
    seen.append(x)


def test_hypothesis_settings_are_its_own():
    assert settings.get_current_profile_name() == os.environ["EXPECT_PROFILE"]
    assert settings.default.max_examples == int(os.environ["EXPECT_MAX_EXAMPLES"])
'''

_OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)", re.M)


def _project(tmp_path: Path) -> Path:
    tests = tmp_path / "proj" / "tests"
    tests.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "test_example.py", tests / "test_example.py")
    (tests / "test_unrelated.py").write_text(UNRELATED, encoding="utf-8")
    return tests.parent


def _env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("PYTEST_", "HYPOTHESIS")) and k not in ("PYTHONPATH", "CI")}
    # CI set on purpose: Hypothesis' own reaction to it is the baseline; ours is none
    clean.update({"CI": "true", "EXPECT_PROFILE": "ci", "EXPECT_MAX_EXAMPLES": "100"}, **extra)
    return clean


def _pytest(project: Path, *args: str, **env: str) -> tuple[dict[str, str], str]:
    """(outcome per test id, output) of pytest run in `project`."""
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-q",
         "--no-header", *args], cwd=project, env=_env(**env), capture_output=True, text=True,
        timeout=120)
    out = res.stdout + res.stderr
    return {test: outcome for outcome, test in _OUTCOME.findall(out)}, out


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _project(tmp_path_factory.mktemp("downstream"))


HEALTH_CHECK = "tests/test_unrelated.py::test_function_scoped_fixture_under_given"
OWN_SETTINGS = "tests/test_unrelated.py::test_hypothesis_settings_are_its_own"


@pytest.mark.slow
def test_the_example_passes_as_documented_and_the_rest_is_untouched(project: Path) -> None:
    with_plugin, out = _pytest(project, "--gav-lowering", "xdsl:pr69969")
    assert with_plugin == {
        "tests/test_example.py::test_sync_alloc_creates_no_stream[xdsl:pr69969]": "PASSED",
        "tests/test_example.py::test_verdicts_of_one_program": "PASSED",
        "tests/test_example.py::test_a_violation_fails_with_the_counterexample": "PASSED",
        HEALTH_CHECK: "FAILED",
        OWN_SETTINGS: "PASSED",
    }, out
    # the example's documented result
    assert "# 3 passed" in (ROOT / "examples" / "test_example.py").read_text()

    without, out_without = _pytest(project, "-p", "no:gpu_alloc_verify",
                                   "tests/test_unrelated.py")
    unrelated = {k: v for k, v in with_plugin.items() if k.startswith("tests/test_unrelated")}
    assert without == unrelated, out_without
    for text in (out, out_without):  # failed the same way: Hypothesis' health check
        assert re.search(rf"^FAILED {re.escape(HEALTH_CHECK)} - "
                         r"hypothesis\.errors\.FailedHealthCheck: .*function-scoped fixture "
                         r"'seen'", text, re.M), text


@pytest.mark.slow
def test_a_profile_of_ours_loads_only_when_selected(project: Path) -> None:
    expect = {"EXPECT_PROFILE": "gpu-alloc-verify-ci", "EXPECT_MAX_EXAMPLES": "30"}
    for args, env in ((["--gav-profile", "ci"], {}),
                      (["--gpu-alloc-verify-profile", "ci"], {}),  # the older name
                      (["--hypothesis-profile", "gpu-alloc-verify-ci"], {}),
                      ([], {"HYPOTHESIS_PROFILE": "gpu-alloc-verify-ci"})):
        got, out = _pytest(project, *args, "-k", "own", **env, **expect)
        assert got == {OWN_SETTINGS: "PASSED"}, (args, env, out)


@pytest.mark.slow
def test_two_profile_options_that_disagree_are_refused(project: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         "--gav-profile", "ci", "--hypothesis-profile", "default"],
        cwd=project, env=_env(), capture_output=True, text=True, timeout=120)
    assert res.returncode == 4, res.stdout + res.stderr
    assert "--gav-profile ci and --hypothesis-profile default: choose one" \
        in res.stderr
