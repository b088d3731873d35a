"""The source reader reads everything the printer prints (kernels, launches,
buffers and scalars passed in, host buffers, `memref.dim`, results, memory
spaces): read(print(P)) is P up to value names, for generated programs,
whichever mlir-opt (19, 22) normalized the text.  Kernels are read by name;
the differential oracle then checks their bodies are the catalogue's."""

from __future__ import annotations

import json
import re
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.oracles.kernel_interp import catalogue_ref, same_as_catalogue
from gpu_alloc_verify.repro.lower_tool import lower_custom
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.invariants.differential import kernels_not_catalogue
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.kernels import (
    SHAPE_NAMES,
    kernel_ref,
    kernel_text,
    parse_kernel_name,
)
from gpu_alloc_verify.verify.model.program import (
    ELEMENT_TYPES,
    Function,
    KernelRef,
    MemRefType,
    Program,
)
from gpu_alloc_verify.verify.source.text import normalize
from gpu_alloc_verify.verify.source.to_program import (
    KERNELS_BY_NAME,
    kernel_source,
    model_gap,
    model_of,
    program_from_text,
)
from tests.conftest import need_mlir_opt
from tests.generators.test_gen_kernels import every_construct

VERSIONS = (19, 22)
# Everything the generator makes, more of it than by default.
CFG = GenConfig(max_ops=12, max_functions=2, launch_fanin=True)


def _canon(x: Any, names: dict[str, str]) -> Any:
    """`x` with every value name (`%...`) renamed by first appearance in a walk."""
    if isinstance(x, str) and x.startswith("%"):
        return names.setdefault(x, f"%n{len(names)}")
    if isinstance(x, tuple):
        return tuple(_canon(y, names) for y in x)
    if is_dataclass(x) and not isinstance(x, (MemRefType, KernelRef, type)):
        return replace(x, **{f.name: _canon(getattr(x, f.name), names) for f in fields(x)})
    return x


def canonical(program: Program) -> tuple[Function, ...]:
    """The functions up to value and argument names (each function its own scope);
    op ids, types, kernels, constants, sizes kept."""
    return tuple(_canon(fn, {}) for fn in program.functions)


def read_back(program: Program, version: int) -> Program:
    name = "p.mlir"
    generic = normalize(program.to_mlir(), name, need_mlir_opt(version))
    read = model_of(generic, name)
    assert read is not None, model_gap(generic, name)
    return read


def assert_round_trip(program: Program, version: int) -> None:
    read = read_back(program, version)
    assert canonical(read) == canonical(program), (program.to_mlir(), read.to_mlir())
    assert [op.id for op in read.walk()] == [op.id for op in program.walk()]
    assert read.kernels == program.kernels
    assert read.tags == (frozenset({KERNELS_BY_NAME}) if program.kernels else frozenset())


# -- read(print(P)) == P ---------------------------------------------------------------------

@pytest.mark.parametrize("version", VERSIONS)
def test_every_construct_reads_back(version: int) -> None:
    assert_round_trip(every_construct(), version)


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(program=programs(CFG))
def test_generated_programs_read_back(version: int, program: Program) -> None:
    assert_round_trip(program, version)


@pytest.mark.slow
@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(program=programs(CFG).filter(lambda p: bool(p.kernels)))
def test_generated_kernel_programs_read_back(version: int, program: Program) -> None:
    assert_round_trip(program, version)


def test_every_catalogue_kernel_name_parses() -> None:
    for shape in SHAPE_NAMES:
        for elem in ELEMENT_TYPES:
            for t in (MemRefType((4,), elem), MemRefType((None, 4), elem, 1)):
                ref = kernel_ref(shape, t)
                assert parse_kernel_name(ref.name) == ref == catalogue_ref(f"kernels::{ref.name}")
    assert parse_kernel_name("saxpy") is None and parse_kernel_name("kernels::scale_4xf32") is None


# -- the in-process lowering takes kernel programs from text ---------------------------------

def _empty_bodies(text: str) -> str:
    """Every gpu.func body emptied to `gpu.return` (as a reduced test program has it)."""
    return re.sub(r"(gpu\.func @\w+\([^)]*\) kernel \{\n).*?(\n    \})",
                  r"\1      gpu.return\2", text, flags=re.S)


@pytest.mark.parametrize("empty", [False, True], ids=["catalogue-bodies", "empty-bodies"])
def test_split_api_lowers_kernel_program_from_text(empty: bool) -> None:
    if find_mlir_opt() is None:
        pytest.skip("no mlir-opt to read the custom form")
    text = every_construct().to_mlir()
    if empty:
        text = _empty_bodies(text)
        assert text.count("gpu.return") == 3 and "memref.dim %a" not in text
    lowered = lower_custom(text, "xdsl:split-api", False)
    for name in ("scale_16xf32", "add_Dxf32", "fill_4x4xi32_s1"):
        assert f"@kernels::@{name}" in lowered
    assert lowered.count('"gpu.launch_func"') + lowered.count("gpu.launch_func ") >= 3
    assert "gpu.alloc" not in lowered and "gpu.wait" not in lowered


# -- what the model does not hold is refused, at its position --------------------------------

HOST = """\
module {{
  func.func @f(%x: f32) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %h = memref.alloc() : memref<4xf32>
    {op}
    memref.dealloc %h : memref<4xf32>
    return
  }}
}}
"""


def _kernel_module(name: str) -> str:
    t = MemRefType((16,), "f32")
    text = (f"module attributes {{gpu.container_module}} {{\n  gpu.module @kernels {{\n"
            f"{kernel_text(kernel_ref('scale', t))}\n  }}\n"
            "  func.func @f(%x: f32) {\n    %c1 = arith.constant 1 : index\n"
            f"    %m = memref.alloc() : {t}\n"
            "    gpu.launch_func @kernels::@scale_16xf32 blocks in (%c1, %c1, %c1) threads in "
            f"(%c1, %c1, %c1) args(%m : {t}, %x : f32)\n"
            f"    memref.dealloc %m : {t}\n    return\n  }}\n}}\n")
    return text.replace("scale_16xf32", name)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("text, where, why", [
    (_kernel_module("saxpy"), "3:5", "gpu.func @saxpy is not a catalogue kernel"),
    (_kernel_module("scale_16xf32").replace("%factor: f32", "%factor: i32")
     .replace("%x: f32", "%x: i32").replace("%x : f32", "%x : i32")
     .replace("mulf %x, %factor : f32", "mulf %x, %x : f32"),
     "3:5", "gpu.func @scale_16xf32 takes (memref<16xf32>, i32); the catalogue's scale"),
    (HOST.format(op="%v = memref.load %h[%c1] : memref<4xf32>"), "6:10",
     "memref.load at an index other than a constant 0 is not modelled"),
    (HOST.format(op="memref.store %x, %h[%c0] : memref<4xf32>"), "6:5",
     "the value memref.store stores is not a constant"),
    (HOST.format(op="%c = arith.constant 2.5 : f32\n    memref.store %c, %h[%c0] : "
                 "memref<4xf32>"), "7:5", "the value memref.store stores is the constant 2.5"),
    (HOST.format(op="%c = arith.constant -0.0 : f32\n    memref.store %c, %h[%c0] : "
                 "memref<4xf32>"), "7:5", "is the constant -0.0"),
    (HOST.format(op="%d = memref.alloc() : memref<4xf32, 1>\n    gpu.memcpy %d, %h : "
                 "memref<4xf32, 1>, memref<4xf32>"), "7:5",
     "gpu.memcpy from memref<4xf32> to memref<4xf32, 1> is not modelled"),
])
def test_refused_with_position(version: int, text: str, where: str, why: str) -> None:
    generic = normalize(text, "k.mlir", need_mlir_opt(version))
    assert model_of(generic, "k.mlir") is None
    gap = model_gap(generic, "k.mlir")
    assert gap.startswith(f"k.mlir:{where}: ") and why in gap, gap
    with pytest.raises(SourceParseError, match=re.escape(f"k.mlir:{where}: ")):
        program_from_text(text, "k.mlir")


def test_host_ops_at_element_zero_are_read() -> None:
    need_mlir_opt(22)
    text = HOST.format(op="%c = arith.constant 3.0 : f32\n    memref.store %c, %h[%c0] : "
                       "memref<4xf32>\n    %v = memref.load %h[%c0] : memref<4xf32>")
    program = program_from_text(text, "k.mlir")
    assert [type(op).__name__ for op in program.walk()] == \
        ["HostAlloc", "HostStore", "HostLoad", "HostDealloc"]
    assert program.tags == frozenset()


# -- the differential runs only kernels that are the catalogue's ------------------------------

def _scale_times_two(text: str) -> str:
    changed = text.replace(
        "%y = arith.mulf %x, %factor : f32",
        "%y0 = arith.mulf %x, %factor : f32\n"
        "        %two = arith.constant 2.0 : f32\n"
        "        %y = arith.mulf %y0, %two : f32")
    assert changed != text
    return changed


def test_kernel_bodies_compared_with_the_catalogue() -> None:
    if find_mlir_opt() is None:
        pytest.skip("no mlir-opt to read the custom form")
    text = every_construct().to_mlir()
    same = program_from_text(text, "k.mlir")
    assert kernel_source(same) is not None and kernels_not_catalogue(same) == ""
    changed = program_from_text(_scale_times_two(text), "k.mlir")
    assert changed == same  # bodies are not in the model ...
    why = kernels_not_catalogue(changed)  # ... but the text they were read from is kept
    assert "kernel @scale_16xf32's body is not the catalogue's scale" in why
    assert "add_Dxf32" not in why and "fill" not in why
    # A program not read from text (generated, or a copy) has no such text.
    assert kernels_not_catalogue(every_construct()) == ""
    copy = Program(changed.functions, changed.tags)
    assert kernel_source(copy) is None and "not at hand" in kernels_not_catalogue(copy)
    kernel = kernel_text(kernel_ref("scale", MemRefType((16,), "f32")))
    assert same_as_catalogue(kernel, "kernels::scale_16xf32") is None
    assert "not the catalogue's scale" in str(same_as_catalogue(_scale_times_two(kernel),
                                                                 "scale_16xf32"))


def _differential(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    main(["check", str(path), "--lowering", "xdsl:split-api", "--invariant", "differential",
          "--json"])
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_differential_on_kernel_program_file(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    if find_mlir_opt() is None:
        pytest.skip("no mlir-opt to read the custom form")
    good = tmp_path / "kernels.mlir"
    good.write_text(every_construct().to_mlir())
    out = _differential(capsys, good)
    assert out["by_invariant"]["differential"]["holds"] == 1, out
    bad = tmp_path / "kernels_changed.mlir"
    bad.write_text(_scale_times_two(every_construct().to_mlir()))
    # A kernel that is not the catalogue's is no longer unknown (issue 27):
    # the module itself is interpreted, and both sides run its own body.
    out = _differential(capsys, bad)
    assert out["by_invariant"]["differential"]["holds"] == 1, out
    assert not out["unknown"], out["unknown"]


def test_copies_a_pass_made_of_an_op_are_named_after_it() -> None:
    """gpu-async-region gives the ops it makes for `gpu.dealloc ... loc("op2")`
    that location too: the copies are `op2.2`, `op2.3` (tied back to op2), and
    a fresh id never takes a name a later op of the text has."""
    from gpu_alloc_verify.verify.source.to_program import program_from_text

    text = """\
func.func @f() {
  %t0 = gpu.wait async loc("op2")
  %t1 = gpu.wait async [%t0] loc("op2")
  %t2 = gpu.wait async [%t1]
  %t3 = gpu.wait async [%t2] loc("op3")
  gpu.wait [%t3] loc("op2")
  return
}
"""
    program = program_from_text(text)
    assert [op.id for op in program.walk()] == ["op2", "op2.2", "op4", "op3", "op2.3"]
