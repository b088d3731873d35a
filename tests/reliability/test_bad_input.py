"""Bad input to `check` and missing tools: exit status 2 and one line that
names the file and position, or the package to install (issue "Reliability",
item 3)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from tests.conftest import SYNC_SHARED
from tests.reliability.conftest import ROOT

GOOD = SYNC_SHARED

CASES = {
    # name: (file content, words of the message, position)
    "unparsable": (b"func.func @f( {", "not valid MLIR", ":1:"),
    "unknown-gpu-op": (b"func.func @f() {\n  %0 = gpu.alocc () : memref<4xf32>\n  return\n}\n",
                       "not valid MLIR", ":2:"),
    "empty": (b"", "the file is empty", None),
    "blank": (b"  \n\n", "the file is empty", None),
    "latin1": (b"func.func @f() {\n  // caf\xe9\n  return\n}\n", "byte 0xe9 is not UTF-8",
               ":2:9:"),
}

# Valid MLIR the harness does not model: read, never refused (issue #14).
VALID_UNMODELLED = {
    "host-alloc": "func.func @f() {\n  %0 = memref.alloc() : memref<4xf32>\n  return\n}\n",
    "unregistered": 'func.func @f() {\n  %0 = "foo.bar"() : () -> i32\n  return\n}\n',
    "module-level": '"foo.bar"() : () -> ()\n',
    "no-func": "module {\n}\n",
    "beside-gpu-ops": SYNC_SHARED.replace("  return", '  %x = "foo.bar"() : () -> i32\n  return'),
}


@pytest.mark.parametrize("name", list(VALID_UNMODELLED))
def test_valid_unmodelled_file_is_checked(name: str, tmp_path: Path, capsys) -> None:
    f = tmp_path / f"{name}.mlir"
    f.write_text(VALID_UNMODELLED[name])
    rc = main(["check", str(f), "--lowering", "mlir-opt-19", "--json"])
    captured = capsys.readouterr()
    assert rc in (0, 3), captured.err
    assert "Traceback" not in captured.err
    import json

    verdicts = json.loads(captured.out)["by_lowering"]["mlir-opt-19"]
    assert verdicts["lowering-no-crash"]["holds"] == 1
    if name == "beside-gpu-ops":  # the unregistered op touches no GPU state
        assert verdicts["sync-alloc-no-stream"]["holds"] == 1
        assert verdicts["stream-no-leak"]["holds"] == 1


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gpu-alloc-verify: error: ")
    return lines[0]


@pytest.mark.parametrize("name", list(CASES))
def test_bad_file_exits_2_with_one_line(name: str, tmp_path: Path, capsys) -> None:
    content, words, pos = CASES[name]
    f = tmp_path / f"{name}.mlir"
    f.write_bytes(content)
    assert main(["check", str(f), "--lowering", "xdsl:pr69969"]) == 2
    line = one_error_line(capsys)
    assert str(f) in line and words in line, line
    if pos is not None:
        assert f"{f}{pos}" in line, line
    assert "Traceback" not in line


def test_missing_file_and_directory(tmp_path: Path, capsys) -> None:
    assert main(["check", str(tmp_path / "nope.mlir"), "--lowering", "xdsl:pr69969"]) == 2
    assert "nope.mlir: no such file" in one_error_line(capsys)
    d = tmp_path / "dir.mlir"
    d.mkdir()
    assert main(["check", str(d), "--lowering", "xdsl:pr69969"]) == 2
    assert "is a directory" in one_error_line(capsys)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path: Path, capsys) -> None:
    f = tmp_path / "locked.mlir"
    f.write_text(GOOD)
    f.chmod(0)
    assert main(["check", str(f), "--lowering", "xdsl:pr69969"]) == 2
    assert "cannot read it" in one_error_line(capsys)


def test_without_any_mlir_opt_xdsl_reads_generic_form(tmp_path: Path, capsys,
                                                      monkeypatch) -> None:
    from gpu_alloc_verify.verify.tools import commands

    # The newest mlir-opt, which reads for an in-process lowering, is not there.
    monkeypatch.setattr(commands, "find_mlir_opt", lambda *a: None)
    f = tmp_path / "bad.mlir"
    f.write_text("func.func @f( {")
    assert main(["check", str(f), "--lowering", "xdsl:pr69969"]) == 2
    line = one_error_line(capsys)
    assert f"{f}:1:" in line and "not valid MLIR" in line


@pytest.mark.parametrize("spec, words", [
    ("mlir-opt-15", "apt-get install mlir-15-tools"),
    ("mlir-opt:/no/such/mlir-opt", "is not an executable file"),
    ("clang-opt", "use mlir-opt, mlir-opt-N, mlir-opt:/path or xdsl:NAME"),
    ("xdsl:nope", "xdsl:"),
])
def test_missing_lowering_tool(spec: str, words: str, tmp_path: Path, capsys) -> None:
    f = tmp_path / "a.mlir"
    f.write_text(GOOD)
    assert main(["check", str(f), "--lowering", spec]) == 2
    assert words in one_error_line(capsys)


def test_no_mlir_opt_at_all_names_the_debian_package(monkeypatch, capsys,
                                                     tmp_path: Path) -> None:
    import gpu_alloc_verify.verify.lowerings.mlir_opt as mo

    monkeypatch.setattr(mo, "find_mlir_opt", lambda version=None: None)
    f = tmp_path / "a.mlir"
    f.write_text(GOOD)
    assert main(["check", str(f), "--lowering", "mlir-opt"]) == 2
    assert "apt-get install mlir-19-tools" in one_error_line(capsys)


def test_native_execution_names_what_is_missing(monkeypatch) -> None:
    import gpu_alloc_verify.oracles.native as native

    real = native._tool
    monkeypatch.setattr(native, "_tool", lambda *names: None if names[0] == "cc"
                        else real(*names))
    with pytest.raises(EnvironmentProblem, match=r"a C compiler .*install mlir-\d+-tools and gcc"):
        native.NativeToolchain.find(19)
    monkeypatch.setattr(native, "_tool", lambda *names: None)
    with pytest.raises(EnvironmentProblem, match="mlir-opt, mlir-cpu-runner or mlir-runner"):
        native.NativeToolchain.find(19)


def test_no_gpu_names_the_pip_package() -> None:
    from gpu_alloc_verify.oracles.cupy_runtime import cupy_available

    if cupy_available():
        pytest.skip("this machine has CuPy and a GPU")
    proc = subprocess.run([sys.executable, "scripts/gpu_differential.py", "--programs", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "pip install cupy-cuda12x" in proc.stdout + proc.stderr
