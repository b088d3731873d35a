"""`fuzz --resume` keeps everything (issue 44, item 4): the campaign-start
record holds the command line's options (--report, -j, ...), --resume
restores those the resume command line does not give, and the hint an
interrupted campaign prints says what it restores."""

from __future__ import annotations

import argparse
import json
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli.fuzz_args import add_arguments
from gpu_alloc_verify.verify.cli.fuzz_resume import (
    recorded_options,
    restore_options,
    resume_hint,
)
from gpu_alloc_verify.verify.model.results import ResultsWriter, read_records
from tests.reliability.conftest import ROOT, cli
from tests.reliability.test_campaign_durability import start_fuzz, wait_for_programs


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_recorded_options_come_back_where_the_command_line_gives_none() -> None:
    first = _args("--report", "out", "-j", "3", "--batch-size", "7", "--json")
    recorded = json.loads(json.dumps(recorded_options(first)))  # as the file keeps it
    again = _args("--resume")
    restored = restore_options(again, recorded)
    assert (again.report, again.jobs, again.batch_size, again.json) == ("out", 3, 7, True)
    assert restored == ["--report out", "--json", "-j 3", "--batch-size 7"]


def test_an_explicit_flag_on_the_resume_command_line_wins() -> None:
    recorded = recorded_options(_args("--report", "out", "-j", "3"))
    again = _args("--resume", "-j", "8", "--report", "elsewhere")
    assert restore_options(again, recorded) == []
    assert (again.jobs, again.report) == (8, "elsewhere")


def test_a_results_file_without_options_restores_nothing() -> None:
    again = _args("--resume")
    assert restore_options(again, None) == []
    assert again.report is None and again.jobs == 0


def test_the_hint_says_what_it_restores() -> None:
    args = _args("--results", "c.jsonl", "--report", "my out", "-j", "2")
    assert resume_hint("c.jsonl", args) == (
        "gpu-alloc-verify fuzz --results c.jsonl --resume (it restores "
        "--report 'my out', -j 2 from there)")
    assert resume_hint("c.jsonl", _args()) == "gpu-alloc-verify fuzz --results c.jsonl --resume"


def test_resume_of_an_old_results_file_still_works(tmp_path: Path) -> None:
    """A campaign-start written before options were recorded (no "options")."""
    results = tmp_path / "old.jsonl"
    with ResultsWriter(results) as w:
        w.write({"kind": "campaign-start", "campaign": "c1", "lowerings": ["xdsl:pr69969"],
                 "seed": 0, "runtime": "cuda", "config": {"max_examples": 3},
                 "invariants": ["lowering-complete"]})
    res = cli("fuzz", "--results", str(results), "--resume", "--no-shrink", "--json")
    assert res.returncode in (0, 1), res.stderr
    assert "restored" not in res.stderr
    assert read_records(results)[-1]["kind"] == "campaign-end"


def _hint(stderr: str) -> list[str]:
    """The command the interrupted campaign says to run, as argv."""
    line = next(ln for ln in stderr.splitlines() if "continue with: " in ln)
    command = line.split("continue with: ", 1)[1].split(" (it restores ", 1)[0]
    argv = shlex.split(command)
    assert argv[:2] == ["gpu-alloc-verify", "fuzz"], argv
    return argv[1:]


@pytest.mark.slow
def test_resume_after_ctrl_c_writes_the_report(tmp_path: Path) -> None:
    results, report = tmp_path / "c.jsonl", tmp_path / "report"
    proc = start_fuzz(results, "--report", str(report), "-j", "1", "--batch-size", "5",
                      "--max-examples", "40", "--seed", "3", "--no-shrink",
                      "--invariant", "lowering-complete")
    wait_for_programs(results, 5, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert not report.exists()
    assert f"(it restores --report {report}, -j 1, --batch-size 5 from there)" in err
    start = read_records(results)[0]
    assert start["options"]["report"] == str(report) and start["options"]["jobs"] == 1
    res = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", *_hint(err)],
                         capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert res.returncode in (0, 1), res.stderr
    assert f"restored from {results}: --report {report}, -j 1, --batch-size 5" in res.stderr
    assert (report / "index.html").is_file()
    assert f"report: {report}/index.html" in res.stdout
    assert read_records(results)[-1]["kind"] == "campaign-end"
