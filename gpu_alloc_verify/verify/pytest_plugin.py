"""pytest plugin (entry point `pytest11`, name `gpu_alloc_verify`): lowering
options, the `lowering` and `runtime_profile` fixtures, Hypothesis profiles.

It loads in every project of an environment where gpu-alloc-verify is
installed, so it changes nothing and costs nothing unless asked: loading it
imports neither Hypothesis nor the harness (as Hypothesis' own plugin does);
they are imported by the hook or fixture that needs them.  Its options are
all prefixed (`--gav-lowering SPEC`, repeatable; `--gav-pipeline`,
`--gav-runtime`, `--gav-profile`; dests `gav_*`), so a project's own
`--runtime` is its own; a `--gav-lowering` that names no lowering is a usage
error (exit status 4).  It has three Hypothesis profiles, loads none of them
by itself, and suppresses no health check.

- `gpu-alloc-verify-dev`: 60 examples, no deadline;
- `gpu-alloc-verify-ci`: derandomized, no database, 30 examples, no deadline;
- `gpu-alloc-verify-nightly`: random, 5000 examples, a directory database
  under $GPU_ALLOC_VERIFY_DB (default `.hypothesis/nightly`).

One is loaded only when selected: `--gav-profile dev|ci|nightly` (alias
`--gpu-alloc-verify-profile`), Hypothesis' own `--hypothesis-profile
gpu-alloc-verify-ci`, or `HYPOTHESIS_PROFILE=gpu-alloc-verify-ci` in the
environment (a value that names no profile of ours is left to its owner).
The profiles are registered when one is selected, when Hypothesis is
already imported at configure time, before the tests run if a test module
imported it, or by `register_profiles()`.  This repository's own
`tests/conftest.py` selects one for its suite with `load_project_profile()`.
Disable the plugin with `-p no:gpu_alloc_verify`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported lazily: the plugin loads in every project
    from gpu_alloc_verify.verify.lowerings.base import Lowering

PREFIX = "gpu-alloc-verify-"
PROFILES = ("dev", "ci", "nightly")
DEFAULT_SPEC = "mlir-opt-19"
# Copies of `config.RUNTIMES` and `mlir_opt.DEFAULT_PIPELINE` (a test keeps
# them equal): importing those modules for two constants would pull the
# harness into every pytest run, only to write `--help`.
RUNTIMES = ("cuda", "hip", "sycl")
DEFAULT_PIPELINE = "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"


def profile_name(short: str) -> str:
    """`ci` -> `gpu-alloc-verify-ci` (a full name is returned as is)."""
    return short if short.startswith(PREFIX) else PREFIX + short


def register_profiles() -> None:
    """Register our profiles (idempotent; loads none of them).  Each builds
    on Hypothesis' `default` profile, not on whatever is loaded now (with CI
    set Hypothesis loads its own `ci`, which suppresses `too_slow`)."""
    from hypothesis import settings
    from hypothesis.database import DirectoryBasedExampleDatabase

    base = settings.get_profile("default")
    settings.register_profile(profile_name("dev"), base, max_examples=60, deadline=None)
    settings.register_profile(profile_name("ci"), base, max_examples=30, derandomize=True,
                              database=None, deadline=None, print_blob=True)
    settings.register_profile(
        profile_name("nightly"), base, max_examples=5000, derandomize=False, deadline=None,
        database=DirectoryBasedExampleDatabase(
            os.environ.get("GPU_ALLOC_VERIFY_DB", ".hypothesis/nightly")),
    )


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes")


def project_profile(env: Mapping[str, str] | None = None) -> str:
    """The profile a gpu-alloc-verify project's own suite runs under:
    HYPOTHESIS_PROFILE if it names one of ours (`nightly` or
    `gpu-alloc-verify-nightly`), else `ci` when CI is set, else `dev`."""
    env = os.environ if env is None else env
    wanted = env.get("HYPOTHESIS_PROFILE", "")
    if wanted and wanted.removeprefix(PREFIX) in PROFILES:
        return profile_name(wanted)
    return profile_name("ci" if _truthy(env.get("CI")) else "dev")


def load_project_profile() -> str:
    """Register and load `project_profile()`; for a project's own conftest.
    Hypothesis' `--hypothesis-profile` and our `--gav-profile`
    are applied later (at configure time) and still win."""
    from hypothesis import settings

    register_profiles()
    name = project_profile()
    settings.load_profile(name)
    return name


def _ours(name: object) -> bool:
    """Whether a profile name (`--hypothesis-profile`, HYPOTHESIS_PROFILE)
    is one of ours."""
    return isinstance(name, str) and name.startswith(PREFIX) and (
        name.removeprefix(PREFIX) in PROFILES)


def pytest_addoption(parser: pytest.Parser) -> None:
    # Every option and dest carries our prefix: the plugin loads in every
    # project of the environment, whose own `--runtime` must not clash.
    group = parser.getgroup("gpu-alloc-verify")
    group.addoption("--gav-lowering", dest="gav_lowering", action="append", default=[],
                    metavar="SPEC",
                    help=f"lowering(s) under test for the `lowering` fixture (repeatable; "
                         f"default {DEFAULT_SPEC}; see `gpu-alloc-verify lowerings`)")
    group.addoption("--gav-pipeline", dest="gav_pipeline", default=DEFAULT_PIPELINE,
                    metavar="PIPELINE",
                    help=f"mlir-opt pass pipeline (default {DEFAULT_PIPELINE})")
    group.addoption("--gav-runtime", dest="gav_runtime", default="cuda",
                    choices=RUNTIMES,
                    help="runtime profile for runtime-contract (the `runtime_profile` "
                         "fixture; default cuda)")
    group.addoption("--gav-profile", "--gpu-alloc-verify-profile", dest="gav_profile",
                    choices=PROFILES, default=None,
                    help="load the Hypothesis profile gpu-alloc-verify-NAME "
                         "(default: none, Hypothesis' own settings)")


# tryfirst: Hypothesis' plugin loads `--hypothesis-profile NAME` in its own
# pytest_configure, so a name of ours must be registered before.
@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    _check_lowerings(config.getoption("gav_lowering", None) or [])
    chosen = config.getoption("gav_profile", None)
    theirs = config.getoption("--hypothesis-profile", None)
    if chosen and theirs and theirs != profile_name(str(chosen)):
        raise pytest.UsageError(f"--gav-profile {chosen} and "
                                f"--hypothesis-profile {theirs}: choose one")
    env = os.environ.get("HYPOTHESIS_PROFILE", "")
    if not (chosen or _ours(theirs) or _ours(env) or "hypothesis" in sys.modules):
        return  # nothing asked of us: Hypothesis stays unimported
    register_profiles()
    from hypothesis import settings

    if chosen:
        settings.load_profile(profile_name(str(chosen)))
    elif _ours(env):
        settings.load_profile(env)


def pytest_collection_finish(session: pytest.Session) -> None:
    # A test module that imported Hypothesis may look a profile of ours up by
    # name while it runs; registering costs nothing once Hypothesis is loaded.
    if "hypothesis" in sys.modules and not _registered():
        register_profiles()


def _registered() -> bool:
    from hypothesis import settings
    from hypothesis.errors import InvalidArgument

    try:
        settings.get_profile(profile_name("dev"))
    except InvalidArgument:
        return False
    return True


def _check_lowerings(specs: list[str]) -> None:
    """A spec that names no lowering is a usage error (exit status 4), not a
    skipped suite; one whose tool is missing here still skips (see `lowering`)."""
    if not specs:
        return
    from gpu_alloc_verify.verify.lowerings.registry import available_specs, unknown_spec

    bad = [s for s in dict.fromkeys(specs) if unknown_spec(s)]
    if bad:
        here = ", ".join(spec for spec, _ in available_specs()) or "none"
        raise pytest.UsageError(
            f"--gav-lowering: unknown lowering {', '.join(map(repr, bad))}; available "
            f"here: {here} (or mlir-opt:/path/to/mlir-opt; see `gpu-alloc-verify lowerings`)")


def pytest_report_header(config: pytest.Config) -> str | None:
    if config.getoption("gav_profile", None) or (
            os.environ.get("HYPOTHESIS_PROFILE", "").startswith(PREFIX)):
        from hypothesis import settings

        return f"gpu-alloc-verify: hypothesis profile {settings.get_current_profile_name()!r}"
    return None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    # Our parameter has a private name: a project's own `lowering_spec` (or
    # `lowering`, which then asks for none of ours) is left alone.
    if "_gav_lowering_spec" in metafunc.fixturenames:
        specs = metafunc.config.getoption("gav_lowering") or [DEFAULT_SPEC]
        # session scope: the `lowering` fixture built on it is session-scoped,
        # which plain Hypothesis accepts under @given
        metafunc.parametrize("_gav_lowering_spec", list(dict.fromkeys(specs)),
                             scope="session")


@pytest.fixture(scope="session")
def _gpu_alloc_verify_lowerings() -> dict[tuple[str, str], Lowering | str]:
    """Resolved lowerings per (spec, pipeline), or why one is unavailable."""
    return {}


@pytest.fixture(scope="session")
def lowering(request: pytest.FixtureRequest, _gav_lowering_spec: str,
             _gpu_alloc_verify_lowerings: dict[tuple[str, str], Lowering | str]
             ) -> Lowering:
    """The lowering under test (one test per `--gav-lowering`), resolved once
    per session (skips if its tool is missing)."""
    from gpu_alloc_verify.verify.lowerings.registry import resolve
    from gpu_alloc_verify.verify.model.errors import EnvironmentProblem

    key = (_gav_lowering_spec, str(request.config.getoption("gav_pipeline")))
    if key not in _gpu_alloc_verify_lowerings:
        try:
            _gpu_alloc_verify_lowerings[key] = resolve(*key)
        except EnvironmentProblem as e:
            _gpu_alloc_verify_lowerings[key] = str(e)
    found = _gpu_alloc_verify_lowerings[key]
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(scope="session")
def runtime_profile(request: pytest.FixtureRequest) -> str:
    """The `--gav-runtime` profile (cuda, hip or sycl)."""
    return str(request.config.getoption("gav_runtime"))
