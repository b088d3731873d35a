"""The proof script, loaded as a module (scripts/ is not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "prove_patches.py"


@pytest.fixture(scope="session")
def prove_patches() -> ModuleType:
    spec = importlib.util.spec_from_file_location("prove_patches", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["prove_patches"] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module
