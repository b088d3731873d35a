"""The exit status never lies, and `unknown` verdicts are loud.

0: no violation and nothing unknown; 1: a violation (only then); 2: usage,
input, environment or internal error; 3: nothing violated but some verdict
unknown (`--allow-unknown`: 0).  Every case runs the real CLI (in process
through `verify.cli.main`, or as a subprocess), with real `mlir-opt` where a
case needs one.

`unknown` comes from a real mlir-opt-19 behind a wrapper that replaces the
i8 `host_shared` constant of each lowered `mgpuMemAlloc` by the result of a
call to an external function: the checker cannot follow that value, so
`host-shared-flag` is unknown ("flag ... is not a constant") on every
program with a lowered allocation; no monkeypatching of the solver.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify import verify
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.invariants.pipeline import active_invariants
from gpu_alloc_verify.verify.model.results import read_records
from tests.conftest import SYNC_SHARED, need_mlir_opt

# mlir-opt-19 leaves a sync, not host_shared gpu.alloc unconverted:
# lowering-complete violated.  The host_shared one is lowered (flag opaque
# behind the wrapper: unknown).
SYNC_PLAIN = """func.func @main() {
  %0 = gpu.alloc host_shared () : memref<16xf32>
  %1 = gpu.alloc () : memref<16xf32>
  return
}
"""
OPAQUE_FLAG = r'''
import re
import subprocess
import sys

CONSTANT = re.compile(r'"llvm\.mlir\.constant"\(\) <\{value = [01] : i8\}> : \(\) -> i8')
CALL = ('"llvm.call"() <{CConv = #llvm.cconv<ccc>, TailCallKind = #llvm.tailcallkind<none>, '
        'callee = @opaqueFlag, fastmathFlags = #llvm.fastmath<none>}> : () -> i8')
proc = subprocess.run([REAL, *sys.argv[1:]], input=sys.stdin.read(), capture_output=True,
                      text=True)
sys.stdout.write(CONSTANT.sub(lambda m: CALL, proc.stdout))
sys.stderr.write(proc.stderr)
sys.exit(proc.returncode)
'''
PY = sys.executable


@pytest.fixture
def opaque_flag(tmp_path: Path) -> str:
    """`--lowering` spec of mlir-opt-19 whose alloc flags the checker cannot follow."""
    real = need_mlir_opt(19)
    script = tmp_path / "opaque-flag-mlir-opt"
    script.write_text(f"#!{PY}\nREAL = {real!r}\n{OPAQUE_FLAG}")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return f"mlir-opt:{script}"


def mlir(tmp_path: Path, text: str, name: str = "prog.mlir") -> str:
    f = tmp_path / name
    f.write_text(text)
    return str(f)


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gpu-alloc-verify: "), err
    return lines[0]


def cli(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "gpu_alloc_verify", *argv], capture_output=True, text=True,
                          timeout=timeout, cwd=Path(__file__).parents[2])


# -- 0 / 1 / 3 on check --------------------------------------------------------


def test_check_clean_exits_0(tmp_path: Path, capsys) -> None:
    need_mlir_opt(19)
    rc = main(["check", mlir(tmp_path, SYNC_SHARED), "--lowering", "mlir-opt-19", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert out["unknown"] == [] and out["violations"] == []


def test_check_unknown_exits_3_and_is_loud(tmp_path: Path, opaque_flag: str, capsys) -> None:
    f = mlir(tmp_path, SYNC_SHARED)
    rc = main(["check", f, "--lowering", opaque_flag])
    captured = capsys.readouterr()
    assert rc == 3
    assert "host-shared-flag" in captured.out and "is not a constant" in captured.out
    summary = captured.out.strip().splitlines()[-1]
    assert "0 violated" in summary and "unknown" in summary
    assert "exit 3" in captured.err and "--allow-unknown" in captured.err

    rc = main(["check", f, "--lowering", opaque_flag, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 3
    assert {"lowering": opaque_flag, "invariant": "host-shared-flag",
            "reason": f"flag of mgpuMemAlloc for {f}:2:8 is not a constant"} in out["unknown"]
    assert out["by_invariant"]["host-shared-flag"]["unknown"] == 1
    assert all(set(u) == {"lowering", "invariant", "reason"} for u in out["unknown"])


def test_check_allow_unknown_exits_0(tmp_path: Path, opaque_flag: str, capsys) -> None:
    rc = main(["check", mlir(tmp_path, SYNC_SHARED), "--lowering", opaque_flag,
               "--allow-unknown"])
    assert rc == 0
    assert "unknown" in capsys.readouterr().out  # allowed, still shown


def test_check_violation_wins_over_unknown(tmp_path: Path, opaque_flag: str, capsys) -> None:
    f = mlir(tmp_path, SYNC_PLAIN)
    for extra in ([], ["--allow-unknown"]):
        rc = main(["check", f, "--lowering", opaque_flag, "--json", *extra])
        out = json.loads(capsys.readouterr().out)
        assert rc == 1
        assert out["unknown"] and any(v["invariant"] == "lowering-complete"
                                      for v in out["violations"])


@pytest.mark.slow
def test_check_exit_3_as_a_subprocess(tmp_path: Path, opaque_flag: str) -> None:
    proc = cli("check", mlir(tmp_path, SYNC_SHARED), "--lowering", opaque_flag)
    assert proc.returncode == 3, proc.stderr
    proc = cli("check", mlir(tmp_path, SYNC_SHARED), "--lowering", opaque_flag,
               "--allow-unknown")
    assert proc.returncode == 0, proc.stderr


# -- misspelt --invariant ------------------------------------------------------


@pytest.mark.parametrize("command", ["check", "fuzz"])
def test_misspelt_invariant_exits_2(command: str, tmp_path: Path, capsys) -> None:
    argv = (["check", mlir(tmp_path, SYNC_SHARED)] if command == "check"
            else ["fuzz", "--max-examples", "2", "-j", "1"])
    rc = main([*argv, "--lowering", "xdsl:pr69969", "--invariant", "stream-no-leak",
               "--invariant", "stream-no-leek"])
    captured = capsys.readouterr()
    assert rc == 2
    line = one_error_line(captured.err)
    assert "'stream-no-leek'" in line
    assert all(inv in line for inv in active_invariants())
    assert captured.out == ""


# -- a pipeline mlir-opt refuses -------------------------------------------------


def test_bad_pipeline_exits_2_on_check(tmp_path: Path, capsys) -> None:
    need_mlir_opt(19)
    rc = main(["check", mlir(tmp_path, SYNC_SHARED), "--lowering", "mlir-opt-19",
               "--pipeline", "no-such-pass"])
    captured = capsys.readouterr()
    assert rc == 2
    line = one_error_line(captured.err)
    assert "no-such-pass" in line and "mlir-opt-19" in line
    assert captured.out == ""


@pytest.mark.parametrize("pipeline", ["no-such-pass", "gpu-to-llvm{bogus=1}"])
def test_bad_pipeline_exits_2_on_fuzz(pipeline: str, tmp_path: Path, capsys) -> None:
    need_mlir_opt(19)
    results = tmp_path / "r.jsonl"
    rc = main(["fuzz", "--lowering", "mlir-opt-19", "--pipeline", pipeline,
               "--max-examples", "3", "-j", "1", "--results", str(results)])
    assert rc == 2
    assert pipeline in one_error_line(capsys.readouterr().err)
    assert not results.exists()  # refused before the campaign started


def test_rejected_program_is_still_a_verdict(tmp_path: Path, capsys) -> None:
    need_mlir_opt(16)
    rc = main(["check", mlir(tmp_path, SYNC_SHARED), "--lowering", "mlir-opt-16", "--json"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    # mlir-opt-16 fails to legalize gpu.alloc: rejected, not an error (2); but
    # with no other lowering nothing was checked, which is never green (0).
    assert rc == 3
    assert out["by_lowering"]["mlir-opt-16"]["sync-alloc-no-stream"]["rejected"] == 1
    assert "nothing checked: mlir-opt-16 rejected the file" in captured.err


# -- missing input files -----------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("command", ["replay", "report", "check"])
def test_missing_file_exits_2_with_one_line(command: str, tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.jsonl")
    argv = {"replay": ["replay", missing], "report": ["report", missing, "-o",
                                                      str(tmp_path / "out")],
            "check": ["check", missing, "--lowering", "xdsl:pr69969"]}[command]
    proc = cli(*argv)
    assert proc.returncode == 2, proc.stderr
    assert "nope.jsonl" in one_error_line(proc.stderr)
    assert "Traceback" not in proc.stderr


def test_unwritable_report_dir_exits_2_with_one_line(tmp_path: Path, opaque_flag: str,
                                                     capsys) -> None:
    results = tmp_path / "r.jsonl"
    assert main(["fuzz", "--lowering", opaque_flag, "--invariant", "host-shared-flag",
                 "--max-examples", "3", "-j", "1", "--seed", "0", "--results", str(results),
                 "--allow-unknown"]) == 0
    blocker = tmp_path / "file"
    blocker.write_text("")
    capsys.readouterr()
    assert main(["report", str(results), "-o", str(blocker / "out")]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "internal error" not in line and str(blocker) in line


# -- replay with the campaign's settings ---------------------------------------------


def fuzz_results(tmp_path: Path, capsys, *argv: str) -> Path:
    results = tmp_path / "r.jsonl"
    rc = main(["fuzz", "--max-examples", "30", "-j", "1", "--seed", "0", "--results",
               str(results), *argv])
    capsys.readouterr()
    assert rc == 1
    return results


def replay_json(capsys, results: Path) -> tuple[int, list[dict[str, Any]]]:
    rc = main(["replay", str(results), "--json"])
    return rc, json.loads(capsys.readouterr().out)


def strip_settings(results: Path, *keys: str) -> None:
    """As an older writer left them: settings only in campaign-start."""
    records = read_records(results)
    for r in records:
        if r["kind"] == "violation":
            for k in keys:
                r.pop(k, None)
    results.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.mark.slow
def test_replay_uses_the_campaigns_runtime(tmp_path: Path, capsys) -> None:
    # pr191661's sync dealloc passes a null stream to mgpuMemFree: a
    # violation on the sycl profile only.
    results = fuzz_results(tmp_path, capsys, "--lowering", "xdsl:pr191661", "--runtime",
                           "sycl", "--invariant", "runtime-contract")
    assert [r["runtime"] for r in read_records(results) if r["kind"] == "violation"] == ["sycl"]
    rc, out = replay_json(capsys, results)
    assert rc == 1 and [(s["verdict"], s["runtime"]) for s in out] == [("violated", "sycl")]
    strip_settings(results, "runtime", "pipeline", "solver_timeout_ms")
    rc, out = replay_json(capsys, results)
    assert rc == 1 and [(s["verdict"], s["runtime"]) for s in out] == [("violated", "sycl")]


@pytest.mark.slow
def test_replay_uses_the_campaigns_pipeline(tmp_path: Path, capsys) -> None:
    need_mlir_opt(19)
    # A pipeline that lowers nothing: every gpu op stays (lowering-complete).
    results = fuzz_results(tmp_path, capsys, "--lowering", "mlir-opt-19", "--pipeline",
                           "canonicalize", "--invariant", "lowering-complete",
                           "--supported", "19")
    strip_settings(results, "pipeline")
    rc, out = replay_json(capsys, results)
    assert rc == 1
    assert [(s["verdict"], s["pipeline"]) for s in out] == [("violated", "canonicalize")]


def test_replay_of_a_recorded_bad_pipeline_exits_2(tmp_path: Path, capsys) -> None:
    need_mlir_opt(19)
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({
        "kind": "violation", "campaign": "c1", "id": "c1-v0", "lowering": "mlir-opt-19",
        "invariant": "lowering-complete", "pipeline": "no-such-pass",
        "program": SYNC_SHARED}) + "\n")
    assert main(["replay", str(results)]) == 2
    assert "no-such-pass" in one_error_line(capsys.readouterr().err)


# -- fuzz: unknown only exits 3, and shows it everywhere ---------------------------


class _Html(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def test_fuzz_unknown_exits_3_json_text_and_report(tmp_path: Path, opaque_flag: str,
                                                   capsys) -> None:
    argv = ["fuzz", "--lowering", opaque_flag, "--invariant", "host-shared-flag",
            "--max-examples", "20", "-j", "1", "--no-shrink", "--seed", "0"]
    rc = main([*argv, "--json", "--report", str(tmp_path / "rep")])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert rc == 3, captured.err
    assert out["violations"] == []
    n = out["by_invariant"]["host-shared-flag"]["unknown"]
    assert n > 0
    assert out["unknown"] and all(
        u["lowering"] == opaque_flag and u["invariant"] == "host-shared-flag"
        and "is not a constant" in u["reason"] for u in out["unknown"])
    assert sum(u["count"] for u in out["unknown"]) == n
    assert "exit 3" in captured.err

    html = (tmp_path / "rep" / "index.html").read_text()
    dom = _Html()
    dom.feed(html)
    cells = [a for t, a in dom.tags if t == "td" and a.get("data-invariant")
             == "host-shared-flag"]
    assert cells and cells[0]["class"] == "unknown"
    assert "is not a constant" in cells[0]["title"]
    assert any(t == "a" and "unknown" in a.get("class", "").split() and "badge" in a["class"]
               for t, a in dom.tags)
    assert ("section", {"id": "unknown", "class": "unknown-list"}) in dom.tags
    assert "is not a constant" in html
    assert "table.matrix td.unknown" in html and "--unknown-bg: #fff1b8" in html  # yellow

    rc = main([*argv, "--allow-unknown"])
    text = capsys.readouterr().out
    assert rc == 0
    assert f"0 violated, {n} unknown" in text.strip().splitlines()[-1]
    assert "UNKNOWN" in text and "is not a constant" in text


# -- internal errors and interrupts ----------------------------------------------------


def _boom(*args: Any, **kw: Any) -> Any:
    raise RuntimeError("boom\nsecond line")


@pytest.mark.parametrize("debug", ["none", "before", "after"])
def test_internal_error_exits_2_with_one_line(debug: str, tmp_path: Path,
                                              monkeypatch, capsys) -> None:
    monkeypatch.setattr(verify.campaign.check_file, "check_file", _boom)
    argv = ["check", mlir(tmp_path, SYNC_SHARED), "--lowering", "xdsl:pr69969"]
    argv = {"none": argv, "before": ["--debug", *argv], "after": [*argv, "--debug"]}[debug]
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("gpu-alloc-verify: internal error: RuntimeError: boom second line")
    if debug == "none":
        assert last.endswith("(run with --debug for the traceback)")
        assert one_error_line(err) == last
    else:
        assert "Traceback (most recent call last)" in err and "_boom" in err
        assert "--debug for the traceback" not in err


def test_internal_error_in_a_subprocess_is_not_exit_1(tmp_path: Path) -> None:
    # A results file whose line is a JSON object but whose violation record's
    # program is not a string: an input error, one line, exit 2.
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps({"kind": "violation", "lowering": "xdsl:pr69969",
                                   "invariant": "stream-no-leak", "program": 3}) + "\n")
    proc = cli("replay", str(results))
    assert proc.returncode == 2, proc.stderr
    one_error_line(proc.stderr)


def test_keyboard_interrupt_exits_130(tmp_path: Path, monkeypatch, capsys) -> None:
    def interrupt(*args: Any, **kw: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(verify.campaign.check_file, "check_file", interrupt)
    rc = main(["check", mlir(tmp_path, SYNC_SHARED), "--lowering", "xdsl:pr69969"])
    assert rc == 130
    assert "interrupted" in capsys.readouterr().err
