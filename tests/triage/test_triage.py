"""Triage: signatures, buckets, first/last seen, new since the previous campaign,
stability (same buckets on a re-run), the `triage` command and its JSON schema."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify import api
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.triage.buckets import (
    _root_causes,
    format_triage,
    triage_file,
    triage_records,
)
from gpu_alloc_verify.verify.triage.offending import offense
from gpu_alloc_verify.verify.triage.signature import family, op_form, op_words, signature_of

needs_reader = pytest.mark.skipif(find_mlir_opt() is None,
                                  reason="no mlir-opt to read programs (apt-get install "
                                  "mlir-19-tools)")

LEAKY = """\
module {
  func.func @f0() {
    %t1 = gpu.wait async loc("op1")
    %t2 = gpu.wait async [%t1] loc("op2")
    gpu.wait [%t2] loc("op3")
    return
  }
}
"""
SYNC_ALLOC = """\
module {
  func.func @f0() {
    %m1 = gpu.alloc () : memref<4xf32> loc("op1")
    return
  }
}
"""


def violations(program: str, lowering: str = "xdsl:pr69969") -> list[dict[str, Any]]:
    j = api.judgement(program, lowering)
    return [dict(r, pipeline="gpu-to-llvm") for r in api.violation_records(program, j)]


# -- signatures ---------------------------------------------------------------------


def test_op_forms_keep_what_conversion_decides_on() -> None:
    from gpu_alloc_verify.verify.ir.ir_lines import parse_source

    src = parse_source("""\
func.func @f(%c: i1) {
  %a, %t = gpu.alloc async [%x, %y] host_shared () : memref<4xf32> loc("op1")
  %t2 = gpu.wait async [%t] loc("op2")
  scf.if %c {
    gpu.memset %a, %v : memref<4xi64>, i64 loc("op3")
  }
}
""")
    assert op_form(src.by_id("op1")) == "gpu.alloc async [%t, %t] host_shared"
    assert op_form(src.by_id("op1"), one_dep=True) == "gpu.alloc async [!=1 deps] host_shared"
    assert op_form(src.by_id("op2")) == "gpu.wait async [%t]"
    assert op_form(src.by_id("op3")) == "gpu.memset (64-bit)"
    assert op_form(src.by_id("op3"), with_nesting=True) == "in scf.if: gpu.memset (64-bit)"
    assert op_words("gpu.wait async [%t]") == "wait-async-dep"
    assert op_words("gpu.alloc") == "alloc-sync"
    assert op_words("in scf.if: gpu.wait async [%t]") == "wait-async-dep-in-if"
    assert family("mlir-opt-19", "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm") == \
        "mlir-opt (gpu-to-llvm)"
    assert family("mlir-opt:/x/mlir-opt", "func.func(gpu-async-region),gpu-to-llvm") == \
        "mlir-opt (func.func(gpu-async-region),gpu-to-llvm)"


def test_leak_is_named_after_the_op_that_drops_the_stream() -> None:
    [leak] = [v for v in violations(LEAKY) if v["invariant"] == "stream-no-leak"]
    sig = signature_of(leak)
    assert sig.slug() == "stream-leak-wait-async-dep"
    assert sig.source == "gpu.wait async [%t]"
    assert sig.calls == "mgpuStreamCreate -> mgpuEventRecord; never destroyed"
    assert sig.family == "xdsl:pr69969 (gpu-to-llvm)"
    assert sig.key == signature_of(dict(leak)).key  # stable
    # Names, sizes and op ids do not matter; the shape does.
    renamed = LEAKY.replace("%t1", "%a").replace("%t2", "%b").replace("op", "x")
    [again] = [v for v in violations(renamed) if v["invariant"] == "stream-no-leak"]
    assert signature_of(again).key == sig.key


def test_unconverted_op_signature_and_knock_on_casts() -> None:
    [left] = [v for v in violations(SYNC_ALLOC) if v["invariant"] == "lowering-complete"]
    sig = signature_of(left)
    # Named after the precondition upstream's pattern declines, not the op shape.
    assert (sig.calls, sig.focus, sig.slug()) == ("left unconverted", "sync-op",
                                                  "unconverted-sync-op")
    cast = dict(left, detail="unresolved cast to !gpu.async.token left in @f0 (from op2)",
                counterexample={"path": {}, "source_op": "op2",
                                "left": "builtin.unrealized_conversion_cast"})
    assert _root_causes([left, cast]) == [left]  # a cast left behind is a consequence
    assert _root_causes([cast]) == [cast]


DESTROYED_TWICE = """\
func.func @f0() {
  %m = gpu.alloc () : memref<4xi32> loc("op1")
  %c = arith.constant 1 : i32
  %t1 = gpu.wait async loc("op2")
  %t4 = gpu.memset async [%t1] %m, %c : memref<4xi32>, i32 loc("op3")
  gpu.wait [%t4] loc("op4")
  gpu.wait [%t1] loc("op5")
  return
}
"""


@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
def test_signatures_read_the_checkers_roles_not_their_wording() -> None:
    # The handle's creator, destroy and use, the op left unconverted: triage
    # reads them from the counterexample the checker filled in, so a reworded
    # detail names the same bug (it used to be parsed back with regexes).
    found = violations(DESTROYED_TWICE, "mlir-opt-19")
    by_invariant = {v["invariant"]: v for v in found}
    uad = by_invariant["stream-no-use-after-destroy"]
    assert {k: uad["counterexample"][k] for k in ("kind", "handle_from", "destroy_from",
                                                  "use_from")} == {
        "kind": "stream", "handle_from": "op2", "destroy_from": "op4", "use_from": "op5"}
    assert by_invariant["lowering-complete"]["counterexample"]["left"] == "gpu.alloc"
    for v in found:
        if v["invariant"] == "differential":
            continue  # named after its outcome differences, not a handle
        reworded = dict(v, detail="(reworded)")
        assert signature_of(reworded) == signature_of(v), v["invariant"]
        assert offense(reworded).lines() == offense(v).lines(), v["invariant"]
    assert signature_of(uad).slug() == "stream-destroyed-while-aliased"


# -- buckets over a results file ----------------------------------------------------


def _campaign(cid: str, t0: float, programs: list[tuple[str, list[str]]],
              lowering: str = "xdsl:pr69969") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"kind": "campaign-start", "campaign": cid, "time": t0,
                                  "lowerings": [lowering], "pipeline": "gpu-to-llvm",
                                  "runtime": "cuda", "seed": 0}]
    for k, (text, bad) in enumerate(programs):
        verdicts = dict.fromkeys(["stream-no-leak", "lowering-complete"], "holds")
        verdicts.update(dict.fromkeys(bad, "violated"))
        out.append({"kind": "program", "campaign": cid, "id": f"{cid}-p{k}", "program": text,
                    "time": t0 + k + 1,
                    "results": {lowering: {"status": "ok", "verdicts": verdicts}}})
    out.append({"kind": "campaign-end", "campaign": cid, "time": t0 + 100})
    return out


@needs_reader
def test_counts_first_last_seen_and_new() -> None:
    records = (_campaign("c1", 1000.0, [(LEAKY, ["stream-no-leak"])])
               + _campaign("c2", 2000.0, [(LEAKY, ["stream-no-leak"]),
                                          (SYNC_ALLOC, ["lowering-complete"]),
                                          (LEAKY.replace("op", "q"), ["stream-no-leak"])]))
    t = triage_records(records)
    assert (t.campaigns, t.latest, t.previous) == (["c1", "c2"], "c2", "c1")
    assert [b.signature.slug() for b in t.buckets] == ["stream-leak-wait-async-dep",
                                                       "unconverted-sync-op"]
    leak, alloc = t.buckets
    assert (leak.count, leak.per_campaign) == (3, {"c1": 1, "c2": 2})
    assert (leak.first_seen, leak.last_seen, leak.new) == ("c1", "c2", False)
    assert (alloc.count, alloc.first_seen, alloc.new) == (1, "c2", True)
    assert leak.first_time == 1001.0 and leak.last_time == 2003.0
    assert leak.programs == ["c1-p0", "c2-p0", "c2-p2"]
    assert t.programs == 4 and t.violations == 4 and t.unreproduced == 0
    text = format_triage(t)
    assert "stream-leak-wait-async-dep" in text and "NEW" in text.split("unconverted")[1]


@needs_reader
def test_unreproduced_verdicts_are_counted_not_bucketed() -> None:
    records = _campaign("c1", 1.0, [(SYNC_ALLOC, ["stream-no-leak"])])  # it holds there
    t = triage_records(records)
    assert t.buckets == [] and t.unreproduced == 1 and "did not show again" in t.notes[0]


@pytest.mark.slow
@needs_reader
def test_same_buckets_on_a_rerun(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A campaign run twice with the same seed is triaged into the same buckets;
    the same file triaged twice, too."""
    keys = []
    for k in range(2):
        results = tmp_path / f"r{k}.jsonl"
        rc = main(["fuzz", "--lowering", "xdsl:pr69969", "--max-examples", "40", "--seed", "7",
                   "-j", "1", "--no-shrink", "--results", str(results), "--json"])
        assert rc == 1
        t = triage_file(results)
        keys.append([(b.key, b.count) for b in t.buckets])
        again = triage_records(json.loads(ln) for ln in results.read_text().splitlines())  # type: ignore[arg-type]
        assert [(b.key, b.count) for b in again.buckets] == keys[-1]
    capsys.readouterr()
    assert keys[0] == keys[1] and len(keys[0]) >= 2


@needs_reader
def test_triage_command_and_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in _campaign(
        "c1", 1.0, [(LEAKY, ["stream-no-leak"]), (SYNC_ALLOC, ["lowering-complete"])])))
    assert main(["triage", str(results)]) == 0
    out = capsys.readouterr().out
    assert "2 root cause(s)" in out and "stream-leak-wait-async-dep" in out
    assert main(["triage", str(results), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(resources.files("gpu_alloc_verify.verify").joinpath(
        "schema/triage.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(summary)
    assert [b["slug"] for b in summary["buckets"]] == ["stream-leak-wait-async-dep",
                                                       "unconverted-sync-op"]
    assert main(["triage", str(tmp_path / "missing.jsonl")]) == 2


@needs_reader
def test_a_root_cause_only_shrinking_reached_says_so() -> None:
    # The campaign recorded a program with an unconverted alloc; shrinking it
    # reached a leak, a root cause no recorded program shows.
    records = _campaign("c1", 1.0, [(SYNC_ALLOC, ["lowering-complete"])])
    [shrunk] = [dict(v, kind="violation", campaign="c1", id="c1-v0")
                for v in violations(LEAKY) if v["invariant"] == "stream-no-leak"]
    t = triage_records(records[:-1] + [shrunk] + records[-1:])
    leak = next(b for b in t.buckets if b.signature.invariant == "stream-no-leak")
    assert (leak.count, leak.violation_ids) == (0, ["c1-v0"])
    # A root cause always has its programs: here its shrunk one.
    assert leak.program_count == 1 and "1 program (shrunk)" in format_triage(t)
    assert "0 program" not in format_triage(t)


@needs_reader
def test_past_the_time_budget_violations_are_bucketed_without_judging_again() -> None:
    # `findings --time-budget`: triage judges nothing more once the budget
    # is spent; the rest is bucketed by invariant, with a note saying why.
    import time

    from gpu_alloc_verify.verify.triage.reduce import reductions_until

    records = _campaign("c1", 1.0, [(LEAKY, ["stream-no-leak"])])
    with reductions_until(time.monotonic() - 1):
        late = triage_records(records)
    assert any("the time budget ran out" in n for n in late.notes), late.notes
    assert [b.signature.slug() for b in late.buckets] != ["stream-leak-wait-async-dep"]
    judged = triage_records(records)
    assert [b.signature.slug() for b in judged.buckets] == ["stream-leak-wait-async-dep"]
