"""The exported `lit.cfg.py` finds its tools when lit loads it (issue 44, item 5).

The config is executed here as lit executes it (`config` and `lit_config`
given as globals), with a PATH of stand-in tools, so each lookup is seen
without running lit: versioned tools on PATH beat older installed ones, a
missing version stops lit with what to install, `xdsl:NAME` runs the Python
that imports the package, and a checkout the folder sits in goes on
PYTHONPATH.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from gpu_alloc_verify.repro.lit_config import lit_config_text

ROOT = Path(__file__).resolve().parents[2]


class LitFatal(Exception):
    pass


def _fatal(message: str) -> None:
    raise LitFatal(message)


def load(folder: Path, default: str = "mlir-opt-19", **params: str) -> dict[str, str]:
    """Run the config of `folder` with `params`; the substitutions it makes,
    keyed by the name replaced, and its environment."""
    config = SimpleNamespace(environment={}, substitutions=[])
    lit_config = SimpleNamespace(params=params, fatal=_fatal)
    cfg = folder / "lit.cfg.py"
    code = compile(lit_config_text(default), str(cfg), "exec")
    exec(code, {"config": config, "lit_config": lit_config, "__file__": str(cfg)})
    subs = {("mlir-opt" if "mlir-opt" in pattern else "FileCheck"): value
            for pattern, value in config.substitutions}
    return {**subs, **{f"env:{k}": v for k, v in config.environment.items()}}


def _tool(d: Path, name: str) -> Path:
    path = d / name
    path.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH of stand-ins with versions no machine installs, nothing else."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("mlir-opt-77", "mlir-opt-98", "FileCheck-97"):
        _tool(bin_dir, name)
    monkeypatch.setenv("PATH", str(bin_dir))
    for var in ("GPU_ALLOC_VERIFY_FILECHECK", "GPU_ALLOC_VERIFY_LOWERING",
                "GPU_ALLOC_VERIFY_PYTHON"):
        monkeypatch.delenv(var, raising=False)
    return bin_dir


def test_tools_are_found_on_path_when_lit_runs(tools: Path, tmp_path: Path) -> None:
    subs = load(tmp_path, lowering="mlir-opt-77")
    assert subs["mlir-opt"] == str(tools / "mlir-opt-77")
    assert subs["FileCheck"] == str(tools / "FileCheck-97")  # the newest FileCheck-N
    assert load(tmp_path, lowering="mlir-opt")["mlir-opt"] == str(tools / "mlir-opt-98")


def test_the_environment_names_filecheck_and_the_lowering(
        tools: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPU_ALLOC_VERIFY_FILECHECK", "/opt/llvm/bin/FileCheck")
    monkeypatch.setenv("GPU_ALLOC_VERIFY_LOWERING", "mlir-opt-77")
    subs = load(tmp_path, default="mlir-opt-98")
    assert subs == {"mlir-opt": str(tools / "mlir-opt-77"),
                    "FileCheck": "/opt/llvm/bin/FileCheck"}


def test_a_missing_tool_stops_lit_saying_what_to_install(tools: Path, tmp_path: Path) -> None:
    with pytest.raises(LitFatal, match=r"no mlir-opt-76 found: apt-get install mlir-76-tools"):
        load(tmp_path, lowering="mlir-opt-76")
    with pytest.raises(LitFatal, match="not an executable mlir-opt here"):
        load(tmp_path, lowering="/nowhere/mlir-opt")
    build = _tool(tools, "my-mlir-opt")
    assert load(tmp_path, lowering=f"mlir-opt:{build}")["mlir-opt"] == str(build)


def test_xdsl_runs_the_python_that_has_the_package(tools: Path, tmp_path: Path) -> None:
    outside = load(tmp_path, lowering="xdsl:reference")
    assert outside["mlir-opt"] == (f"{sys.executable} -m gpu_alloc_verify.repro.lower_tool "
                                   "--lowering xdsl:reference")
    assert "env:PYTHONPATH" not in outside
    # In a checkout (docs/findings-lit), the checkout's code is the one run.
    inside = load(ROOT / "docs" / "findings-lit", lowering="xdsl:reference")
    assert inside["env:PYTHONPATH"] == str(ROOT)
