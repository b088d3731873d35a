"""Source facts read from MLIR as written (issue #14): the reader records the
async GPU surface, reads everything else, and says where it cannot follow."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, given, settings

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.campaign.bench import SIZES, seeded_programs
from gpu_alloc_verify.verify.lowerings.xdsl_build import build_module
from gpu_alloc_verify.verify.model.program import Alloc, MemRefType, Program
from gpu_alloc_verify.verify.model.values import unknown_vars
from gpu_alloc_verify.verify.source.facts import SourceFacts, read_source
from gpu_alloc_verify.verify.source.light import light_module
from gpu_alloc_verify.verify.source.of_program import source_facts
from gpu_alloc_verify.verify.source.user_file import from_text
from tests.conftest import need_mlir_opt
from tests.ir.facts import _plain


def facts_of(text: str, version: int = 19, name: str = "k.mlir") -> SourceFacts:
    return from_text(text, name, need_mlir_opt(version)).facts()


def unknown_in(term: object) -> bool:
    return bool(unknown_vars(term))  # type: ignore[arg-type]


KERNEL_MODULE = """\
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%buf: memref<?xf32>, %f: f32) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<?xf32>
      %r = arith.mulf %v, %f : f32
      memref.store %r, %buf[%i] : memref<?xf32>
      gpu.return
    }
  }
  func.func private @external(index) -> ()
  func.func @main(%n: index, %f: f32, %host: memref<?xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %m, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.launch_func async [%t1] @kernels::@scale blocks in (%c1, %c1, %c1) \
threads in (%n, %c1, %c1) args(%m : memref<?xf32>, %f : f32)
    %t3 = gpu.memcpy async [%t2] %host, %m : memref<?xf32>, memref<?xf32>
    %t4 = gpu.dealloc async [%t3] %m : memref<?xf32>
    gpu.wait [%t4]
    %d = memref.dim %host, %c0 : memref<?xf32>
    func.call @external(%d) : (index) -> ()
    %x = memref.load %host[%c0] : memref<?xf32>
    return %x : f32
  }
}
"""


def test_kernel_module_is_read_as_written() -> None:
    facts = facts_of(KERNEL_MODULE)
    kinds = [(op.kind, op.where) for op in facts.ops.values()]
    # Kernel bodies are device code: their loads and stores are not host accesses.
    assert kinds == [("wait", "k.mlir:15:11"), ("alloc", "k.mlir:16:15"),
                     ("launch", "k.mlir:17:11"), ("memcpy", "k.mlir:18:11"),
                     ("dealloc", "k.mlir:19:11"), ("wait", "k.mlir:20:5"),
                     ("host.load", "k.mlir:23:10")]
    launch = facts.ops["k.mlir:17:11"]
    alloc = facts.ops["k.mlir:16:15"]
    assert launch.buffers == (alloc.result,) and launch.deps == (alloc.token,)
    assert facts.arg_names["main"] == ["%arg0", "%arg1", "%arg2"]
    # Every token is awaited by the host wait, on every path.
    assert all(str(facts.awaited[i]) == "True" for i, op in facts.ops.items() if op.token)
    assert facts.order_unknown == {}  # the call takes no token and no buffer


def test_a_token_passed_to_a_call_escapes() -> None:
    text = """\
func.func private @sync(!gpu.async.token)
func.func @f(%n: index) {
  %t0 = gpu.wait async
  %m, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
  func.call @sync(%t1) : (!gpu.async.token) -> ()
  return
}
"""
    facts = facts_of(text)
    alloc = next(op for op in facts.ops.values() if op.kind == "alloc")
    assert alloc.where == "k.mlir:4:13"
    # Whether the call awaits it is unknown, never assumed either way.
    assert unknown_in(facts.awaited[alloc.id])
    assert any("func.call at k.mlir:5:3" in r for r in facts.order_unknown["f"])


def test_unknown_op_on_a_buffer_makes_only_order_unknown() -> None:
    text = """\
func.func @f(%h: memref<4xf32>) {
  %c = arith.constant 0.0 : f32
  %t0 = gpu.wait async
  %t1 = gpu.memset async [%t0] %h, %c : memref<4xf32>, f32
  gpu.wait [%t1]
  linalg.fill ins(%c : f32) outs(%h : memref<4xf32>)
  return
}
"""
    facts = facts_of(text)
    assert facts.unmodelled == ["linalg.fill at k.mlir:6:3"]
    assert any("may read or write a buffer" in r for r in facts.order_unknown["f"])
    assert str(facts.awaited["k.mlir:4:9"]) == "True"  # stream facts still decided


def test_conditions_it_cannot_read_are_unknown_not_made_up() -> None:
    text = """\
func.func @f(%c: i1, %n: index) {
  %z = arith.constant 0 : index
  %p = arith.cmpi eq, %n, %z : index
  scf.if %c {
    %t = gpu.wait async
    gpu.wait [%t]
  }
  scf.if %p {
    %t = gpu.wait async
    gpu.wait [%t]
  }
  cf.br ^bb1
^bb1:
  %t2 = gpu.wait async
  gpu.wait [%t2]
  return
}
"""
    facts = facts_of(text)
    guards = {op.where: facts.guards[i] for i, op in facts.ops.items()}
    assert str(guards["k.mlir:5:10"]) == "f:%arg0"  # an i1 argument: the shared branch value
    assert unknown_in(guards["k.mlir:9:10"])  # a computed i1
    assert unknown_in(guards["k.mlir:14:9"])  # a cf block past the entry


def test_un_outlined_launch_body_is_device_code() -> None:
    text = """\
func.func @f(%h: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %t0 = gpu.wait async
  %t1 = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%a = %c1, %b = %c1, %d = %c1) {
    %v = memref.load %h[%tx] : memref<4xf32>
    memref.store %v, %h[%tx] : memref<4xf32>
    gpu.terminator
  }
  gpu.wait [%t1]
  return
}
"""
    facts = facts_of(text)
    assert [op.kind for op in facts.ops.values()] == ["wait", "launch", "wait"]
    launch = facts.ops["k.mlir:4:9"]
    assert len(launch.buffers) == 1 and launch.deps


@pytest.mark.parametrize("text", [
    "module {}\n",
    'module { "foo.bar"() : () -> () }\n',
    "func.func private @decl(memref<4xbf16>, index) -> f32\n",
    "func.func @r(%a: memref<?xindex>) -> index {\n  %c0 = arith.constant 0 : index\n"
    "  %v = memref.load %a[%c0] : memref<?xindex>\n  return %v : index\n}\n",
])
def test_valid_modules_without_gpu_work_read_empty(text: str) -> None:
    facts = facts_of(text)
    assert [op.kind for op in facts.ops.values() if op.is_gpu] == []


def _comparable(facts: SourceFacts) -> list[object]:
    """Facts with argument labels replaced by their positions."""
    out: list[object] = []
    labels = {f"{fn}:{a}": f"{fn}:#{i}" for fn, args in facts.arg_names.items()
              for i, a in enumerate(args)}

    def text(term: object) -> str:
        return re.sub(r"\w+:%[\w$.-]+", lambda m: labels.get(m.group(0), m.group(0)), str(term))

    for i, op in facts.ops.items():
        out.append((op, text(facts.guards[i]), text(facts.awaited.get(i, "-"))))
    out.append(sorted(facts.order_unknown))
    return out


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(GenConfig(max_ops=10)))
def test_a_generated_program_reads_the_same_from_its_text(program) -> None:  # type: ignore[no-untyped-def]
    """The generator's module (built without text) and its printed text, as
    mlir-opt parses it, give the same facts: one path from text on."""
    built = read_source(build_module(program))
    printed = from_text(program.to_mlir(), "<generated>", need_mlir_opt(22)).facts()
    assert _comparable(built) == _comparable(printed)


def _signature(facts: SourceFacts) -> tuple[object, ...]:
    """Every field of the facts (Z3 terms by their text, dictionaries in their
    order: `ops` is in program order)."""
    return tuple((f.name, [(k, _plain(v)) for k, v in value.items()]
                  if isinstance(value := getattr(facts, f.name), dict) else _plain(value))
                 for f in dataclasses.fields(facts))


def _constructs(program: Program) -> set[str]:
    found = {type(op).__name__ for op in program.walk()}
    found |= {"host_shared" for op in program.walk() if isinstance(op, Alloc) and op.host_shared}
    found |= {"memref arg" for fn in program.functions for a in fn.args
              if isinstance(a.type, MemRefType)}
    found |= {"functions" for _ in program.functions[1:]}
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(GenConfig(max_ops=16, max_functions=3)))
def test_the_light_module_reads_as_the_xdsl_module(program) -> None:  # type: ignore[no-untyped-def]
    """`source_facts` reads a `Program` from `verify.source.light`'s module:
    every fact is the one the xDSL module `build_module` makes gives."""
    assert _signature(read_source(light_module(program))) == _signature(
        read_source(build_module(program)))


def test_the_light_module_reads_as_the_xdsl_module_on_the_bench_programs() -> None:
    """The bench's seeded programs (kernels, host buffers, memref arguments,
    scf.if / scf.for, up to its largest size), and `source_facts` itself."""
    seen: set[str] = set()
    for size in SIZES:
        for program in seeded_programs(size, 12):
            seen |= _constructs(program)
            assert _signature(source_facts(program)) == _signature(
                read_source(build_module(program)))
    assert {"Launch", "HostAlloc", "HostDealloc", "If", "For", "Dim", "HostLoad",
            "HostStore", "host_shared", "memref arg"} <= seen
