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
PKG = ROOT / "gpu_alloc_verify"
# The product card's parts: folders of the one package gpu_alloc_verify.
FOLDERS = ("verify", "generators", "oracles", "reports", "repro")
STAGES = ("smt", "model", "tools", "ir", "source", "extract", "lowerings", "invariants",
          "triage", "campaign")
# Stage packages at the repository's top (issue 30: `repro` makes lit tests).
TOP_STAGES = ("repro",)


def test_the_import_contract_holds() -> None:
    tool = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(tool).exists():
        pytest.fail("lint-imports is missing: pip install -e '.[dev]'")
    proc = subprocess.run([tool, "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


@pytest.mark.slow
def test_mypy_reads_the_checkout_as_it_is(tmp_path: Path) -> None:
    """Issue 39: mypy resolves every import of a plain copy of the package,
    with the dependencies installed but not the project (a `git archive` of
    HEAD, so an editable install cannot stand in for the tree)."""
    tool = shutil.which("mypy") or str(Path(sys.executable).parent / "mypy")
    if not Path(tool).exists():
        pytest.fail("mypy is missing: pip install -e '.[dev]'")
    archive = subprocess.run(["git", "archive", "HEAD", "gpu_alloc_verify", "pyproject.toml"],
                             cwd=ROOT, capture_output=True, timeout=120)
    if archive.returncode != 0:
        pytest.skip("not a git checkout")
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive.stdout, check=True,
                   timeout=120)
    proc = subprocess.run([tool, "--no-incremental", "gpu_alloc_verify"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "Success: no issues found" in proc.stdout


def test_the_contract_names_every_stage() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    for stage in STAGES:
        assert f"verify.{stage}" in text, stage
    for stage in TOP_STAGES:
        assert f'"gpu_alloc_verify.{stage}"' in text, stage


@pytest.mark.parametrize("stage", [f"verify/{s}" for s in STAGES] + list(TOP_STAGES))
def test_each_stage_says_what_it_owns(stage: str) -> None:
    init = PKG / stage / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text()))
    assert doc and len(doc) > 80, f"{stage}/__init__.py needs a docstring"
    modules = sorted(p.stem for p in init.parent.glob("*.py") if p.stem != "__init__")
    named = [m for m in modules if m in doc]
    assert len(named) >= len(modules) // 2, (stage, modules)


def _runtime_imports(tree: ast.Module) -> list[str]:
    """The modules a file imports, leaving out `if TYPE_CHECKING:` blocks."""
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and ast.unparse(node.test).endswith("TYPE_CHECKING")
                   for stmt in node.body for n in ast.walk(stmt)}
    found: list[str] = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names]
    return found


def test_reports_only_renders() -> None:
    """Issue 30: lit tests are made and proven in repro/ (a report's by its
    caller, `verify.campaign.report`); reports/ imports repro only for type
    checking.  (The custom form of xDSL's output, which pretty_ir shows and
    repro.lower_tool prints, is a text rewrite of `verify.ir.custom_form`.)"""
    for path in sorted((PKG / "reports").glob("*.py")):
        assert not path.stem.startswith("lit_") and path.stem != "lower_tool", path.name
        used = {m for m in _runtime_imports(ast.parse(path.read_text(encoding="utf-8")))
                if m.startswith("gpu_alloc_verify.repro.") and m.count(".") == 2}
        assert not used, (path.name, used)


def test_verify_has_no_flat_room_left() -> None:
    """Only the entry points stay at the top of verify/ (the CLI is a package:
    a module per command)."""
    top = sorted(p.stem for p in (PKG / "verify").glob("*.py"))
    assert top == ["__init__", "__main__", "api", "config", "findings",
                   "pytest_plugin"], top
    assert (PKG / "verify" / "cli" / "__init__.py").is_file()


@pytest.mark.slow
def test_the_wheel_has_one_top_level_package(tmp_path: Path) -> None:
    """verify/, generators/, oracles/, reports/ and repro/ install under
    gpu_alloc_verify (issue 29), package data included."""
    import zipfile

    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                           str(tmp_path), str(ROOT)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    wheels = list(tmp_path.glob("*.whl"))
    if proc.returncode != 0 and "build" in proc.stderr and not wheels:
        pytest.skip(f"no build backend here: {proc.stderr.strip().splitlines()[-1]}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} \
        == {"gpu_alloc_verify"}
    for data in ("verify/model/runtime_table.json", "verify/schema/summary.schema.json",
                 "verify/triage/upstream_status.json", "oracles/native/mgpu_shim.c",
                 "reports/templates/report.html", "repro/lower_tool.py"):
        assert f"gpu_alloc_verify/{data}" in names, data


@pytest.mark.slow
def test_a_project_with_packages_of_the_same_names_still_imports_it(tmp_path: Path) -> None:
    """A downstream project's own reports/ and verify/ packages no longer
    shadow ours (they did while ours were top-level)."""
    for name in ("reports", "verify"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("MINE = True\n")
    code = ("import reports, verify; assert reports.MINE and verify.MINE; "
            "from gpu_alloc_verify import api; from gpu_alloc_verify.reports import html; "
            "print(api.check.__module__, html.__name__)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["gpu_alloc_verify.verify.api",
                                   "gpu_alloc_verify.reports.html"]


def test_the_parts_are_plain_folders_of_the_one_package() -> None:
    """Issue 39: no symlinks anywhere in the tree, and no product folder left at
    the top, so every module has exactly one importable name."""
    for name in FOLDERS:
        assert (PKG / name / "__init__.py").is_file() and not (PKG / name).is_symlink(), name
        assert not (ROOT / name).exists(), f"{name}/ at the top would be a second path"
    proc = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    if proc.returncode != 0:
        pytest.skip("not a git checkout")
    assert [ln for ln in proc.stdout.splitlines() if ln.startswith("120000")] == []


# The modules that may start a process (issue 30: "at most 3"): one runner
# for every external tool, one owner of worker pools.
PROCESS_STARTERS = {"verify/tools/runner.py", "verify/tools/pool.py"}
_PROCESS_MODULES = ("subprocess", "multiprocessing", "pty", "concurrent.futures.process")
_PROCESS_NAMES = {"ProcessPoolExecutor", "LocalCluster", "create_subprocess_exec",
                  "create_subprocess_shell", "fork", "forkpty", "system", "popen",
                  "posix_spawn", "posix_spawnp"}


def _starts_processes(tree: ast.AST) -> list[str]:
    """What in a module can start a process: an import of a process module
    or of a pool class, or an `os.fork`/`os.exec*`/`os.spawn*`-like call."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names
                      if a.name.startswith(_PROCESS_MODULES)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(_PROCESS_MODULES):
                found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names
                      if a.name in _PROCESS_NAMES or a.name.startswith(_PROCESS_MODULES)]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                node.attr in _PROCESS_NAMES or node.attr.startswith(("exec", "spawn"))) \
                and node.value.id in ("os", "asyncio", "distributed", "futures"):
            found.append(f"{node.value.id}.{node.attr}")
    return found


@pytest.mark.slow
def test_at_most_three_modules_start_processes() -> None:
    starters: dict[str, list[str]] = {}
    paths = list(PKG.rglob("*.py"))
    for path in sorted(paths):
        found = _starts_processes(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            starters[str(path.relative_to(PKG))] = found
    assert set(starters) <= PROCESS_STARTERS, {k: v for k, v in starters.items()
                                               if k not in PROCESS_STARTERS}
    assert len(PROCESS_STARTERS) <= 3


def test_the_process_check_sees_each_way_in() -> None:
    for code in ("import subprocess", "from subprocess import run", "import multiprocessing.pool",
                 "from concurrent.futures import ProcessPoolExecutor",
                 "from concurrent.futures.process import BrokenProcessPool",
                 "from distributed import Client, LocalCluster", "os.fork()",
                 "os.execv('a', [])", "import asyncio\nasyncio.create_subprocess_exec('a')"):
        assert _starts_processes(ast.parse(code)), code
    for code in ("from concurrent.futures import ThreadPoolExecutor", "import os\nos.getpid()",
                 "from distributed import Client"):
        assert not _starts_processes(ast.parse(code)), code
