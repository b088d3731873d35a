"""Command-line conventions a new user expects (issue 29), each through the
real CLI: a subprocess of `gpu-alloc-verify`, or `verify.cli.main`.

A closed pipe is quiet; `check` takes several files and `-`; `-j 0` is one
worker per available core; every option's help shows its default; `report`
has a default output; `fuzz` draws a fresh seed per run unless given one;
`replay --id` prints the counterexample; the progress bar fits 80 columns,
has an ETA and honours NO_COLOR.  The in-process xDSL lowering
(`xdsl:pr69969`) keeps each case to a few seconds.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.model.results import read_records
from tests.cli.test_exit_status import OPAQUE_FLAG, SYNC_PLAIN
from tests.conftest import SYNC_SHARED, need_mlir_opt

LOWERING = "xdsl:pr69969"
# A sync, not host_shared gpu.alloc: pr69969 leaves it unconverted
# (lowering-complete violated at 2:8).
VIOLATED = """func.func @main() {
  %0 = gpu.alloc () : memref<16xf32>
  return
}
"""
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def exe() -> str:
    found = Path(sys.executable).with_name("gpu-alloc-verify")
    return str(found) if found.exists() else shutil.which("gpu-alloc-verify") or "gpu-alloc-verify"


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without what picks the seed or the colour."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CI", "HYPOTHESIS_PROFILE", "NO_COLOR", "COLUMNS")}
    env.update(extra)
    return env


def run(*argv: str, input: str | None = None, env: dict[str, str] | None = None,
        timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([exe(), *argv], input=input, capture_output=True, text=True,
                          env=env or clean_env(), timeout=timeout)


def write(tmp_path: Path, name: str, text: str) -> str:
    f = tmp_path / name
    f.write_text(text)
    return str(f)


def json_stream(text: str) -> list[dict[str, Any]]:
    """The objects `--json` printed, one after another."""
    decoder, out, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        obj, i = decoder.raw_decode(text, i)
        out.append(obj)
    return out


# -- a closed pipe ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["check", "FILE", "--lowering", LOWERING],
                                  ["fuzz", "--lowering", LOWERING, "--max-examples", "3",
                                   "-j", "1", "--seed", "1", "--no-shrink"]])
def test_a_pipe_closed_before_any_output_ends_the_command_quietly(
        tmp_path: Path, argv: list[str]) -> None:
    argv = [write(tmp_path, "v.mlir", VIOLATED) if a == "FILE" else a for a in argv]
    # Its reader gone before the command writes a byte (it takes a second to
    # start): every write to stdout fails.
    proc = subprocess.Popen([exe(), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=clean_env(), text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    rc = proc.wait(timeout=240)
    assert rc == 141, err  # 128 + SIGPIPE: what the shell reports for `cat` there
    assert "Broken pipe" not in err and "Traceback" not in err and "Exception" not in err


@pytest.mark.slow
def test_head_reads_a_line_and_the_rest_is_quiet(tmp_path: Path) -> None:
    files = [write(tmp_path, f"v{k}.mlir", VIOLATED) for k in range(3)]
    cmd = " ".join([exe(), "check", *files, "--lowering", LOWERING])
    for pipeline in (f"{cmd} | head -n 1", f"{exe()} fuzz --help | head -n 1"):
        proc = subprocess.run(["bash", "-c", f"set -o pipefail; {pipeline}"],
                              capture_output=True, text=True, env=clean_env(), timeout=240)
        assert proc.returncode in (0, 141), proc.stderr  # 0: all written before head left
        assert len(proc.stdout.splitlines()) == 1
        assert "Broken pipe" not in proc.stderr and "Traceback" not in proc.stderr


# -- check: several files, and - -------------------------------------------------------


@pytest.mark.slow
def test_check_reads_standard_input_as_stdin(tmp_path: Path) -> None:
    proc = run("check", "-", "--lowering", LOWERING, "--json", input=VIOLATED)
    assert proc.returncode == 1, proc.stderr
    (summary,) = json_stream(proc.stdout)
    details = [v["detail"] for v in summary["violations"]]
    assert any("<stdin>:2:8" in d for d in details), details
    text = run("check", "-", "--lowering", LOWERING, input=VIOLATED)
    assert text.returncode == 1
    assert "Source: <stdin>" in text.stdout
    assert f"reproduce: gpu-alloc-verify check - --lowering {LOWERING}" in text.stdout


@pytest.mark.slow
def test_check_of_several_files_judges_each_and_exits_with_the_worst(tmp_path: Path) -> None:
    clean = write(tmp_path, "clean.mlir", SYNC_SHARED)
    bad = write(tmp_path, "bad.mlir", VIOLATED)
    missing = str(tmp_path / "missing.mlir")
    xml = tmp_path / "junit.xml"

    proc = run("check", clean, bad, "--lowering", LOWERING, "--junitxml", str(xml))
    assert proc.returncode == 1, proc.stderr
    assert f"==> {clean} <==" in proc.stdout and f"==> {bad} <==" in proc.stdout
    assert proc.stdout.index(clean) < proc.stdout.index(f"==> {bad}")
    assert f"  {clean}: no violation" in proc.stdout and f"  {bad}: violated" in proc.stdout
    suites = ET.parse(xml).getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == [f"gpu-alloc-verify check {f}"
                                               for f in (clean, bad)]
    assert ET.parse(xml).getroot().get("failures") == "1"

    proc = run("check", clean, "-", "--lowering", LOWERING, "--json", input=SYNC_SHARED)
    assert proc.returncode == 0, proc.stderr
    assert [s["violations"] for s in json_stream(proc.stdout)] == [[], []]

    # A file that cannot be read: the others are still checked; 2 beats 1.
    proc = run("check", missing, bad, "--lowering", LOWERING)
    assert proc.returncode == 2
    assert "missing.mlir: no such file" in proc.stderr
    assert f"  {bad}: violated" in proc.stdout and f"  {missing}: error" in proc.stdout

    assert run("check", "-", "-", "--lowering", LOWERING, input="").returncode == 2


@pytest.fixture
def opaque_flag(tmp_path: Path) -> str:
    """mlir-opt-19 whose alloc flags the checker cannot follow: host-shared-flag unknown."""
    real = need_mlir_opt(19)
    script = tmp_path / "opaque-flag-mlir-opt"
    script.write_text(f"#!{sys.executable}\nREAL = {real!r}\n{OPAQUE_FLAG}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"mlir-opt:{script}"


@pytest.mark.slow
def test_a_violation_in_one_file_beats_unknown_in_another(tmp_path: Path,
                                                          opaque_flag: str) -> None:
    unknown = write(tmp_path, "unknown.mlir", SYNC_SHARED)
    violated = write(tmp_path, "violated.mlir", SYNC_PLAIN)
    assert run("check", unknown, "--lowering", opaque_flag).returncode == 3
    proc = run("check", unknown, violated, "--lowering", opaque_flag)
    assert proc.returncode == 1, proc.stderr
    assert f"  {unknown}: unknown or nothing checked" in proc.stdout


# -- -j 0 ----------------------------------------------------------------------------


@pytest.mark.slow
def test_jobs_zero_is_one_worker_per_available_core() -> None:
    cores = sorted(os.sched_getaffinity(0))
    # Pinned to one core: "available" is the affinity mask, not the machine.
    proc = subprocess.run(
        [exe(), "bench", "-j", "0", "--json", "--programs", "1", "--repeat", "1",
         "--lowering", LOWERING], capture_output=True, text=True, env=clean_env(),
        preexec_fn=lambda: os.sched_setaffinity(0, cores[:1]), timeout=240)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["jobs"] == 1
    bad = run("fuzz", "-j", "-1", "--lowering", LOWERING)
    assert bad.returncode == 2 and "-j/--jobs: must be 0 (one per core) or more" in bad.stderr


# -- help shows defaults -----------------------------------------------------------------


COMMANDS = ["fuzz", "check", "replay", "report", "triage", "findings", "bench", "selfcheck"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_the_default_of_every_option_that_takes_a_value(command: str) -> None:
    proc = run(command, "--help", env=clean_env(COLUMNS="200"))
    assert proc.returncode == 0
    options = proc.stdout.split("options:", 1)[1]
    # One block per option: its line and the indented help lines under it.
    blocks = [b.strip() for b in re.split(r"\n(?=  -)", options) if b.strip().startswith("-")]
    valued = []
    for block in blocks:
        invocation = re.split(r"\s{2,}|\n", block)[0]  # "-j N, --jobs N" or "--json"
        if any(" " in form for form in invocation.split(", ")):  # takes a value
            valued.append((invocation, " ".join(block.split())))
    assert valued
    missing = [inv for inv, text in valued if "default" not in text]
    assert not missing, f"{command}: no default shown for {missing}"


# -- report without -o -------------------------------------------------------------------


def test_report_without_output_writes_beside_the_results(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "night.jsonl"
    # No violation (the fixed lowering, one invariant): no root cause to render.
    assert main(["fuzz", "--lowering", "xdsl:split-api", "--max-examples", "3", "-j", "1",
                 "--seed", "0", "--no-shrink", "--invariant", "stream-no-leak",
                 "--results", str(results)]) == 0
    capsys.readouterr()
    assert main(["report", str(results)]) == 0
    assert f"report: {tmp_path / 'night-report'}/index.html" in capsys.readouterr().out
    assert (tmp_path / "night-report" / "index.html").is_file()


# -- the seed --------------------------------------------------------------------------


FUZZ = ["fuzz", "--lowering", LOWERING, "--max-examples", "5", "-j", "1", "--no-shrink"]


def programs(results: Path) -> list[str]:
    return [r["program"] for r in read_records(results) if r["kind"] == "program"]


@pytest.mark.slow
def test_fuzz_draws_a_new_seed_per_run_and_seed_reproduces_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seeds = []
    for name in ("a", "b"):
        results = tmp_path / f"{name}.jsonl"
        proc = run(*FUZZ, "--results", str(results))
        assert proc.returncode in (0, 1), proc.stderr
        m = re.search(r"^seed: (\d+) \(rerun with --seed (\d+)\)$", proc.stderr, re.M)
        assert m and m.group(1) == m.group(2), proc.stderr
        start = read_records(results)[0]
        assert start["kind"] == "campaign-start"
        assert start["seed"] == int(m.group(1))  # recorded: --resume reuses it
        seeds.append(int(m.group(1)))
    assert seeds[0] != seeds[1]
    assert programs(tmp_path / "a.jsonl") != programs(tmp_path / "b.jsonl")

    # The printed seed draws the first run's programs again.
    rerun = tmp_path / "rerun.jsonl"
    assert main([*FUZZ, "--seed", str(seeds[0]), "--results", str(rerun)]) in (0, 1)
    assert "seed:" not in capsys.readouterr().err  # given, not drawn
    assert programs(rerun) == programs(tmp_path / "a.jsonl")

    # CI stays derandomized, as Hypothesis's ci profile.
    results = tmp_path / "ci.jsonl"
    proc = run(*FUZZ, "--results", str(results), env=clean_env(CI="true"))
    assert read_records(results)[0]["seed"] == 0
    assert "seed: 0 (rerun with --seed 0)" in proc.stderr


# -- replay --id -----------------------------------------------------------------------


def test_replay_of_an_id_prints_its_counterexample(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "r.jsonl"
    assert main(["fuzz", "--lowering", LOWERING, "--max-examples", "10", "-j", "1",
                 "--seed", "0", "--invariant", "lowering-complete", "--results",
                 str(results)]) == 1
    capsys.readouterr()
    vid = next(r["id"] for r in read_records(results) if r["kind"] == "violation")
    assert main(["replay", str(results), "--id", vid]) == 1
    out = capsys.readouterr().out
    assert f"{vid}: lowering-complete on {LOWERING}" in out
    assert f"ERROR: lowering-complete violated on {LOWERING}  [{vid}]" in out
    assert "Source:" in out and "gpu.alloc" in out
    assert f"Lowered by {LOWERING}" in out and ">>" in out  # the offending call marked


# -- the progress line -------------------------------------------------------------------


def progress_on_a_terminal(**env: str) -> str:
    """What a 3-second campaign writes to a terminal on stderr."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [exe(), "fuzz", "--lowering", LOWERING, "--max-examples", "100000", "--time-budget",
         "3", "-j", "1", "--seed", "0", "--no-shrink"],
        stdout=subprocess.DEVNULL, stderr=slave, env=clean_env(TERM="xterm", **env))
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) in (0, 1)
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_progress_bar_fits_80_columns_with_an_eta_and_colour() -> None:
    raw = progress_on_a_terminal(COLUMNS="200")  # a wide terminal: still 80 at most
    bars = [ANSI.sub("", seg).rstrip() for seg in re.split(r"[\r\n]", raw) if "programs" in seg]
    assert bars
    assert max(len(b) for b in bars) <= 80, max(bars, key=len)
    assert any(", ETA " in b for b in bars)
    assert "\x1b[31m" in raw  # pr69969's violations, in red


@pytest.mark.slow
def test_no_color_turns_colour_off() -> None:
    raw = progress_on_a_terminal(NO_COLOR="1", COLUMNS="40")
    assert "\x1b" not in raw
    bars = [seg.rstrip() for seg in re.split(r"[\r\n]", raw) if "programs" in seg]
    assert bars and max(len(b) for b in bars) <= 40  # a narrow terminal: its width
