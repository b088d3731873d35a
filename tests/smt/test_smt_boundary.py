"""Z3 behind one package (issue 39, item 6): only `verify.smt` imports `z3`;
everything else speaks the package's names, which are Z3's own objects (no
wrapper on the hot paths), declared with types that pass `mypy --strict`."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify import smt

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "gpu_alloc_verify"
SMT = PKG / "verify" / "smt"


def _is_z3(name: str) -> bool:
    return name == "z3" or name.startswith("z3.")


def z3_imports(tree: ast.AST) -> list[str]:
    """Every way a module reaches `z3`: `import z3[.x]`, `from z3[.x] import`
    (at the top, in a function or under TYPE_CHECKING alike), and a dynamic
    `importlib.import_module("z3")` / `__import__("z3")`."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if _is_z3(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and _is_z3(node.module):
            found.append(f"from {node.module} import")
        elif isinstance(node, ast.Call) and node.args \
                and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and _is_z3(node.args[0].value):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            if name in ("import_module", "__import__"):
                found.append(f"{name}({node.args[0].value!r})")
    return found


def test_only_the_smt_package_imports_z3() -> None:
    outside: dict[str, list[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        if SMT in path.parents:
            continue
        found = z3_imports(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            outside[str(path.relative_to(ROOT))] = found
    assert outside == {}, outside


def test_the_scan_sees_each_way_in() -> None:
    planted = (
        "import z3",
        "import z3 as solver",
        "import z3.z3",
        "from z3 import And",
        "from z3.z3 import BoolRef",
        "def f():\n    import z3\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import z3\n",
        "import importlib\nimportlib.import_module('z3')",
        "__import__('z3.z3')",
    )
    for code in planted:
        assert z3_imports(ast.parse(code)), code
    for code in ("from gpu_alloc_verify.verify import smt", "import z3x", "from . import z3",
                 "from gpu_alloc_verify.verify.smt import capi", "x = 'import z3'"):
        assert not z3_imports(ast.parse(code)), code
    # The package itself is where the imports live.
    assert z3_imports(ast.parse((SMT / "terms.py").read_text(encoding="utf-8")))


def test_the_names_are_z3s_own_objects() -> None:
    """Re-exports, not wrappers: a term built through `smt` costs what Z3's
    API costs, and Z3's classes are the project's term classes."""
    import z3

    from gpu_alloc_verify.verify.smt import capi

    own = {"skip_argument_checks", "int_in"}  # the package's few helpers, off hot paths
    for module in (smt, capi):
        for name in module.__all__:
            if name in own:
                assert getattr(module, name).__module__.startswith(smt.__name__), name
                continue
            assert getattr(module, name) is getattr(z3, name), name
    assert isinstance(smt.And(smt.Bool("p"), smt.Bool("q")), smt.BoolRef)


def test_the_package_is_the_bottom_layer() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    layers = text[text.index("layers = ["):]
    layers = layers[:layers.index("]")]
    names = [ln.strip().strip('",') for ln in layers.splitlines() if ln.strip().startswith('"')]
    assert names[-1] == "gpu_alloc_verify.verify.smt", names


def _mypy_strict(*paths: Path) -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[dev]')")
    # Errors of the modules these are imported through are not their own.
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--no-incremental", *(str(p.relative_to(ROOT)) for p in paths)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_the_package_passes_mypy_strict() -> None:
    _mypy_strict(SMT)


def test_the_model_term_layer_passes_mypy_strict() -> None:
    """fold's tagged term classes subclass the package's, values builds on them."""
    model = PKG / "verify" / "model"
    _mypy_strict(model / "fold.py", model / "values.py")
