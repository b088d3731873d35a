"""The differential oracle gives the same verdict on the fast reader's module
as on xDSL's parse.

Property: for generated programs lowered by real mlir-opt-19 (also with
`convert-scf-to-cf`: branches, blocks with arguments) and mlir-opt-16 and by
the in-process `xdsl:pr69969` and `xdsl:llvm16`, and for those lowered
texts with one `mgpuMemset32` or `mgpuStreamSynchronize` call dropped, the
`differential` result (verdict, reason, violation detail and counterexample)
on every runtime profile is the same run from `verify.ir.fastparse`'s reading of
the text as from xDSL's parse, and the fast reading rarely needs xDSL.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import gpu_alloc_verify.oracles.differential as differential
from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.oracles import fast_ir
from gpu_alloc_verify.oracles.llvm_values import constant_value, field_offset, layout, prop
from gpu_alloc_verify.oracles.lowered_interp import parse_module
from gpu_alloc_verify.verify.ir.fastparse import parse_module as fast_parse
from gpu_alloc_verify.verify.ir.parse import opaque_pointers
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import CheckResult
from tests.conftest import collect_programs, need_mlir_opt

PROFILES = ("cuda", "hip", "sycl")
SPECS = ("mlir-opt-19", "mlir-opt-16", "xdsl:pr69969", "xdsl:llvm16")
CF = "convert-scf-to-cf,gpu-to-llvm"
# A line calling `callee`, in either printer's form (properties or attributes).
DROPS = {callee: re.compile(rf'^\s*"llvm\.call".*callee = @{callee}\b.*\n', re.M)
         for callee in ("mgpuMemset32", "mgpuStreamSynchronize")}


@pytest.fixture(scope="module")
def corpus() -> list[Program]:
    # Programs LLVM 16 can lower (most lower completely on every spec), then
    # the general generator's (more ops; many stay incomplete).
    # What the reference semantics runs (kernels, host buffers: `unknown`).
    return (collect_programs(36, GenConfig(max_ops=10).supported_by(16).runnable())
            + collect_programs(44, GenConfig(max_ops=10).runnable()))


def _lowering(spec: str, pipeline: str = "") -> Lowering:
    """The lowering, skipping the test where its mlir-opt is not installed."""
    if spec.startswith("mlir-opt-"):
        path = need_mlir_opt(int(spec.rsplit("-", 1)[1]))
        if pipeline:
            return MlirOptLowering(spec, path, pipeline)
    return resolve(spec)


def _signature(result: CheckResult) -> str:
    return json.dumps(result.to_json(), sort_keys=True, default=str)


class _Fallbacks:
    """Counts the xDSL parses `check` falls back to on the fast path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        monkeypatch.setattr(differential, "parse_module", self._parse)

    def _parse(self, text: str) -> Any:
        self.count += 1
        return parse_module(text)


def _same_either_way(program: Program, text: str, fallbacks: _Fallbacks
                     ) -> Iterator[CheckResult]:
    """Check both ways on every profile; the results (equal) for each profile."""
    try:
        module: Any = parse_module(text)  # once for all profiles: the xDSL side
    except Exception:  # noqa: BLE001 - check() reports it, both ways
        module = text
    for profile in PROFILES:
        before = fallbacks.count
        expected = differential.check(program, module, differential.simulated(profile))
        fallbacks.count = before  # the xDSL side's own parse is no fallback
        fast = differential.check(program, text, differential.simulated(profile),
                                  parser="fast")
        assert _signature(fast) == _signature(expected), (profile, program.to_mlir(), text)
        yield fast


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "pipeline"), [  # CI: mlir-opt-19's; nightly: the others
    pytest.param(s, "", marks=[] if s == "mlir-opt-19" else [pytest.mark.nightly]) for s in SPECS
] + [("mlir-opt-19", CF)])
def test_same_verdicts_on_lowered_programs(spec: str, pipeline: str, corpus: list[Program],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    lowering = _lowering(spec, pipeline)
    fallbacks = _Fallbacks(monkeypatch)
    verdicts: dict[str, int] = {}
    pairs = branching = 0
    for program, outcome in zip(corpus, lowering.lower_batch(corpus), strict=True):
        if outcome.status != "ok":
            continue
        pairs += 1
        text = opaque_pointers(outcome.lowered)  # as `check_differential` hands it
        branching += "cond_br" in text
        for result in _same_either_way(program, text, fallbacks):
            verdicts[result.verdict] = verdicts.get(result.verdict, 0) + 1
    assert pairs >= 40, pairs
    assert branching >= 10 or not pipeline, branching
    assert verdicts.get("holds", 0) >= 3 * 10, verdicts  # programs really ran
    assert fallbacks.count <= 3 * pairs // 10, (fallbacks.count, pairs)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_same_mismatch_when_a_call_is_dropped(spec: str, corpus: list[Program],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    lowering = _lowering(spec)
    fallbacks = _Fallbacks(monkeypatch)
    programs = corpus[:36]
    mutants = violated = 0
    for program, outcome in zip(programs, lowering.lower_batch(programs), strict=True):
        if outcome.status != "ok":
            continue
        text = opaque_pointers(outcome.lowered)
        for drop in DROPS.values():
            mutated = drop.sub("", text, count=1)
            if mutated == text or mutants >= 16:
                continue
            mutants += 1
            results = list(_same_either_way(program, mutated, fallbacks))
            violated += any(r.verdict == "violated" for r in results)
    assert mutants >= 8, mutants
    if spec != "mlir-opt-16":  # its GEPs carry no elem_type: unknown either way
        assert violated >= mutants // 3, (violated, mutants)


# -- the fast model's pieces, against xDSL's objects ---------------------------

TYPES = ["i1", "i8", "i32", "i64", "index", "f16", "f32", "f64", "!llvm.ptr",
         "!llvm.array<3 x i16>", "!llvm.array<2 x array<3 x i8>>",
         "!llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>",
         "!llvm.struct<(i8, i64, struct<(i16, f32)>, array<2 x i8>)>", "!llvm.struct<()>"]


def _result_types(texts: list[str]) -> list[Any]:
    """The result types of `llvm.mlir.undef` ops, as xDSL reads them."""
    body = "\n".join(f'%{i} = "llvm.mlir.undef"() : () -> {t}' for i, t in enumerate(texts))
    module = parse_module(f'"builtin.module"() ({{\n{body}\n}}) : () -> ()')
    return [op.results[0].type for op in module.walk() if op.results]


def test_type_layouts_match_xdsl() -> None:
    for text, xdsl_type in zip(TYPES, _result_types(TYPES), strict=True):
        assert fast_ir.layout(text) == layout(xdsl_type), text
        if text.startswith(("!llvm.struct", "!llvm.array")) and text != "!llvm.struct<()>":
            for index in range(2):
                offset, _ = field_offset(text, index)
                assert offset == field_offset(xdsl_type, index)[0], (text, index)


CONSTANTS = ["0 : index", "-1 : i32", "255 : i8", "true", "false", "-2147483648 : i32",
             "1.000000e-01 : f32", "1.000000e-01 : f16", "2.500000e+00 : f64",
             "0x7FC00000 : f32", "0x7E00 : f16", "-0.000000e+00 : f32"]


def test_constants_match_xdsl() -> None:
    body = "\n".join(f'%{i} = "llvm.mlir.constant"() <{{value = {c}}}> : () -> i64'
                     for i, c in enumerate(CONSTANTS))
    text = f'"builtin.module"() ({{\n{body}\n}}) : () -> ()'
    xdsl_ops = [op for op in parse_module(text).walk() if op.results]
    fast_ops = [op for op in fast_parse(text).walk() if op.results]
    for c, x, f in zip(CONSTANTS, xdsl_ops, fast_ops, strict=True):
        want, got = constant_value(prop(x, "value")), constant_value(prop(f, "value"))
        assert repr(got) == repr(want), c  # repr: NaN and -0.0 compared too


def test_the_fast_model_declines_what_it_does_not_know() -> None:
    for text in ("!llvm.struct<packed (i8, i32)>", "vector<4xf32>", "!llvm.struct<\"s\", (i8)>"):
        with pytest.raises(fast_ir.FastUnsupported):
            fast_ir.layout(text)
    assert fast_ir.loc_name('loc("op4")') == "op4"
    assert fast_ir.loc_name('loc("op4"("x.mlir":1:2))') == "op4"
    assert fast_ir.loc_name('loc("x.mlir":1:2)') == "x.mlir:1:2"  # a user's file: its position
    assert fast_ir.loc_name("loc(unknown)") is None
    assert fast_ir.memref_element("memref<4x?xf32, strided<[1], offset: ?>>") == "f32"
    assert fast_ir.memref_element("memref<i32>") == "i32"
    with pytest.raises(fast_ir.FastUnsupported):
        fast_ir.memref_element("memref<4xvector<2xf32>>")


def test_what_the_fast_model_declines_runs_on_xdsl(corpus: list[Program],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A bf16 constant (no fast model of its rounding): the same result, via xDSL."""
    fallbacks = _Fallbacks(monkeypatch)
    program = next(p for p in corpus if "arith.constant" in p.to_mlir())
    (outcome,) = resolve("xdsl:pr69969").lower_batch([program])
    first = re.search(r'^(\s*)%\S+ = "llvm\.mlir\.constant"', outcome.lowered, re.M)
    assert first is not None
    extra = f'{first.group(1)}%bf = "llvm.mlir.constant"() <{{value = 1.5 : bf16}}> : () -> bf16\n'
    text = outcome.lowered[:first.start()] + extra + outcome.lowered[first.start():]
    results = list(_same_either_way(program, text, fallbacks))
    assert fallbacks.count == len(PROFILES)
    assert {r.verdict for r in results} <= {"holds", "violated"}
