"""`gpu-alloc-verify check` on files, against the real mlir-opt binaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import main
from tests.conftest import SYNC_SHARED, need_mlir_opt


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    rc = main([*argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def test_sync_host_shared_alloc_across_versions(tmp_path: Path, capsys) -> None:
    for v in (16, 19, 22):
        need_mlir_opt(v)
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    rc, out = run_json(capsys, "check", str(f), "--lowering", "mlir-opt-16",
                       "--lowering", "mlir-opt-19", "--lowering", "mlir-opt-22")
    assert rc == 0
    per = out["by_lowering"]
    assert per["mlir-opt-16"]["sync-alloc-no-stream"]["rejected"] == 1
    for name in ("mlir-opt-19", "mlir-opt-22"):
        assert per[name]["sync-alloc-no-stream"]["holds"] == 1
        assert per[name]["stream-no-leak"]["holds"] == 1
    assert out["violations"] == []


def test_check_reports_mutated_sync_alloc(tmp_path: Path, capsys, mutant) -> None:
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    rc, out = run_json(capsys, "check", str(f), "--lowering",
                       f"mlir-opt:{mutant('sync-alloc-stream')}")
    assert rc == 1
    found = {v["invariant"] for v in out["violations"]}
    # The stream the mutant creates is also never destroyed, and stays live
    # at exit when the program runs.
    assert found == {"sync-alloc-no-stream", "stream-no-leak", "differential"}
    details = [v["detail"] for v in out["violations"] if v["invariant"] == "sync-alloc-no-stream"]
    assert any(f"synchronous gpu.alloc {f}:2:8" in d for d in details)  # the user's position


@pytest.mark.parametrize(
    "content, expected",
    [
        (None, "no such file"),
        ("", "empty"),
        ("func.func @f( {", "not valid MLIR"),
    ],
)
def test_bad_input_exits_2_naming_the_file(tmp_path: Path, capsys, content, expected) -> None:
    need_mlir_opt(19)
    f = tmp_path / "bad.mlir"
    if content is not None:
        f.write_text(content)
    rc = main(["check", str(f), "--lowering", "mlir-opt-19"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "bad.mlir" in err and expected in err
    assert len(err.strip().splitlines()) == 1


def test_unknown_lowering_is_an_environment_error(tmp_path: Path, capsys) -> None:
    f = tmp_path / "a.mlir"
    f.write_text(SYNC_SHARED)
    assert main(["check", str(f), "--lowering", "mlir-opt-3"]) == 2
    assert "apt-get install mlir-3-tools" in capsys.readouterr().err
