"""A campaign survives SIGKILL and Ctrl-C, resumes where it stopped, and
stops cleanly on its time budget (issue "Reliability", items 1 and 6)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.model.results import ResultsWriter, read_records
from tests.reliability.conftest import ROOT, cli

LOWERING = "xdsl:pr69969"
PROGRAM_KEYS = {"kind", "campaign", "id", "program", "features", "results", "found", "time"}


def start_fuzz(results: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gpu_alloc_verify", "fuzz", "--lowering", LOWERING,
         "--results", str(results), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # A shell may start us with SIGINT ignored; the campaign must see Ctrl-C.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_programs(results: Path, n: int, proc: subprocess.Popen[str],
                      limit: float = 60) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit and proc.poll() is None:
        if results.exists() and results.read_bytes().count(b'"kind": "program"') >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} program records after {limit}s")


def assert_valid(results: Path) -> list[dict]:
    """Every line is a JSON object, but a torn last line that read_records skips."""
    raw = results.read_bytes()
    lines = raw.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    for ln in lines:
        if ln:
            assert isinstance(json.loads(ln), dict), ln[:200]
    records = read_records(results)
    assert len(records) == sum(1 for ln in lines if ln)
    if tail:
        with pytest.raises(ValueError):
            json.loads(tail)
    for r in records:
        if r["kind"] == "program":
            assert PROGRAM_KEYS <= set(r), r
            assert set(r["results"]) == {LOWERING}
            res = r["results"][LOWERING]
            assert res["status"] in ("ok", "rejected", "crash", "timeout")
            assert len(res["verdicts"]) == 10
    return records


def programs_of(records: list[dict]) -> list[str]:
    return [r["program"] for r in records if r["kind"] == "program"]


@pytest.mark.slow
def test_sigkill_leaves_a_valid_file_and_resume_finishes(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    proc = start_fuzz(results, "--max-examples", "2000")
    wait_for_programs(results, 1, proc)
    time.sleep(0.5)
    proc.kill()
    proc.communicate()
    before = assert_valid(results)
    (campaign,) = {r["campaign"] for r in before}
    assert before[0]["kind"] == "campaign-start"
    assert not any(r["kind"] == "campaign-end" for r in before)

    res = cli("fuzz", "--results", str(results), "--resume", "--time-budget", "4",
              "--no-shrink")
    assert res.returncode in (0, 1), res.stderr
    assert f"resuming campaign {campaign}" in res.stderr
    after = assert_valid(results)
    assert after[: len(before)] == before  # nothing recorded is lost or rewritten
    assert after[-1]["kind"] == "campaign-end" and after[-1]["campaign"] == campaign
    texts = programs_of(after)
    assert len(texts) == len(set(texts)) > len(programs_of(before))
    ids = [r["id"] for r in after if r["kind"] == "program"]
    assert len(ids) == len(set(ids))
    assert after[-1]["summary"]["examples"] == len(texts)


@pytest.mark.slow
def test_resume_reaches_what_an_uninterrupted_campaign_records(tmp_path: Path) -> None:
    args = ["--max-examples", "150", "--no-shrink", "--seed", "5", "--json"]
    whole = tmp_path / "whole.jsonl"
    res = cli("fuzz", "--lowering", LOWERING, "--results", str(whole), *args)
    assert res.returncode == 1, res.stderr
    full = read_records(whole)
    # A campaign "killed" after 40 programs, in the middle of writing the 41st.
    cut = tmp_path / "cut.jsonl"
    lines = whole.read_text().splitlines(keepends=True)
    cut.write_text("".join(lines[:41]) + lines[41][:57])
    res = cli("fuzz", "--results", str(cut), "--resume", *args[:2], "--json")
    assert res.returncode == 1, res.stderr
    resumed = read_records(cut)
    assert programs_of(resumed) == programs_of(full)
    end_full, end_resumed = full[-1]["summary"], resumed[-1]["summary"]
    for key in ("examples", "by_invariant", "by_lowering"):
        assert end_resumed[key] == end_full[key]
    assert {(v["lowering"], v["invariant"]) for v in end_resumed["violations"]} == \
        {(v["lowering"], v["invariant"]) for v in end_full["violations"]}
    assert json.loads(res.stdout)["resumed"] == 40
    kinds = [r["kind"] for r in resumed]
    assert kinds.count("campaign-start") == 1 and kinds.count("campaign-resume") == 1
    assert cut.read_text().count("\n") == len(resumed) + 1  # the torn line, sealed


@pytest.mark.slow
def test_ctrl_c_exits_130_with_a_resumable_file(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    proc = start_fuzz(results, "--max-examples", "2000")
    wait_for_programs(results, 1, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    records = assert_valid(results)
    assert results.read_bytes().endswith(b"\n")
    assert not any(r["kind"] == "campaign-end" for r in records)


@pytest.mark.nightly  # a campaign of about 13 s: nightly (`pytest -m nightly`), not CI
def test_time_budget_stops_cleanly_with_end_record_and_report(tmp_path: Path) -> None:
    report = tmp_path / "report"
    t0 = time.monotonic()
    res = cli("fuzz", "--lowering", LOWERING, "--max-examples", "1000000", "--time-budget", "2",
              "--report", str(report), "--invariant", "lowering-complete", "--seed", "0")
    took = time.monotonic() - t0
    assert res.returncode == 1, res.stderr
    assert "time budget of 2s spent" in res.stdout
    assert "progress: " in res.stderr and "programs, " in res.stderr
    records = read_records(report / "results.jsonl")
    end = records[-1]
    assert end["kind"] == "campaign-end" and end["stopped_by"] == "time-budget"
    assert (report / "index.html").is_file()
    assert took < 60


def test_resume_refuses_what_it_cannot_resume(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "none.jsonl"
    assert main(["fuzz", "--results", str(missing), "--resume"]) == 2
    assert "no such results file" in capsys.readouterr().err
    done = tmp_path / "done.jsonl"
    with ResultsWriter(done) as w:
        w.write({"kind": "campaign-start", "campaign": "a", "lowerings": [LOWERING]})
        w.write({"kind": "campaign-end", "campaign": "a"})
    assert main(["fuzz", "--results", str(done), "--resume"]) == 2
    assert "no unfinished campaign" in capsys.readouterr().err
    assert main(["fuzz", "--resume"]) == 2
    assert "--results FILE" in capsys.readouterr().err
    open_one = tmp_path / "open.jsonl"
    with ResultsWriter(open_one) as w:
        w.write({"kind": "campaign-start", "campaign": "b", "lowerings": [LOWERING]})
    assert main(["fuzz", "--results", str(open_one), "--resume", "--lowering",
                 "xdsl:llvm16"]) == 2
    assert "differs from campaign b" in capsys.readouterr().err


def test_writer_seals_a_torn_line(tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    f.write_bytes(b'{"kind": "program", "id": 1}\n{"kind": "prog')
    with ResultsWriter(f) as w:
        w.write({"kind": "campaign-end", "campaign": "x"})
    assert [r["kind"] for r in read_records(f)] == ["program", "campaign-end"]
    assert os.path.getsize(f) == len(f.read_bytes())


@pytest.mark.slow
def test_resume_after_a_kill_among_violation_records(tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    res = cli("fuzz", "--lowering", LOWERING, "--results", str(whole), "--max-examples", "100",
              "--no-shrink", "--seed", "2")
    assert res.returncode == 1, res.stderr
    lines = whole.read_text().splitlines(keepends=True)
    kinds = [json.loads(ln)["kind"] for ln in lines]
    first_violation = kinds.index("violation")
    assert kinds.count("violation") >= 2
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[: first_violation + 1]))
    res = cli("fuzz", "--results", str(cut), "--resume", "--no-shrink")
    assert res.returncode == 1, res.stderr
    violations = [r for r in read_records(cut) if r["kind"] == "violation"]
    full = [r for r in read_records(whole) if r["kind"] == "violation"]
    assert sorted(r["id"] for r in violations) == sorted(r["id"] for r in full)
    assert sorted((r["lowering"], r["invariant"]) for r in violations) == \
        sorted((r["lowering"], r["invariant"]) for r in full)
    assert read_records(cut)[-1]["kind"] == "campaign-end"
