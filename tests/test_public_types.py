"""No `Any` in the public signatures of the modules that read IR (issue #30):
IR objects are typed by `verify.ir.protocols`, the rest by what they are.

Read from the source (ast): the parameters and return annotation of every
public top-level function and every public method (dunders included) of a
public top-level class.  A type alias used in a signature is not expanded:
its definition is the module's to keep exact.  Every module of `extract/`,
the MLIR readers `ir/` and `source/`, and `oracles/` is checked (issue #30:
all of them are free of `Any` now)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "gpu_alloc_verify"

# Every module of these packages, found anew each run: a new module is
# checked from its first commit.
CHECKED_PACKAGES = ("verify/extract", "verify/ir", "verify/source", "oracles")
FINISHED = sorted(str(p.relative_to(ROOT)) for package in CHECKED_PACKAGES
                  for p in (ROOT / package).rglob("*.py"))


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _mentions_any(node: ast.expr | None) -> bool:
    if node is None:
        return False
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == "Any":
            return True
        if isinstance(sub, ast.Attribute) and sub.attr == "Any":
            return True
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:  # a quoted annotation
                inner = ast.parse(sub.value, mode="eval").body
            except SyntaxError:
                continue
            if _mentions_any(inner):
                return True
    return False


def _signatures(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name):
            out.append((node.name, node))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _public(item.name):
                    out.append((f"{node.name}.{item.name}", item))
    return out


def any_in_public_signatures(source: str) -> list[str]:
    """`name(param)` or `name -> return` for each annotation mentioning `Any`."""
    found = []
    for name, fn in _signatures(ast.parse(source)):
        a = fn.args
        params = [*a.posonlyargs, *a.args, *a.kwonlyargs,
                  *([a.vararg] if a.vararg else []), *([a.kwarg] if a.kwarg else [])]
        found += [f"{name}({p.arg})" for p in params if _mentions_any(p.annotation)]
        if _mentions_any(fn.returns):
            found.append(f"{name} -> return")
    return found


@pytest.mark.parametrize("module", FINISHED)
def test_no_any_in_public_signatures(module: str) -> None:
    assert any_in_public_signatures((ROOT / module).read_text()) == []


def test_the_check_sees_any() -> None:
    source = (
        "from typing import Any\n"
        "def f(x: int, *, y: 'dict[str, Any]') -> None: ...\n"
        "def _private(x: Any) -> Any: ...\n"
        "class C:\n"
        "    def m(self) -> list[Any]: ...\n"
        "    def _h(self, x: Any) -> None: ...\n"
        "class _Hidden:\n"
        "    def m(self, x: Any) -> None: ...\n"
    )
    assert any_in_public_signatures(source) == ["f(y)", "C.m -> return"]
