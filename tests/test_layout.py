"""The layout shows the architecture (issue 19): the import contract in
pyproject.toml holds (stages layered, no cycles), and every stage package
says what it owns."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("model", "ir", "extract", "lowerings", "invariants", "triage", "campaign")


def test_the_import_contract_holds() -> None:
    tool = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(tool).exists():
        pytest.fail("lint-imports is missing: pip install -e '.[dev]'")
    proc = subprocess.run([tool, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_the_contract_names_every_stage() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    for stage in STAGES:
        assert f"verify.{stage}" in text, stage


@pytest.mark.parametrize("stage", STAGES)
def test_each_stage_says_what_it_owns(stage: str) -> None:
    init = ROOT / "verify" / stage / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text()))
    assert doc and len(doc) > 80, f"verify/{stage}/__init__.py needs a docstring"
    modules = sorted(p.stem for p in init.parent.glob("*.py") if p.stem != "__init__")
    named = [m for m in modules if m in doc]
    assert len(named) >= len(modules) // 2, (stage, modules)


def test_verify_has_no_flat_room_left() -> None:
    """Only the entry points stay at the top of verify/."""
    top = sorted(p.stem for p in (ROOT / "verify").glob("*.py"))
    assert top == ["__init__", "__main__", "api", "cli", "config", "findings",
                   "pytest_plugin"], top
