"""`check` as compilers report: `file:line:col: error:` diagnostics, `check
DIR` as lit finds tests, and `check FILE --lit DIR` writing a lit test that
`lit` runs and that fails on the buggy lowering (issue 44, item 3)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import main
from tests.conftest import SYNC_SHARED, need_mlir_opt

DIAGNOSTIC = re.compile(r"^[^:]+:\d+:\d+: error: ")
LOWERING = "xdsl:pr69969"  # in-process: leaves a sync gpu.alloc unconverted (2:8)
VIOLATED = """func.func @main() {
  %0 = gpu.alloc () : memref<16xf32>
  return
}
"""
CORPUS = Path(__file__).parents[1] / "corpus"


def test_a_violation_is_first_said_as_a_compiler_diagnostic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "k.mlir"
    f.write_text(VIOLATED)
    assert main(["check", str(f), "--lowering", LOWERING]) == 1
    lines = capsys.readouterr().out.splitlines()
    errors = [ln for ln in lines if DIAGNOSTIC.match(ln)]
    assert errors, lines
    assert errors[0].startswith(f"{f}:2:8: error: lowering-complete: gpu.alloc left")
    # Then notes, each a line an editor reads: the rule, the op left in the
    # lowered code, the command that reproduces it.
    at = lines.index(errors[0])
    notes = lines[at + 1:lines.index("", at)]
    assert notes and all(re.match(rf"^{re.escape(str(f))}(:\d+:\d+)?: note: ", n)
                         for n in notes), notes
    assert any("note: left unconverted: `" in n for n in notes)
    assert notes[-1].endswith(f"reproduce: gpu-alloc-verify check {f} --lowering {LOWERING} "
                              "--invariant lowering-complete")


def test_standard_input_is_named_in_its_diagnostics(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(VIOLATED.encode())))
    assert main(["check", "-", "--lowering", LOWERING]) == 1
    out = capsys.readouterr().out
    assert "<stdin>:2:8: error: lowering-complete: " in out


def test_check_of_a_directory_checks_every_mlir_file_under_it_sorted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "b" / "bad.mlir").write_text(VIOLATED)
    (tmp_path / "a.mlir").write_text(SYNC_SHARED)
    (tmp_path / "notes.txt").write_text("not MLIR")
    (tmp_path / ".hidden" / "skipped.mlir").write_text("not MLIR either")
    assert main(["check", str(tmp_path), "--lowering", LOWERING]) == 1  # the worst
    out = capsys.readouterr().out
    headers = [ln for ln in out.splitlines() if ln.startswith("==> ")]
    assert headers == [f"==> {tmp_path / 'a.mlir'} <==", f"==> {tmp_path / 'b' / 'bad.mlir'} <=="]
    assert f"{tmp_path / 'b' / 'bad.mlir'}:2:8: error: lowering-complete" in out

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["check", str(empty), "--lowering", LOWERING]) == 2
    assert "is a directory with no .mlir file under it" in capsys.readouterr().err


@pytest.mark.slow  # ~7 s: the export reduces the file and proves the test
def test_check_lit_writes_a_test_that_fails_on_the_buggy_lowering(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_mlir_opt(19)
    lit = Path(sys.executable).with_name("lit")
    if not lit.exists():
        pytest.skip("lit is not installed beside this Python")
    src = tmp_path / "leak.mlir"
    shutil.copy(CORPUS / "wait_async_dep_leak.mlir", src)  # a real mlir-opt-19 defect
    out_dir = tmp_path / "lit"
    assert main(["check", str(src), "--lowering", "mlir-opt-19", "--lit", str(out_dir)]) == 1
    said = capsys.readouterr().out
    assert f"lit: 1 test(s) written to {out_dir}" in said
    test = out_dir / "stream-leak-wait-async-dep.mlir"
    assert test.is_file() and (out_dir / "lit.cfg.py").is_file()
    text = test.read_text()
    # Upstream's shape: a RUN line piping mlir-opt into FileCheck, CHECK lines,
    # the reduced program with no location and none of the file's comments.
    assert text.startswith("// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s")
    assert "// CHECK: llvm.call @mgpuStreamDestroy(" in text
    assert "loc(" not in text and "EXPECT" not in text
    # The differential run sees the same bug: one test, not two.
    assert "differential on mlir-opt-19: no test (the same test as" in said
    assert str(src) in (out_dir / "README.md").read_text()

    buggy = subprocess.run([str(lit), "-q", str(out_dir)], capture_output=True, text=True,
                           timeout=120)
    assert buggy.returncode == 1, buggy.stdout + buggy.stderr
    assert "stream-leak-wait-async-dep.mlir" in buggy.stdout
    fixed = subprocess.run([str(lit), "-q", str(out_dir), "--param",
                            "lowering=xdsl:reference"], capture_output=True, text=True,
                           timeout=120)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


def test_check_lit_under_json_keeps_stdout_one_json_value(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    f = tmp_path / "clean.mlir"
    f.write_text(SYNC_SHARED)
    assert main(["check", str(f), "--lowering", LOWERING, "--json",
                 "--lit", str(tmp_path / "lit")]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["violations"] == []
    assert "lit: 0 test(s) written" in captured.err
    assert not (tmp_path / "lit" / "lit.cfg.py").exists()


def test_a_tools_own_error_quoted_in_the_table_reads_as_no_diagnostic(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_mlir_opt(19)
    src = tmp_path / "launch.mlir"
    shutil.copy(CORPUS / "launch_two_deps.mlir", src)  # mlir-opt-19 rejects it at 41:11
    main(["check", str(src), "--lowering", "mlir-opt-19"])
    out = capsys.readouterr().out
    assert f"rejected: {src}:41:11: error: failed to legalize" in out
    assert not [ln for ln in out.splitlines() if DIAGNOSTIC.match(ln)], out
