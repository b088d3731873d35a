"""Lit tests in upstream's style (issue 28): the reference lowering they are
proven on calls only functions the runtimes export, and the exported tests
name no other function and carry no tool provenance."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.ir.lowered_ir import read_lowered
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.runtime_api import is_real

ROOT = Path(__file__).resolve().parents[2]
CALL = re.compile(r'"llvm\.call"\(([^)]*)\)\s*<\{[^}]*callee\s*=\s*@(mgpu\w+)')
NAMED = re.compile(r"@(mgpu\w+)\(([^)]*)\)")


def _mgpu_calls(lowered: str) -> list[tuple[str, int]]:
    """(callee, argument count) of each mgpu* call, generic or custom form."""
    out = [(m.group(2), len([a for a in m.group(1).split(",") if a.strip()]))
           for m in CALL.finditer(lowered)]
    return out or [(m.group(1), len([a for a in m.group(2).split(",") if a.strip()]))
                   for m in NAMED.finditer(lowered)]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(program=programs(GenConfig(max_ops=10)))
def test_reference_lowering_calls_only_real_functions(program: Program) -> None:
    outcome = resolve("xdsl:reference").lower_batch([program])[0]
    assert outcome.status == "ok", outcome.diagnostics
    module = outcome.module if outcome.module is not None else read_lowered(outcome.lowered)
    assert module is not None
    calls = _mgpu_calls(outcome.lowered)
    for callee, arity in calls:
        assert is_real(callee, arity, 19, "cuda"), (callee, arity, outcome.lowered)


def test_split_api_is_the_one_calling_proposed_functions() -> None:
    # The check above can fail: the split API's own lowering does not pass it.
    text = """func.func @main() {
  %t = gpu.wait async
  %m, %t1 = gpu.alloc async [%t] () : memref<16xf32>
  %t2 = gpu.dealloc async [%t1] %m : memref<16xf32>
  gpu.wait [%t2]
  return
}
"""
    from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
    from gpu_alloc_verify.verify.source.user_file import from_text

    source = from_text(text, "t.mlir", find_mlir_opt())  # the real reader, as `check`
    split = resolve("xdsl:split-api").lower_batch([source])[0]
    ref = resolve("xdsl:reference").lower_batch([source])[0]
    assert any(not is_real(c, n, 19, "cuda") for c, n in _mgpu_calls(split.lowered))
    assert all(is_real(c, n, 19, "cuda") for c, n in _mgpu_calls(ref.lowered))


def test_published_lit_tests_name_only_real_functions_and_no_tool() -> None:
    tests = sorted((ROOT / "docs" / "findings-lit").glob("*.mlir"))
    assert tests
    for path in tests:
        text = path.read_text()
        names = set(re.findall(r"@(mgpu\w+)", text))
        real = {fn for fn in names if any(is_real(fn, n, v, "cuda")
                                          for v in (16, 19, 22) for n in range(8))}
        assert names == real, (path.name, names - real)
