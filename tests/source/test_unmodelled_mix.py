"""Generated modules with ops the harness does not model mixed in (issue #14):
`check` reads them, never refuses or crashes, and an op that touches no GPU
state and no buffer changes no verdict."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import active_invariants, judge
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE, resolve_mlir_opt
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import VERDICTS
from gpu_alloc_verify.verify.source.user_file import from_text
from tests.conftest import need_mlir_opt

# Ops no checker models, each valid wherever an op may stand in a function
# body.  `inert`: touches no GPU state, token or buffer.
INERT = [
    '"foo.opaque"() : () -> ()',
    '%zu{k} = arith.constant 2.0 : f32\n%zv{k} = math.sqrt %zu{k} : f32',
    '%zu{k} = "foo.value"() : () -> i32\n%zv{k} = arith.addi %zu{k}, %zu{k} : i32',
    '%zu{k} = memref.alloca() : memref<2xf16>',
    '"foo.region"() ({\n  "foo.inner"() : () -> ()\n  "foo.end"() : () -> ()\n}) : () -> ()',
]
# Touches a buffer of the function: may be a host access the order needs.
ON_BUFFER = '"foo.use"({m}) : ({t}) -> ()'

_BODY_OP = re.compile(r'^(\s+)(?!return|scf\.yield|\}).*loc\("op\d+"\)\s*$')
_BUFFER = re.compile(r"(%m\d+)(?:, %t\d+)? = gpu\.alloc.*: (memref<[^>]*>)")


def mix(program: Program, picks: list[int], data: st.DataObject, on_buffer: bool) -> str:
    """The program's text with unmodelled ops put after some of its ops."""
    lines = program.to_mlir().splitlines()
    out: list[str] = []
    k = 0
    for line in lines:
        out.append(line)
        m = _BODY_OP.match(line)
        if m is None or not picks:
            continue
        indent = m.group(1)
        choice = picks.pop()
        buf = _BUFFER.search(line)
        if on_buffer and buf is not None:
            text = ON_BUFFER.replace("{m}", buf.group(1)).replace("{t}", buf.group(2))
        else:
            text = INERT[choice % len(INERT)].replace("{k}", str(k))
        k += 1
        out.extend(indent + t for t in text.splitlines())
    return "\n".join(out) + "\n"


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(GenConfig(max_ops=8)), st.lists(st.integers(0, 20), max_size=6), st.data())
def test_inert_unmodelled_ops_change_no_verdict(program: Program, picks: list[int],
                                                data: st.DataObject) -> None:
    tool = need_mlir_opt(19)
    lowering = resolve_mlir_opt("mlir-opt-19", DEFAULT_PIPELINE)
    invariants = CheckOptions(tuple(i for i in active_invariants() if i != "differential"))
    plain = from_text(program.to_mlir(), "p.mlir", tool)
    mixed = from_text(mix(program, list(picks), data, on_buffer=False), "p.mlir", tool)
    before = judge(plain, lowering.lower_batch([plain])[0], lowering.spec, invariants)
    after = judge(mixed, lowering.lower_batch([mixed])[0], lowering.spec, invariants)
    assert after.verdicts() == before.verdicts(), (mixed.written, after.results)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(GenConfig(max_ops=8)), st.lists(st.integers(0, 20), min_size=1, max_size=4),
       st.data())
def test_unmodelled_ops_on_buffers_give_verdicts_or_unknown(program: Program, picks: list[int],
                                                            data: st.DataObject) -> None:
    tool = need_mlir_opt(19)
    lowering = resolve_mlir_opt("mlir-opt-19", DEFAULT_PIPELINE)
    invariants = CheckOptions(tuple(i for i in active_invariants() if i != "differential"))
    mixed = from_text(mix(program, list(picks), data, on_buffer=True), "p.mlir", tool)
    plain = from_text(program.to_mlir(), "p.mlir", tool)
    before = judge(plain, lowering.lower_batch([plain])[0], lowering.spec, invariants)
    after = judge(mixed, lowering.lower_batch([mixed])[0], lowering.spec, invariants)
    for inv, r in after.results.items():
        assert r.verdict in VERDICTS
        if inv != "async-order":  # only the order can hinge on a hidden host access
            assert r.verdict == before.results[inv].verdict, (inv, mixed.written, r)
        elif r.verdict != before.results[inv].verdict:
            assert r.verdict == "unknown" and "foo.use" in r.reason, r
