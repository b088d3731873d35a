"""The fast reader of lowered IR gives `extract()` the same facts as xDSL's parse.

Property: for generated programs lowered by real mlir-opt-16/19/22 (also
with `convert-scf-to-cf`, whose blocks carry arguments, and with
`gpu-async-region`) and by the xDSL lowerings, every fact `extract` draws
(callee, guard, args, source op, handles, residue, notes, unknown values;
Z3 terms compared by their s-expressions, i.e. structurally) is the same on
`verify.ir.fastparse` objects as on xDSL's module (and, for the xDSL
lowerings, as on the module they built, which the pipeline no longer walks).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.campaign.bench import seeded_programs
from gpu_alloc_verify.verify.extract.calls import extract
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered, read_lowered
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.source.of_program import source_facts
from tests.conftest import need_mlir_opt
from tests.ir.facts import facts_signature

# (spec, pipeline, generator config): 16 rejects most of what the general
# generator makes, so it also gets programs it lowers.
CASES = [
    ("mlir-opt-16", "gpu-to-llvm", GenConfig(max_ops=12).supported_by(16)),
    ("mlir-opt-16", "gpu-to-llvm", GenConfig(max_ops=12)),
    ("mlir-opt-19", "gpu-to-llvm", GenConfig(max_ops=12)),
    ("mlir-opt-19", "convert-scf-to-cf,gpu-to-llvm", GenConfig(max_ops=12)),
    ("mlir-opt-22", "gpu-to-llvm", GenConfig(max_ops=12)),
    ("mlir-opt-22", "func.func(gpu-async-region),gpu-to-llvm", GenConfig(max_ops=12)),
    ("xdsl:pr69969", "", GenConfig(max_ops=12)),
    ("xdsl:split-api", "", GenConfig(max_ops=12)),
]


def _lowering(spec: str, pipeline: str) -> Lowering:
    if spec.startswith("mlir-opt-"):
        return MlirOptLowering(spec, need_mlir_opt(int(spec.rsplit("-", 1)[1])), pipeline)
    return resolve(spec)


def assert_same_facts(lowering: Lowering, progs: Sequence[Program]) -> int:
    """Compare both parses on every program the lowering lowers; how many it lowered."""
    lowered = 0
    for program, outcome in zip(progs, lowering.lower_batch(progs), strict=True):
        if outcome.status != "ok":
            continue
        lowered += 1
        names = source_facts(program).arg_names
        fast = fastparse.parse_module(outcome.lowered)  # raises if it cannot read it
        expected = facts_signature(extract(parse_lowered(outcome.lowered), names))
        assert facts_signature(extract(fast, names)) == expected, (
            program.to_mlir() + "\n" + outcome.lowered)
        if outcome.module is not None:  # an in-process lowering's own module, too
            assert facts_signature(extract(outcome.module, names)) == expected
    return lowered


# CI reads one configuration per version; the rest run nightly (the same
# reader on more shapes of output).
NIGHTLY_CASES = {1, 5, 6, 7}


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "pipeline", "cfg"), [
    pytest.param(*case, id=f"{case[0]}|{case[1]}|{case[2].supported}",
                 marks=[pytest.mark.nightly] if k in NIGHTLY_CASES else [])
    for k, case in enumerate(CASES)])
def test_same_facts_on_generated_programs(spec: str, pipeline: str, cfg: GenConfig) -> None:
    lowering = _lowering(spec, pipeline)

    @settings(max_examples=12, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(programs(cfg), min_size=1, max_size=8))
    def prop(progs: list[Program]) -> None:
        assert_same_facts(lowering, progs)

    prop()


@pytest.mark.slow
@pytest.mark.parametrize("spec", [
    "mlir-opt-19", pytest.param("mlir-opt-22", marks=pytest.mark.nightly),
    pytest.param("xdsl:split-api", marks=pytest.mark.nightly)])
def test_same_facts_on_the_bench_programs(spec: str) -> None:
    """The bench's seeded programs, up to its largest size."""
    # Kernels need their gpu.module converted first.
    lowering = _lowering(spec, "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm")
    progs = [p for size in (5, 10, 20, 40) for p in seeded_programs(size, 6)]
    assert assert_same_facts(lowering, progs) == len(progs)


# -- the reader on hand-written IR ------------------------------------------------

CFG_TEXT = '''"builtin.module"() ({
  "llvm.func"() <{function_type = !llvm.func<void (i1, i64)>, sym_name = "f0"}> ({
  ^bb0(%arg0: i1 loc("a":1:2), %arg1 : i64 loc(unknown)):
    %0 = "llvm.call"() <{callee = @mgpuStreamCreate}> : () -> !llvm.ptr<i8> loc("op1")
    %1:2 = "test.pair"(%arg1) : (i64) -> (i64, !gpu.async.token) loc("op2")
    %c = "llvm.mlir.constant"() <{value = true}> : () -> i1 loc("op3")
    "cf.cond_br"(%arg0, %0, %1#0) [^bb1, ^bb2] SEGMENTS : (i1, !llvm.ptr<i8>, i64) -> () loc("op4")
  ^bb1(%s: !llvm.ptr<i8> loc("op4")):  // pred: ^bb0
    "llvm.call"(%s) <{callee = @mgpuStreamDestroy}> : (!llvm.ptr<i8>) -> () loc("op5")
    "cf.br"(%arg1) [^bb2] : (i64) -> () loc("op5")
  ^bb2(%x: i64 loc("op6")):  // 2 preds: ^bb0, ^bb1
    %2 = "llvm.select"(%c, %x, %1#0) : (i1, i64, i64) -> i64 loc("op6"("f.mlir":3:4))
    "llvm.call"(%2, %0) {callee = @mgpuMemFree} : (i64, !llvm.ptr<i8>) -> () loc("op7")
    "llvm.return"() : () -> () loc("op8")
  }) {linkage = #llvm.linkage<external>} : () -> () loc("f")
  "llvm.func"() <{function_type = !llvm.func<ptr<i8> ()>, sym_name = "mgpuStreamCreate"}> ({
  }) : () -> () loc(unknown)
}) : () -> () loc(unknown)
'''.replace("SEGMENTS", "<{operandSegmentSizes = array<i32: 1, 1, 1>}>")


def test_reader_handles_blocks_packs_successors_and_typed_pointers() -> None:
    fast = fastparse.parse_module(CFG_TEXT)
    fn = fast.body.blocks[0].ops[0]
    entry, bb1, bb2 = fn.regions[0].blocks
    assert [a.type for a in entry.args] == ["i1", "i64"]
    assert [r.type for r in entry.ops[1].results] == ["i64", "!gpu.async.token"]
    cond_br = entry.ops[3]
    assert cond_br.successors == [bb1, bb2]
    assert cond_br.operands[2] is entry.ops[1].results[0]
    assert cond_br.properties["operandSegmentSizes"].as_tuple() == (1, 1, 1)
    assert bb1.args[0].type == "!llvm.ptr<i8>"
    assert entry.ops[2].properties["value"].value.data == -1  # as xDSL keeps i1 true
    assert fn.attributes["linkage"].text == "#llvm.linkage<external>"
    assert fast.body.blocks[0].ops[1].regions[0].blocks == []
    names = {"f0": ["%cond", "%n"]}
    assert facts_signature(extract(fast, names)) == \
        facts_signature(extract(parse_lowered(CFG_TEXT), names))


def test_reader_hands_what_it_does_not_read_to_xdsl() -> None:
    fused = CFG_TEXT.replace('loc("op7")', 'loc(fused["op7", "op8"])')
    with pytest.raises(fastparse.Unsupported):
        fastparse.parse_module(fused)
    module = read_lowered(fused)  # xDSL reads it
    assert not isinstance(module, fastparse.Op)
    assert isinstance(read_lowered(CFG_TEXT), fastparse.Op)
    assert not isinstance(read_lowered(CFG_TEXT, parser="xdsl"), fastparse.Op)


@pytest.mark.parametrize("text", [
    '"builtin.module"() ({\n  "a.b"(%x) : (i64) -> () loc(unknown)\n}) : () -> ()\n',
    '"builtin.module"() ({\n  %0 = "a.b"() : () -> (i64, i64)\n}) : () -> ()\n',
    '"builtin.module"() ({\n  "a.b"() [^bb9] : () -> ()\n}) : () -> ()\n',
    '"builtin.module"() ({\n  %0 = "a.b"() <{value = 300 : i8}> : () -> i8\n'
    '  "c.d"(%0) : (i8) -> ()\n}) : () -> ()\n',
    '#map = affine_map<(d0) -> (d0)>\n"builtin.module"() ({\n}) : () -> ()\n',
])
def test_malformed_or_unusual_text_is_not_guessed(text: str) -> None:
    with pytest.raises(fastparse.Unsupported):
        module = fastparse.parse_module(text)
        for op in module.walk():  # attributes are read on demand
            _ = op.properties
