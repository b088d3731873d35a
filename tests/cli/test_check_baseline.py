"""`check --baseline SPEC` (issue 44, item 1 for check): the verdicts,
diagnostics and exit status count what the lowering under test adds over the
baseline on the file; what the baseline already does is one line apart."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify.cli import main
from tests.conftest import need_mlir_opt

LEAK = Path(__file__).parents[1] / "corpus" / "wait_async_dep_leak.mlir"


@pytest.mark.slow  # ~3 s: the file judged on two mlir-opt builds
def test_a_lowering_is_judged_by_what_it_adds_over_the_baseline(
        tmp_path: Path, mutant: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # mlir-opt-19 leaks the stream of `%s0 = gpu.wait async` (15:9); a build
    # that also drops every mgpuStreamDestroy leaks the second one (18:9) too.
    src = tmp_path / "leak.mlir"
    shutil.copy(LEAK, src)
    buggy = f"mlir-opt:{mutant('drop-stream-destroy')}"
    assert main(["check", str(src), "--lowering", buggy, "--baseline", "mlir-opt-19"]) == 1
    lines = capsys.readouterr().out.splitlines()
    errors = [ln for ln in lines if re.match(r"^[^:]+:\d+:\d+: error: ", ln)]
    assert any(ln.startswith(f"{src}:18:9: error: stream-no-leak: ") for ln in errors), lines
    assert not any(ln.startswith(f"{src}:15:9: error:") for ln in errors), lines
    # The baseline's own leak, one line apart, at its place.
    at = lines.index("BASELINE mlir-opt-19 does the same, not counted: 0 violated, "
                     "0 unknown verdicts")
    said = " ".join(ln.strip() for ln in lines[at + 1:at + 3])  # wrapped, never cut
    assert said.startswith(f"its violations here too, not counted: stream-no-leak at {src}:15:9")
    assert lines[-1].endswith("(over baseline mlir-opt-19)")


@pytest.mark.slow  # ~3 s: the file judged on two mlir-opt builds
def test_the_baseline_against_itself_adds_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_mlir_opt(19)
    src = tmp_path / "leak.mlir"
    shutil.copy(LEAK, src)
    assert main(["check", str(src), "--lowering", "mlir-opt-19", "--baseline", "mlir-opt-19",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["violations"] == [] and summary["baseline"]["added"] == {}
    shared = summary["baseline"]["shared"]["mlir-opt-19"]
    assert shared["stream-no-leak"] == {"violated": 1}
    assert summary["counts"]["verdicts"]["violated"] == 0
    assert summary["counts"]["baseline"] == {"lowering": "mlir-opt-19",
                                             "shared": {"violated": 2, "unknown": 0}}
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("gpu_alloc_verify.verify").joinpath(
        "schema/summary.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(summary)

    assert main(["check", str(src), "--lowering", "mlir-opt-19", "--baseline",
                 "mlir-opt-19"]) == 0
    out = capsys.readouterr().out
    assert "stream-no-leak               violated  (baseline mlir-opt-19 too: not counted)" \
        in out
    assert ": error: " not in out
