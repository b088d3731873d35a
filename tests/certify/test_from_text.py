"""Reading a program's text back as certificate steps: every program the
certificate prints reads back as itself, and a construct it does not
enumerate is named, not read."""

from __future__ import annotations

from gpu_alloc_verify.verify.certify.canonical import canonical
from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
from gpu_alloc_verify.verify.certify.from_text import read_program
from gpu_alloc_verify.verify.certify.to_program import to_program


def test_every_printed_program_reads_back_as_its_class() -> None:
    for spaces in (False, True):
        for steps in enumerate_bound(2, spaces).programs:
            text = to_program(steps).to_mlir()
            read = read_program(text, spaces)
            assert read.in_space and read.steps is not None, (text, read.outside)
            assert canonical(read.steps)[0] == canonical(steps)[0], text


def test_another_buffer_type_is_noted_and_read_as_the_certificates() -> None:
    text = """module {
  func.func @f0(%arg0: memref<16x4xf16>) {
    %t1 = gpu.wait async loc("op1")
    %t2 = gpu.memset async [%t1] %arg0, %c : memref<16x4xf16>, f16 loc("op2")
    gpu.wait [%t2] loc("op3")
    return
  }
  func.func @f1() {
    return
  }
}
"""
    read = read_program(text)
    assert read.in_space and read.steps is not None
    assert [(s.kind, s.variant) for s in read.steps] == [
        ("wait", ("async",)), ("memset", ("async",)), ("wait", ("sync",))]
    assert read.steps[1].deps == read.steps[0].defines
    assert read.notes == ["memref<16x4xf16> read as memref<4xf32>"]


def test_constructs_outside_the_space_are_named() -> None:
    text = """module {
  func.func @f0(%arg0: i1, %n: index) {
    %m1 = gpu.alloc (%n) : memref<?xf32> loc("op1")
    scf.if %arg0 {
      gpu.dealloc %m1 : memref<?xf32> loc("op2")
    }
    %m2 = gpu.alloc () : memref<4xf32, 1> loc("op3")
    return
  }
  func.func @f1() {
    %t1 = gpu.wait async loc("op4")
    return
  }
}
"""
    read = read_program(text)
    assert read.steps is None and not read.in_space
    assert set(read.outside) == {"2 functions with ops", "scalar argument (i1)",
                                 "index argument (dynamic size)", "dynamic shape", "scf.if",
                                 "memory space 1"}
    # With --spaces a gpu.alloc in space 1 is in the space; the rest is not.
    assert "memory space 1" not in read_program(text, spaces=True).outside
