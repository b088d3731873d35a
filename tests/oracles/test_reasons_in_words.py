"""No `unknown` reason carries a Python exception (issue 46): an exception
inside an interpreter is a harness defect, recorded, and the verdict's
reason names the op and the construct in words; a budget that runs out is
named; every corpus file's reasons are scanned nightly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.campaign.check_file import CHECK_OPTIONS, check_file
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model import harness_defects
from gpu_alloc_verify.verify.model.harness_defects import PYTHON_ERROR_TEXT
from tests.conftest import need_mlir_opt

CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def nested_ifs(depth: int) -> str:
    out = ["func.func @main(%c: i1) {"]
    out += ["  " * (k + 1) + "scf.if %c {" for k in range(depth)]
    out += ["  " * (depth + 1) + "%t0 = gpu.wait async", "  " * (depth + 1) + "gpu.wait [%t0]"]
    out += ["  " * (k + 1) + "}" for k in reversed(range(depth))]
    return "\n".join(out + ["  return", "}"]) + "\n"


def _reasons(path: Path, invariants: tuple[str, ...], limit: float | None = None
             ) -> dict[str, tuple[str, str]]:
    need_mlir_opt(19)
    _, row = check_file(str(path), [resolve("mlir-opt-19")],
                        CHECK_OPTIONS.replace(invariants=invariants), limit)
    return {i: (r.verdict, r.reason or "") for i, r in row["mlir-opt-19"].results.items()}


def test_recorded_defect_reads_in_words() -> None:
    harness_defects.take()
    try:
        {}["x"]  # noqa: B018 - a real KeyError, raised to be recorded
    except KeyError as e:
        words = harness_defects.record("the lowered-IR interpreter", "llvm.load", "k.mlir:3:5", e)
    assert "llvm.load" in words and "k.mlir:3:5" in words and "did not find" in words
    assert not PYTHON_ERROR_TEXT.search(words), words
    kept, dropped = harness_defects.take()
    assert [d.error for d in kept] == ["KeyError: 'x'"] and dropped == 0
    assert "Traceback" in kept[0].trace


def test_nesting_past_the_interpreter_is_unknown_in_words(tmp_path: Path) -> None:
    f = tmp_path / "deep.mlir"
    # 120 levels are now read by the fast reader and decided; 300 are past
    # xDSL's reader, which the differential's source runner needs.
    f.write_text(nested_ifs(300))
    reasons = _reasons(f, ("differential",))
    verdict, reason = reasons["differential"]
    assert verdict == "unknown" and "nesting" in reason, reason
    assert not PYTHON_ERROR_TEXT.search(reason), reason


def test_a_time_limit_that_runs_out_is_named(tmp_path: Path) -> None:
    f = tmp_path / "loop.mlir"
    f.write_text("""func.func @main() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %x = arith.addi %a, %i : index
    scf.yield %x : index
  }
  %t0 = gpu.wait async
  gpu.wait [%t0]
  return %s : index
}
""")
    verdict, reason = _reasons(f, ("differential",), limit=0.5)["differential"]
    assert verdict == "unknown" and "time limit of 0.5 s" in reason, reason


@pytest.mark.nightly
def test_no_reason_on_the_corpus_names_a_python_exception() -> None:
    need_mlir_opt(19)
    found: list[str] = []
    for path in sorted(CORPUS.glob("*.mlir")):
        proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", str(path),
                               "--lowering", "mlir-opt-19", "--json"],
                              capture_output=True, text=True, timeout=300)
        assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
        text = proc.stdout
        found += [f"{path.name}: {m.group(0)}" for m in PYTHON_ERROR_TEXT.finditer(text)]
        if proc.returncode != 2:
            json.loads(text)
    assert not found, found


def test_the_backstop_makes_what_is_open_unknown_naming_the_stage(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpu_alloc_verify.verify.model import budget

    monkeypatch.setattr(budget, "BACKSTOP_GRACE_S", 0.05)
    f = tmp_path / "nest.mlir"
    # Valid MLIR (each token named once): the file is read, then time runs out.
    body = "".join(f"  %t{k} = gpu.wait async\n  gpu.wait [%t{k}]\n" for k in range(400))
    f.write_text("func.func @main() {\n" + body + "  return\n}\n")
    reasons = _reasons(f, ("stream-no-leak", "async-order"), limit=0.01)
    assert {v for v, _ in reasons.values()} == {"unknown"}, reasons
    for _, reason in reasons.values():
        assert reason.startswith("the time limit of 0.01 s per file (--time-limit) ran out in "
                                 ), reason
        assert not reason.endswith(" in the check"), reason  # a stage is named
