"""Lowered IR for people: custom form, no harness artefacts, marks on the calls
of the offending handle only (each with its source position), and the
terminal's id and reproduce command."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.reports.pretty_ir import shown_ir
from gpu_alloc_verify.verify import api
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt

LEAKY = """\
module {
  func.func @f0() {
    %t1 = gpu.wait async loc("op1")
    %m2, %t2 = gpu.alloc async [%t1] () : memref<16xf32> loc("op2")
    %t3 = gpu.wait async [%t2] loc("op3")
    %t4 = gpu.wait async loc("op4")
    gpu.wait [%t3, %t4] loc("op5")
    return
  }
}
"""


def leak(lowering: str) -> dict[str, Any]:
    j = api.judgement(LEAKY, lowering, ["stream-no-leak"])
    [record] = api.violation_records(LEAKY, j)
    return record


def _marked(record: dict[str, Any]) -> list[tuple[str, str]]:
    return [(ln.text.strip(), ln.where) for ln in shown_ir(record).lines if ln.mark]


def test_marks_only_the_leaked_streams_calls_in_custom_form() -> None:
    record = leak("xdsl:pr69969")
    shown = shown_ir(record)
    assert shown.custom
    text = shown.text()
    assert 'loc("' not in text and ' loc(' not in text and '"llvm.call"' not in text
    assert "CConv" not in text
    marked = _marked(record)
    # The stream of op1: created there, taken by op2's alloc, recorded at op3 (where it
    # is dropped).  Not op4's stream, not the destroys at op5, not the declarations.
    assert [where for _, where in marked] == ["program:3:5", "program:4:5", "program:5:5"]
    assert marked[0][0].startswith("%0 = llvm.call @mgpuStreamCreate()")
    assert "llvm.call @mgpuMemAlloc(" in marked[1][0] and ", %0, " in marked[1][0]
    assert marked[2][0].startswith("llvm.call @mgpuEventRecord(") and "%0)" in marked[2][0]
    assert not any("mgpuStreamDestroy" in t or t.startswith("llvm.func") for t, _ in marked)


@pytest.mark.skipif(find_mlir_opt(19) is None, reason="no mlir-opt-19")
def test_mlir_opt_output_is_reprinted_by_its_own_tool() -> None:
    record = leak("mlir-opt-19")
    assert "within split at" in record["lowered"] and '"llvm.call"' in record["lowered"]
    shown = shown_ir(record)
    text = shown.text()
    assert shown.custom and "within split" not in text and "p0/" not in text
    assert "llvm.call @mgpuStreamCreate() : () -> !llvm.ptr" in text
    assert [where for _, where in _marked(record)] == ["program:3:5", "program:4:5",
                                                       "program:5:5"]


def test_terminal_shows_id_reproduce_command_and_positions() -> None:
    record = dict(leak("xdsl:pr69969"), id="c1-v0")
    text = render(record, repro="gpu-alloc-verify replay r.jsonl --id c1-v0")
    assert "ERROR: stream-no-leak violated on xdsl:pr69969  [c1-v0]" in text
    assert "  reproduce: gpu-alloc-verify replay r.jsonl --id c1-v0" in text
    marks = [ln for ln in text.splitlines() if ln.startswith("  >> ")]
    assert len(marks) == 3 and marks[0].endswith("<- op1 at program:3:5")
    assert "   3 | " in text.replace("  3 | ", "   3 | ")  # numbered source lines
    assert "loc(\"within" not in text


@pytest.mark.skipif(find_mlir_opt(19) is None, reason="no mlir-opt-19")
def test_check_prints_the_command_that_reproduces(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "leak.mlir"
    shutil.copy(Path(__file__).parents[1] / "corpus" / "wait_async_dep_leak.mlir", src)
    assert main(["check", str(src), "--lowering", "mlir-opt-19"]) == 1
    out = capsys.readouterr().out
    assert (f"{src}: note: reproduce: gpu-alloc-verify check {src} --lowering mlir-opt-19 "
            "--invariant stream-no-leak") in out
    # First as a compiler's diagnostic, at the op that made the leaked stream.
    assert f"{src}:15:9: error: stream-no-leak: stream created by {src}:15:9" in out
    marks = [ln for ln in out.splitlines() if ln.startswith("  >> ")]
    assert marks and all(f"<- {src}:" in ln for ln in marks)
    assert "within split" not in out
