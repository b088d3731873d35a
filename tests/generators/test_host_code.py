"""The host code upstream pipelines see, drawn by default (issue 40, items 1
and 2): swarm programs are valid for real mlir-opt 16, 19 and 22, meet every
construct without a flag, record their swarm subset, and are judged from
their text, with a verdict and never a crash, where the in-process
consumers do not build them."""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import replace
from functools import cache

import pytest

from gpu_alloc_verify.generators.features import (
    HOST_CODE_FEATURES,
    features,
    needed_switches,
)
from gpu_alloc_verify.generators.hypothesis_private import draw_seeded
from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import check_batch
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.verdicts import InvariantId, Verdict
from gpu_alloc_verify.verify.tools.commands import mlir_opt_argv
from tests.conftest import need_mlir_opt

SWARM = GenConfig.swarm_default()


@cache
def _swarm(n: int, seed: str = "h") -> tuple[prog.Program, ...]:
    drawn = (draw_seeded(programs(SWARM), f"{seed}{i}") for i in range(n))
    return tuple(p for p in drawn if p is not None)


@pytest.mark.parametrize("version", [16, 19, 22])
def test_swarm_programs_are_valid_for_mlir_opt(version: int) -> None:
    tool = need_mlir_opt(version)
    text = "\n// -----\n".join(p.to_mlir() for p in _swarm(40))
    proc = subprocess.run(mlir_opt_argv(tool, split_input_file=True, stdin=True), input=text,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[:2000]


def test_a_default_campaign_meets_every_host_code_construct() -> None:
    seen: Counter[str] = Counter()
    for p in _swarm(150):
        seen.update(features(p))
    missing = [f for f in HOST_CODE_FEATURES if not seen[f]]
    assert not missing, missing
    text_only = sum(1 for p in _swarm(150) if prog.in_process_gap(p))
    assert 0 < text_only < 150  # both kinds of program are drawn


def test_each_program_records_its_swarm_subset() -> None:
    subsets = {frozenset(t for t in p.tags if t.startswith("swarm.")) for p in _swarm(40)}
    assert len(subsets) > 20  # a subset per program, not one for the campaign
    for p in _swarm(40):
        assert "swarm.kind.wait" in p.tags  # the shrink target is always on
        feats = features(p)
        if any(isinstance(op, prog.Execute) for op in p.walk()):
            assert "tag.swarm.kind.execute" in feats


def test_the_switches_a_cause_needs_are_those_every_program_had_on() -> None:
    with_execute = [features(p) for p in _swarm(150)
                    if any(isinstance(op, prog.Execute) for op in p.walk())]
    assert len(with_execute) > 5
    needed = needed_switches(with_execute)
    assert "kind.execute" in needed and "kind.wait" in needed
    assert "kind.view" not in needed  # some of them had views off
    assert needed_switches([features(_EXECUTE)]) == []  # drawn without swarm


def test_a_flag_forces_its_switch_and_supported_narrows() -> None:
    forced = replace(SWARM, forced=("cf_tokens",))
    drawn = [draw_seeded(programs(forced), f"f{i}") for i in range(15)]
    assert all(p is not None and "swarm.cf_tokens" in p.tags for p in drawn)
    narrow = SWARM.supported_by(19)
    for i in range(30):
        p = draw_seeded(programs(narrow), f"n{i}")
        assert p is not None and not prog.in_process_gap(p), p
        assert "swarm.alloc_spaces" not in p.tags and "swarm.cf_tokens" not in p.tags


def test_the_default_generator_is_unchanged() -> None:
    cfg = GenConfig()
    assert not cfg.swarm and "execute" not in cfg.kinds and not cfg.cf_forms
    for i in range(20):
        p = draw_seeded(programs(cfg), f"d{i}")
        assert p is not None and not prog.in_process_gap(p) and not p.tags - {
            "unawaited-token"}


_T = prog.MemRefType((8,), "f32")
_VIEW = prog.MemRefType((4,), "f32", layout="strided<[1], offset: 2>")
_EXECUTE = prog.Program((prog.Function("f0", (prog.Arg("%buf0", _T),), (
    prog.View("op1", "%v", "subview", "%buf0", _T, _VIEW, (2,), (4,)),
    prog.Execute("op2", "%a", (), (), (
        prog.Wait("op3", "%s", ()),
        prog.Memset("op4", "%t", ("%s",), "%buf0", _T, 1)), ("%t",), ("%av",)),
    prog.Await("op5", "%av", "%g"),
    prog.Await("op6", "%a"),
    prog.Wait("op7", None, ("%g",)),
)),))


def test_the_printer_writes_views_and_executes_in_custom_form() -> None:
    text = _EXECUTE.to_mlir()
    assert ("%v = memref.subview %buf0[2] [4] [1] : memref<8xf32> to "
            "memref<4xf32, strided<[1], offset: 2>>") in text
    assert "%a, %av = async.execute -> (!async.value<!gpu.async.token>) {" in text
    assert 'async.yield %t : !gpu.async.token loc("op2.yield")' in text
    assert "%g = async.await %av : !async.value<!gpu.async.token>" in text
    assert prog.in_process_gap(_EXECUTE) == "it holds a memref view"


@pytest.mark.slow
def test_a_text_only_program_is_judged_from_its_text() -> None:
    need_mlir_opt(19)
    row = check_batch([_EXECUTE], [resolve("mlir-opt-19"), resolve("xdsl:pr69969")],
                      CheckOptions())[0]
    judged = row["mlir-opt-19"].results
    assert judged[InvariantId.LOWERING_NO_CRASH].verdict is Verdict.HOLDS
    # 19 yields the execute's stream and synchronizes it as an event.
    assert judged[InvariantId.RUNTIME_CONTRACT].verdict is Verdict.VIOLATED
    diff = judged[InvariantId.DIFFERENTIAL]
    assert diff.verdict is not Verdict.UNKNOWN or "async.execute" in diff.reason
    # A memset of a strided view is left unconverted by 19: lowering-complete.
    viewed = replace(_EXECUTE, functions=(replace(_EXECUTE.functions[0], body=(
        _EXECUTE.functions[0].body[0], prog.Memset("op8", None, (), "%v", _VIEW, 1))),),)
    judged = check_batch([viewed], [resolve("mlir-opt-19")], CheckOptions())[0]["mlir-opt-19"]
    complete = judged.results[InvariantId.LOWERING_COMPLETE]
    assert complete.verdict is Verdict.VIOLATED and "gpu.memset" in complete.violations[0].detail
    xdsl = row["xdsl:pr69969"].results
    assert all(r.verdict is Verdict.NOT_APPLICABLE for r in xdsl.values())
    assert "in-process model: it holds a memref view" in next(iter(xdsl.values())).reason
