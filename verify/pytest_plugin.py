"""pytest plugin (entry point `pytest11`): lowering options and Hypothesis profiles.

Profiles: `dev` (default), `ci` (loaded when CI=true: derandomized, no
database, modest counts) and `nightly` (random, many examples, a directory
database under $GPU_ALLOC_VERIFY_DB or .hypothesis/nightly).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

_QUIET = list(HealthCheck)

settings.register_profile("dev", max_examples=60, deadline=None,
                          suppress_health_check=_QUIET)
settings.register_profile("ci", max_examples=30, derandomize=True, database=None,
                          deadline=None, suppress_health_check=_QUIET, print_blob=True)
settings.register_profile(
    "nightly", max_examples=5000, derandomize=False, deadline=None,
    suppress_health_check=_QUIET,
    database=DirectoryBasedExampleDatabase(
        os.environ.get("GPU_ALLOC_VERIFY_DB", ".hypothesis/nightly")),
)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")
else:
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpu-alloc-verify")
    group.addoption("--lowering", action="append", default=[], metavar="SPEC",
                    help="lowering(s) under test for property tests (repeatable)")
    group.addoption("--pipeline", default="gpu-to-llvm", help="mlir-opt pass pipeline")
    group.addoption("--runtime", default="cuda", choices=("cuda", "hip", "sycl"),
                    help="runtime profile for runtime-contract")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "lowering_spec" in metafunc.fixturenames:
        specs = metafunc.config.getoption("--lowering") or ["mlir-opt-19"]
        metafunc.parametrize("lowering_spec", specs)


@pytest.fixture
def lowering(request: pytest.FixtureRequest, lowering_spec: str):
    """The lowering under test, resolved (skips if its tool is missing)."""
    from verify.errors import EnvironmentProblem
    from verify.lowerings.registry import resolve

    try:
        return resolve(lowering_spec, request.config.getoption("--pipeline"))
    except EnvironmentProblem as e:
        pytest.skip(str(e))


@pytest.fixture
def runtime_profile(request: pytest.FixtureRequest) -> str:
    return str(request.config.getoption("--runtime"))
