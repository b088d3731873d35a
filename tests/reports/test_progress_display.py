"""`fuzz`, `check` and `report` share one progress display (issue 39, item
8): `reports.progress_line.ProgressLine` draws, each command only says what."""

from __future__ import annotations

import ast
import io
from pathlib import Path

from gpu_alloc_verify.reports.progress_line import ProgressLine
from gpu_alloc_verify.reports.report_progress import ReportProgress
from gpu_alloc_verify.verify.campaign.check_progress import CheckProgress
from gpu_alloc_verify.verify.campaign.progress import ProgressPrinter

PKG = Path(__file__).resolve().parents[2] / "gpu_alloc_verify"


def test_fuzz_check_and_report_share_one_progress_display() -> None:
    displays: list[ProgressPrinter | CheckProgress | ReportProgress] = [
        ProgressPrinter(io.StringIO(), tty=False),
        CheckProgress("f.mlir", 2, io.StringIO(), tty=False),
        ReportProgress(io.StringIO(), tty=False)]
    assert all(isinstance(d.line, ProgressLine) for d in displays)
    for d in displays:
        d.done()


def _strings(tree: ast.AST) -> list[str]:
    docstrings = {id(b.body[0].value) for b in ast.walk(tree)
                  if isinstance(b, (ast.Module, ast.ClassDef, ast.FunctionDef))
                  and b.body and isinstance(b.body[0], ast.Expr)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and id(n) not in docstrings]


def test_only_the_progress_display_rewrites_a_line() -> None:
    """A `\\r` anywhere else would be a progress display of its own."""
    rewriting = sorted(str(p.relative_to(PKG)) for p in PKG.rglob("*.py")
                       if any("\r" in s for s in _strings(
                           ast.parse(p.read_text(encoding="utf-8")))))
    assert rewriting == ["reports/progress_line.py"], rewriting


def test_the_display_redraws_in_place_and_erases() -> None:
    out = io.StringIO()
    line = ProgressLine(out, tty=True)
    line.redraw("first line")
    line.redraw("short")
    line.erase()
    assert out.getvalue() == "\rfirst line\rshort     \r" + " " * 5 + "\r"
    log = io.StringIO()
    plain = ProgressLine(log, tty=False, every_s=3600)
    assert plain.due() and not plain.due() and plain.due(force=True)
    plain.show("one")
    plain.keep()  # nothing drawn in place: nothing to end
    assert log.getvalue() == "one\n"
