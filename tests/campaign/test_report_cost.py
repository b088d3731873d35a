"""The report does not redo work (issue 29: it costs at most the campaign).

Writing a report judges the campaign's violating programs again (triage),
reduces knock-on candidates, then reduces and proves a lit test per root
cause, which reduces the same examples through the same candidate batches.
Checked on a real campaign and real tools (mlir-opt, FileCheck), by
counting, not timing:

- a program's model is read by the fast reader (`verify.triage.fast_model`),
  xDSL's parse only where that declines, and the two give the same model;
- each distinct batch is printed by mlir-opt once, each distinct judgement
  is made once, and each lit program is read once for its buggy and fixed
  lowerings.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.repro import lower_tool
from gpu_alloc_verify.repro.proof import find_filecheck
from gpu_alloc_verify.verify.campaign.report import write_report
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.source import to_program
from gpu_alloc_verify.verify.triage import buckets, fast_model, rejudge
from tests.conftest import collect_programs

MLIR_OPT = find_mlir_opt()
needs_tools = pytest.mark.skipif(MLIR_OPT is None or find_filecheck() is None,
                                 reason="needs mlir-opt and FileCheck (apt-get install "
                                 "mlir-19-tools llvm-19-tools)")


def _generic(texts: list[str]) -> list[str]:
    assert MLIR_OPT is not None
    return [g for g in rejudge.normalize_batch(texts, MLIR_OPT) if g is not None]


@pytest.mark.slow
@needs_tools
def test_fast_model_is_xdsls_model_on_generated_programs() -> None:
    cfg = GenConfig(alloc_spaces=True)  # kernels, host buffers, memory spaces: all on
    texts = [p.to_mlir() for p in collect_programs(120, cfg)]
    read = 0
    for g in _generic(texts):
        model, gap = fast_model.read_model(g, "prog")
        assert model == to_program.model_of(g, "prog")
        assert (gap or "") == ("" if model is not None else to_program.model_gap(g, "prog"))
        read += fast_model._fast(g, "prog") is not None
    assert read >= 0.9 * len(texts)  # the fast reader reads (nearly) all of them


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real campaign's results (xdsl:pr69969 leaves ops unconverted and leaks
    a stream: violations, knock-on candidates and lit tests to write)."""
    out = tmp_path_factory.mktemp("campaign") / "results.jsonl"
    proc = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "fuzz", "--lowering",
                           "xdsl:pr69969", "--max-examples", "60", "--seed", "3", "-j", "1",
                           "--results", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    return out


class _Spy:
    """Counts the calls of a module function, passing each through."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: dict[str, list[Any]] = collections.defaultdict(list)
        self.mp = monkeypatch

    def on(self, module: Any, name: str, key: Any = None) -> None:
        real = getattr(module, name)

        def spy(*args: Any, **kwargs: Any) -> Any:
            self.calls[name].append(key(*args, **kwargs) if key else args)
            return real(*args, **kwargs)

        self.mp.setattr(module, name, spy)


@pytest.mark.slow
@needs_tools
def test_report_reads_and_judges_each_program_once(campaign: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # This process's earlier work would hide repeats; start from nothing.
    for module, cache in ((rejudge, "_NORMALIZED"), (rejudge, "_JUDGED"),
                          (lower_tool, "_PROGRAMS"), (buckets, "_CACHE")):
        monkeypatch.setattr(module, cache, {})
    spy = _Spy(monkeypatch)
    spy.on(rejudge, "_normalize", key=lambda texts, tool, *a: (tool, tuple(texts)))
    spy.on(rejudge, "judge", key=lambda source, outcome, lowering, options, *a, **k: (
        source.name, source.written, source.text, lowering, options.invariants))
    spy.on(fast_model, "_parse_generic", key=lambda generic, name, *a, **k: generic)
    spy.on(to_program, "_parse_generic", key=lambda generic, name, *a, **k: generic)
    spy.on(fast_model, "read_program", key=lambda text, name="<input>": (text, name))
    before = dict(fast_model.READS)

    write_report(campaign, tmp_path / "report", jobs=1)  # one process: all counted

    index = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    triage = json.loads((tmp_path / "report" / "triage.json").read_text(encoding="utf-8"))
    assert triage["buckets"] and "lit/" in index  # the work was there to do
    lit = list((tmp_path / "report" / "lit").glob("*.mlir"))
    assert lit
    for name in ("_normalize", "judge", "read_program"):
        calls = spy.calls[name]
        assert calls, name
        repeated = [k for k, n in collections.Counter(calls).items() if n > 1]
        assert not repeated, f"{name} redone for {len(repeated)} of {len(calls)} inputs"
    # xDSL parses only the texts the fast reader declines (outside the model):
    # none of the report's programs in the model is parsed by xDSL.
    fast = fast_model.READS["fast"] - before["fast"]
    slow = fast_model.READS["xdsl"] - before["xdsl"]
    assert fast > 3 * max(slow, 1)
    for generic in set(spy.calls["_parse_generic"]):
        assert fast_model._fast(generic, "x") is None


@pytest.mark.slow
def test_judging_again_on_workers_gives_the_serial_records(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The report's triage spreads an in-process lowering's judgements on the
    campaign's workers: the records are those of one process, in order."""
    if find_mlir_opt() is None:
        pytest.skip("no mlir-opt to read recorded programs with")
    texts = [p.to_mlir() for p in collect_programs(12, GenConfig(max_ops=6))]
    names = [f"p{k}" for k in range(len(texts))]
    settings = rejudge.Settings("xdsl:pr69969", "")
    wanted = [["stream-no-leak", "lowering-complete", "async-order"]] * len(texts)
    serial = rejudge.rejudge(texts, names, settings, wanted)
    rejudge._JUDGED.clear()
    spread: list[int] = []
    real = rejudge.map_on_workers

    def spy(func: Any, items: Any, jobs: int) -> Any:
        spread.append(len(items))
        return real(func, items, jobs)

    monkeypatch.setattr(rejudge, "map_on_workers", spy)
    with rejudge.workers(2):
        parallel = rejudge.rejudge(texts, names, settings, wanted)
    assert spread and sum(spread) >= rejudge._PARALLEL_FROM, spread
    assert parallel == serial
    assert any(records for records in serial), "nothing violated: the comparison is empty"
