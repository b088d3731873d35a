"""`fuzz --baseline` reports the difference (issue 44, item 1): the verdict
table, root causes and exit status count what the lowering under test adds
over the baseline; what the baseline already does is one line apart.

The case of the issue: a wrapper of mlir-opt-19 that only drops
mgpuStreamDestroy, against mlir-opt-19 itself.  mlir-opt-19 leaves ops
unconverted on most generated programs (its own limitations); only the leak
is the wrapper's."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from tests.conftest import need_mlir_opt


def _fuzz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    rc = main(["fuzz", "--max-examples", "30", "--seed", "1", "-j", "1", *args])
    return rc, capsys.readouterr().out


def test_a_lowering_that_drops_stream_destroy_adds_one_root_cause(
        tmp_path: Path, mutant: Any, capsys: pytest.CaptureFixture[str]) -> None:
    buggy = mutant("drop-stream-destroy")
    # One pipeline: the portfolio (fuzz's default) shows the dropped destroy
    # once per pipeline that meets it, a root cause each.
    rc, out = _fuzz(capsys, "--lowering", f"mlir-opt:{buggy}", "--baseline", "mlir-opt-19",
                    "--pipeline", DEFAULT_PIPELINE, "--results", str(tmp_path / "r.jsonl"))
    assert rc == 1, out  # exit by the one cause the wrapper adds
    assert "ROOT CAUSES: 1, added over baseline mlir-opt-19" in out, out
    assert "stream-leak" in out and "limitation:" not in out, out
    lines = out.splitlines()
    # The table counts what is added: the leak, never mlir-opt-19's unconverted ops.
    leak = next(ln for ln in lines if ln.strip().startswith("stream-no-leak"))
    complete = next(ln for ln in lines if ln.strip().startswith("lowering-complete"))
    assert "violated" in leak and "violated" not in complete, out
    # The baseline's own, one line apart, and the verdict line last.
    [apart] = [ln for ln in lines if ln.startswith("BASELINE mlir-opt-19 does the same")]
    assert "violated" in apart, out
    assert lines[-1].endswith("(over baseline mlir-opt-19)"), out
    assert "NEW" not in out and "Terms:" not in out and "\u2026" not in out


def test_a_lowering_against_itself_adds_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_mlir_opt(19)
    junit = tmp_path / "junit.xml"
    rc, out = _fuzz(capsys, "--lowering", "mlir-opt-19", "--baseline", "mlir-opt-19",
                    "--results", str(tmp_path / "r.jsonl"), "--json", "--junitxml", str(junit),
                    "--allow-unknown")
    summary = json.loads(out)
    assert rc == 0 and summary["violations"] == [], out
    counts = summary["counts"]
    assert counts["verdicts"]["violated"] == 0 and counts["root_causes"] == 0
    assert counts["baseline"]["lowering"] == "mlir-opt-19"
    assert counts["baseline"]["shared"]["violated"] > 0  # mlir-opt-19's own, apart
    assert summary["baseline"]["added"] == {}
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("gpu_alloc_verify.verify").joinpath(
        "schema/summary.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(summary)
    # JUnit says the same counts, in the same words.
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).iter("property")}
    assert props["programs"] == str(counts["programs"])
    assert props["verdicts.violated"] == "0" and props["root_causes"] == "0"
    assert props["baseline"] == "mlir-opt-19"
