"""reports.diagnostics: where a violation is placed, and the line said when
no place is known."""

from __future__ import annotations

from gpu_alloc_verify.reports.diagnostics import diagnostic_lines, position

PROGRAM = """func.func @main() {
  %t = gpu.wait async
  return
}
"""


def _record(**extra: object) -> dict[str, object]:
    return {"invariant": "stream-no-leak", "lowering": "mlir-opt-19", "id": "k1",
            "program": PROGRAM, "lowered": "", "detail": "a stream leaks\n on every path",
            "counterexample": {}, **extra}


def test_the_error_is_at_the_op_the_violation_is_about() -> None:
    rec = _record(counterexample={"source_op": "k.mlir:2:3", "path": {"%c": True}},
                  confirmation="confirmed by execution (native run): live at exit")
    lines = diagnostic_lines(rec, "k.mlir", repro="gpu-alloc-verify check k.mlir")
    assert lines[0] == ("k.mlir:2:3: error: stream-no-leak: a stream leaks on every path "
                        "[mlir-opt-19, k1]")
    assert lines[1].startswith("k.mlir:2:3: note: the rule: every stream created")
    assert "k.mlir: note: on the path taken when %c=true" in lines
    assert "k.mlir: note: confirmed by execution (native run): live at exit" in lines
    assert lines[-1] == "k.mlir: note: reproduce: gpu-alloc-verify check k.mlir"


def test_a_differential_run_is_placed_at_its_function() -> None:
    rec = _record(invariant="differential", counterexample={"function": "main"})
    assert position(rec, "k.mlir") == "k.mlir:1:1"


def test_with_no_place_known_the_line_names_the_file() -> None:
    rec = _record(counterexample={"source_op": "op7"})  # no such op in the text
    assert position(rec, "k.mlir") is None
    assert diagnostic_lines(rec, "k.mlir")[0].startswith("k.mlir: error: stream-no-leak: ")
