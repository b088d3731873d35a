"""The plugin's manners in someone else's project: a throwaway pytest project
in tmp_path, run by this environment's interpreter (where the plugin is a
`pytest11` entry point, so it loads as it would anywhere).  Its options are
its own (`--gav-*`), a lowering that does not exist is a usage error, and a
failing `assert_holds` shows the user's test and the counterexample, none of
the library's code."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A project that has options, and a fixture, of the names the plugin once took.
CONFTEST = '''
import pytest


def pytest_addoption(parser):
    parser.addoption("--runtime", default="native")
    parser.addoption("--lowering", default="theirs")
    parser.addoption("--pipeline", default="theirs")


@pytest.fixture
def lowering_spec():
    return "their own"
'''

OWN_OPTIONS = '''
def test_their_options_are_theirs(request):
    assert request.config.getoption("runtime") == "hip"
    assert request.config.getoption("lowering") == "theirs"
    assert request.config.getoption("pipeline") == "theirs"


def test_their_fixture_is_theirs(lowering_spec):
    assert lowering_spec == "their own"


def test_ours_are_ours(lowering, runtime_profile, request):
    assert lowering.spec == "xdsl:pr69969"
    assert runtime_profile == "sycl"
    assert request.config.getoption("gav_runtime") == "sycl"
'''

FAILING = '''
from hypothesis import given, settings, strategies as st

from gpu_alloc_verify.verify import api
from gpu_alloc_verify.verify.source.to_program import program_from_text

LEAKY = """
func.func @main() {
  %t0 = gpu.wait async
  %t1 = gpu.wait async [%t0]
  gpu.wait [%t1]
  return
}
"""


def test_leaky_text():
    api.assert_holds(LEAKY, "xdsl:pr69969", ["stream-no-leak"], filename="leaky.mlir")


@settings(max_examples=1, database=None, deadline=None)
@given(st.just(program_from_text(LEAKY)))
def test_leaky_program(program):
    api.assert_holds(program, "xdsl:pr69969", ["stream-no-leak"])
'''


def _env() -> dict[str, str]:
    # the environment of a plain downstream run: none of this suite's settings
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTEST_", "HYPOTHESIS")) and k not in ("PYTHONPATH", "CI")}


def _project(tmp_path: Path, **files: str) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    return project


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "--no-header",
         *args], cwd=project, env=_env(), capture_output=True, text=True, timeout=180)


@pytest.mark.slow
def test_a_project_with_its_own_runtime_option_runs(tmp_path: Path) -> None:
    project = _project(tmp_path, **{"conftest.py": CONFTEST, "test_own.py": OWN_OPTIONS})
    res = _pytest(project, "--runtime", "hip", "--gav-lowering", "xdsl:pr69969",
                  "--gav-runtime", "sycl")
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert "already used" not in out
    assert re.search(r"^3 passed", out.splitlines()[-1].strip("= ")), out
    # the plugin's own options are listed under its prefix, and only there
    listed = _pytest(project, "--help").stdout
    for option in ("--gav-lowering=SPEC", "--gav-pipeline=PIPELINE", "--gav-runtime",
                   "--gav-profile"):
        assert option in listed, option


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["nonsense", "xdsl:no-such"])
def test_an_unknown_lowering_is_a_usage_error(tmp_path: Path, spec: str) -> None:
    project = _project(tmp_path, **{"test_own.py": OWN_OPTIONS.split("\n\n\n")[-1]})
    res = _pytest(project, "--gav-lowering", spec)
    assert res.returncode == 4, res.stdout + res.stderr
    assert "skipped" not in res.stdout
    error = res.stderr
    assert f"--gav-lowering: unknown lowering '{spec}'" in error
    # ... listing the lowerings available here
    from gpu_alloc_verify.verify.lowerings.registry import available_specs

    assert "xdsl:pr69969" in error and "xdsl:split-api" in error
    for available, _ in available_specs():
        assert available in error


@pytest.mark.slow
def test_a_known_lowering_whose_tool_is_missing_still_skips(tmp_path: Path) -> None:
    project = _project(tmp_path, **{"test_own.py": OWN_OPTIONS.split("\n\n\n")[-1]})
    res = _pytest(project, "--gav-lowering", "mlir-opt-99")
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert re.search(r"SKIPPED .*mlir-opt-99: no such mlir-opt", out), out


def _section(out: str, test: str) -> str:
    """The failure section pytest prints for `test`."""
    m = re.search(rf"^_+ {test} _+$(.*?)(?=^_{{3,}} \S+ _{{3,}}$|^=+ )", out, re.M | re.S)
    assert m, out
    return m.group(1)


@pytest.mark.slow
@pytest.mark.parametrize("tb", ["auto", "long", "short"])
def test_a_failing_assert_holds_shows_the_test_not_the_library(
        tmp_path: Path, tb: str) -> None:
    project = _project(tmp_path, **{"test_leaky.py": FAILING})
    res = _pytest(project, f"--tb={tb}")
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    api = ROOT / "gpu_alloc_verify" / "verify" / "api.py"
    library = api.read_text(encoding="utf-8").splitlines()
    code = {ln.strip() for ln in library if len(ln.strip()) > 12}
    for test, line in (("test_leaky_text", 'api.assert_holds(LEAKY, "xdsl:pr69969"'),
                       ("test_leaky_program", "api.assert_holds(program, ")):
        section = _section(out, test)
        assert "verify/api.py" not in section and "site-packages/verify" not in section
        shown = {ln.lstrip(">").strip() for ln in section.splitlines()}
        assert not code & shown, sorted(code & shown)
        assert "__tracebackhide__" not in section and "raise AssertionError" not in section
        # the failing line is the user's own
        assert re.search(rf"^(>|\s).*{re.escape(line)}", section, re.M), section
        assert re.search(r"^test_leaky\.py:\d+: ", section, re.M), section
        # verdict, invariant and reason, and the counterexample
        assert "ERROR: stream-no-leak violated on xdsl:pr69969" in section
        assert "is destroyed 0 time(s), not exactly once, on every path" in section
        assert re.search(r">>.*mgpuStreamCreate", section), section
    text = _section(out, "test_leaky_text")
    assert "stream created by leaky.mlir:3:9" in text and "Source: leaky.mlir" in text
