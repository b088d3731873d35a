"""`--solver-timeout` reaches every Z3 query, and an `unknown` verdict carries
its reason into `--json` and the results file (issue "Reliability", item 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import z3

from gpu_alloc_verify.verify.campaign import check_file, fuzz
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.model.results import read_records

LOWERING = "xdsl:pr69969"
SOURCE = """func.func @main(%c: i1) {
  %t = gpu.wait async
  %0, %t1 = gpu.alloc async [%t] () : memref<16xf32>
  scf.if %c {
    %t2 = gpu.memset async [%t1] %0, %f : memref<16xf32>, f32
    gpu.wait [%t2]
  } else {
    gpu.wait [%t1]
  }
  return
}
"""


@pytest.fixture
def source(tmp_path: Path) -> Path:
    f = tmp_path / "prog.mlir"
    f.write_text(SOURCE.replace("%t2 = gpu.memset async [%t1] %0, %f",
                                "%f = arith.constant 1.0 : f32\n    "
                                "%t2 = gpu.memset async [%t1] %0, %f"))
    return f


@pytest.fixture
def solver_gives_up(monkeypatch) -> None:
    monkeypatch.setattr(z3.Solver, "check", lambda self, *a: z3.unknown)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "timeout")


def spy(monkeypatch, module: Any) -> list[int]:
    seen: list[int] = []
    real = module.check_batch

    def check_batch(*args: Any, **kw: Any) -> Any:
        seen.append(args[2].timeout_ms)  # check_batch(programs, lowerings, options)
        return real(*args, **kw)

    monkeypatch.setattr(module, "check_batch", check_batch)
    return seen


def test_check_passes_the_solver_timeout(source: Path, monkeypatch, capsys) -> None:
    seen: list[int] = []
    real = check_file.judge

    def judge(*args: Any, **kw: Any) -> Any:
        seen.append(args[3].timeout_ms)  # judge(source, outcome, spec, options)
        return real(*args, **kw)

    monkeypatch.setattr(check_file, "judge", judge)
    main(["check", str(source), "--lowering", LOWERING, "--solver-timeout", "123"])
    assert seen == [123]
    main(["check", str(source), "--lowering", LOWERING])
    assert seen[-1] == 2000


def test_fuzz_passes_the_solver_timeout(monkeypatch, capsys) -> None:
    seen = spy(monkeypatch, fuzz)
    # -j 1: the spy patches this process; forked workers would not see it.
    main(["fuzz", "--lowering", LOWERING, "--max-examples", "5", "--solver-timeout", "77",
          "-j", "1", "--seed", "0"])
    assert seen and set(seen) == {77}


@pytest.mark.parametrize("bad", ["0", "-5", "soon"])
def test_bad_solver_timeout_is_a_usage_error(bad: str, source: Path, capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["check", str(source), "--solver-timeout", bad])
    assert e.value.code == 2
    assert "--solver-timeout" in capsys.readouterr().err


def test_unknown_carries_its_reason_in_check_json(source: Path, solver_gives_up,
                                                 capsys) -> None:
    rc = main(["check", str(source), "--lowering", LOWERING, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["unknown"], out
    # The reason names the query that gave up and Z3's own reason.
    assert all(u["reason"].endswith("timeout") and u["lowering"] == LOWERING
               for u in out["unknown"])
    counted = sum(c["unknown"] for c in out["by_lowering"][LOWERING].values())
    assert counted == len(out["unknown"])
    # unknown is never a violation, never holds: exit 3 unless something is violated
    assert rc == (1 if out["violations"] else 3)
    main(["check", str(source), "--lowering", LOWERING])
    assert "timeout" in capsys.readouterr().out


@pytest.mark.slow
def test_unknown_carries_its_reason_in_results_and_fuzz_json(
        tmp_path: Path, solver_gives_up, capsys) -> None:
    results = tmp_path / "r.jsonl"
    # Most queries are decided without Z3 (verify.model.fold, schedule chains):
    # enough programs that some reach the solver that gives up.
    # -j 1: `solver_gives_up` patches this process, not forked workers.
    main(["fuzz", "--lowering", LOWERING, "--max-examples", "150", "--no-shrink",
          "--results", str(results), "--json", "-j", "1", "--seed", "0"])
    out = json.loads(capsys.readouterr().out)
    # Every unknown has its reason; the solver's say "timeout" (a partly
    # lowered program also has unknowns of its own: values it cannot follow).
    assert all(u["reason"] and u["count"] > 0 for u in out["unknown"])
    assert any("timeout" in u["reason"] for u in out["unknown"])
    progs = [r for r in read_records(results) if r["kind"] == "program"]
    with_unknown = [r for r in progs if "unknown" in r["results"][LOWERING]["verdicts"].values()]
    assert with_unknown
    for r in with_unknown:
        res = r["results"][LOWERING]
        unknown = {i for i, v in res["verdicts"].items() if v == "unknown"}
        assert set(res["reasons"]) == unknown
        assert all(res["reasons"].values())
    assert any("timeout" in reason for r in with_unknown
               for reason in r["results"][LOWERING]["reasons"].values())
    assert read_records(results)[-1]["summary"]["unknown"] == out["unknown"]
