"""Exact semantics of the path/value analysis (issue 25, item 5): integers
are bit-vectors of their width, handles their own kind, block arguments
assigned in parallel, aggregates nest, stores through derived pointers
update (or let go of) their slot, calls through function pointers resolve
or are unknown.  Each test names the wrong verdict the analysis gave before
(the adversarial cases 28-37 give the same per class on bug/twin pairs)."""

from __future__ import annotations

import subprocess

import z3

from gpu_alloc_verify.verify.extract.calls import extract
from gpu_alloc_verify.verify.extract.layout import gep_offset, size_align
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.invariants.solver import bool_assignment
from gpu_alloc_verify.verify.ir.lowered_ir import read_lowered
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.values import (
    HANDLE_BASE,
    may_be_handle,
    unknown_int,
    unknown_vars,
)
from gpu_alloc_verify.verify.source.to_program import program_from_text
from tests.builders import DECLS, check
from tests.conftest import need_mlir_opt

UAD = "stream-no-use-after-destroy"
LEAK = "stream-no-leak"
ONE_STREAM = """
func.func @main() {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}
"""
WITH_N = """
func.func @main(%n: index) {
  %t = gpu.wait async loc("op1")
  gpu.wait [%t] loc("op2")
  return
}
"""


def _verdicts(source: str, body: str) -> dict[str, str]:
    return {k: r.verdict for k, r in check(source, body).items()}


def _destroy_when(cond_lines: str, args: str = "") -> str:
    """@main: create, then destroy twice where `%c` holds, once elsewhere."""
    return f"""
  llvm.func @main({args}) {{
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
{cond_lines}
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.cond_br %c, ^twice, ^once loc("op2")
  ^once:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  ^twice:
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }}
"""


# -- 1. integers are bit-vectors ----------------------------------------------

def test_fold_wraps_and_reads_signs() -> None:
    a, b = fold.bv(200, 8), fold.bv(100, 8)
    assert fold.value_of(fold.binop("add", a, b)) == 44  # 300 mod 256
    assert fold.value_of(fold.binop("sub", b, a)) == 156
    assert fold.truth(fold.compare(2, a, b)) is True  # slt: -56 < 100
    assert fold.truth(fold.compare(6, a, b)) is False  # ult: 200 < 100
    assert fold.value_of(fold.resize(a, 32, True)) == (1 << 32) - 56
    assert fold.value_of(fold.resize(a, 32, False)) == 200
    assert fold.value_of(fold.resize(fold.bv(0x1FF, 16), 8, False)) == 0xFF
    assert fold.binop("shl", a, fold.bv(8, 8)) is None  # poison, not folded
    x = fold.bits_var("x", 8)
    s = z3.Solver()
    s.add(fold.compare(6, x, fold.bv(3, 8)) != z3.ULT(x, 3))
    assert s.check() == z3.unsat


def test_integer_argument_counterexample_is_unsigned_int() -> None:
    """Before: %n was an unbounded Int, and `%n == -1` of an i64 was -1."""
    body = _destroy_when('    %m1 = llvm.mlir.constant(-1 : i64) : i64 loc("op2")\n'
                         '    %c = llvm.icmp "eq" %n, %m1 : i64 loc("op2")', "%n: i64")
    res = check(WITH_N, body)
    assert res[UAD].verdict == "violated"
    path = res[UAD].violations[0].counterexample["path"]
    values = [v for v in path.values() if not isinstance(v, bool)]  # type: ignore[union-attr]
    assert values == [(1 << 64) - 1] and isinstance(values[0], int)


def test_bool_assignment_reads_bit_vectors() -> None:
    n = z3.BitVec("main:%n", 8)
    s = z3.Solver()
    f = n == 250
    s.add(f)
    assert s.check() == z3.sat
    assert bool_assignment(s.model(), f) == {"main:%n": 250}


def test_argument_wraps_around() -> None:
    """%n + 1 < %n (signed) holds for %n = INT64_MAX: a path unbounded
    integers never take (before: `holds` on this double destroy)."""
    body = _destroy_when('    %one = llvm.mlir.constant(1 : i64) : i64 loc("op2")\n'
                         '    %m = llvm.add %n, %one : i64 loc("op2")\n'
                         '    %c = llvm.icmp "slt" %m, %n : i64 loc("op2")', "%n: i64")
    res = check(WITH_N, body)
    assert res[UAD].verdict == "violated"
    path = res[UAD].violations[0].counterexample["path"]
    assert [v for v in path.values() if not isinstance(v, bool)] == [(1 << 63) - 1]  # type: ignore[union-attr]


def _judge_generic(source: str, text: str) -> dict[str, str]:
    j = judge(program_from_text(source), LoweringOutcome("ok", lowered=text), "hand-written",
              CheckOptions(runtime="cuda", timeout_ms=2000))
    return {k: r.verdict for k, r in j.results.items()}


def test_scf_for_unsigned() -> None:
    """`scf.for unsigned` from 100 to 200 step 100 over i8 runs once (signed
    it runs never).  Before: the attribute was not read."""
    tool = need_mlir_opt(22)
    loop = """
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    %lb = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    %ub = llvm.mlir.constant(200 : i8) : i8 loc("op2")
    %step = llvm.mlir.constant(100 : i8) : i8 loc("op2")
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("op2")
    scf.for UNSIGNED%i = %lb to %ub step %step : i8 {
      llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    } loc("op2")
    llvm.return
  }
"""
    out = {}
    for unsigned in (True, False):
        text = "module {\n" + loop.replace("UNSIGNED", "unsigned " if unsigned else "") \
            + DECLS + "}\n"
        proc = subprocess.run([tool, "--mlir-print-op-generic", "--mlir-print-debuginfo",
                               "--mlir-print-local-scope", "-"], input=text,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        out[unsigned] = _judge_generic(ONE_STREAM, proc.stdout)[LEAK]
    assert out == {True: "holds", False: "violated"}


# -- 2. handles are their own kind ---------------------------------------------

def test_integers_never_equal_handles() -> None:
    assert HANDLE_BASE >= 1 << 64
    k = fold.bv(HANDLE_BASE + 1, 64)  # wraps to 1
    assert fold.eq(k, HANDLE_BASE + 1) is fold.FALSE
    assert not may_be_handle(k)
    assert not may_be_handle(fold.bv((1 << 64) - 1, 64))
    addr = unknown_int("?3a64")
    assert may_be_handle(addr) and not may_be_handle(unknown_int("?4w64"))
    assert [str(v) for v in unknown_vars(fold.binop("add", addr, fold.bv(1, 64)))] == ["?3a64"]
    assert z3.is_bv(unknown_vars(addr)[0])


def test_pointer_compare_to_constant_address() -> None:
    """`ptrtoint %s == 0` is false (a handle is never null); before, the
    compare went to an unknown branch."""
    body = _destroy_when('    %i = llvm.ptrtoint %s : !llvm.ptr to i64 loc("op2")\n'
                         '    %z = llvm.mlir.constant(0 : i64) : i64 loc("op2")\n'
                         '    %c = llvm.icmp "eq" %i, %z : i64 loc("op2")')
    assert _verdicts(ONE_STREAM, body)[UAD] == "holds"


# -- 5. stores through derived pointers ----------------------------------------

SLOT = """
  llvm.func @main(%i: i64) {
    %one = llvm.mlir.constant(1 : i64) : i64 loc("op1")
    %slot = llvm.alloca %one x !llvm.struct<(ptr, ptr)> : (i64) -> !llvm.ptr loc("op1")
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("op1")
    llvm.store %s, %slot : !llvm.ptr, !llvm.ptr loc("op1")
STORE
    %l = llvm.load %slot : !llvm.ptr -> !llvm.ptr loc("op2")
    llvm.call @mgpuStreamSynchronize(%l) : (!llvm.ptr) -> () loc("op2")
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("op2")
    llvm.return
  }
"""


def _slot(store: str) -> str:
    return _verdicts(WITH_N, SLOT.replace("STORE", store))[UAD]


def test_store_to_another_field_keeps_the_slot() -> None:
    assert _slot("") == "holds"
    assert _slot('    %g = llvm.getelementptr %slot[0, 1] : (!llvm.ptr) -> !llvm.ptr, '
                 '!llvm.struct<(ptr, ptr)> loc("op1")\n'
                 '    %z = llvm.mlir.zero : !llvm.ptr loc("op1")\n'
                 '    llvm.store %z, %g : !llvm.ptr, !llvm.ptr loc("op1")') == "holds"


def test_partial_or_unknown_store_lets_the_slot_go() -> None:
    """An i32 over the pointer's low half, or a store at an index not read:
    the slot's old content must not be loaded back (before: it was)."""
    partial = ('    %k = llvm.mlir.constant(7 : i32) : i32 loc("op1")\n'
               '    llvm.store %k, %slot : i32, !llvm.ptr loc("op1")')
    dynamic = ('    %g = llvm.getelementptr %slot[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64 '
               'loc("op1")\n'
               '    %z = llvm.mlir.zero : !llvm.ptr loc("op1")\n'
               '    llvm.store %z, %g : !llvm.ptr, !llvm.ptr loc("op1")')
    for store in (partial, dynamic):
        # The synchronize of whatever is loaded now precedes the destroy:
        # no use after destroy either way, but the stream is no longer
        # known to be what is synchronized, nor anything else.
        assert _slot(store) in ("holds", "unknown")
    body = SLOT.replace("STORE", partial).replace(
        "llvm.call @mgpuStreamDestroy(%s)", "llvm.call @mgpuStreamDestroy(%l)")
    assert _verdicts(WITH_N, body)[LEAK] == "unknown"  # before: holds


def test_layout() -> None:
    assert size_align("!llvm.struct<(ptr, i32, i8)>") == (16, 8)
    assert size_align("!llvm.struct<packed (i8, i32)>") == (5, 1)
    assert size_align("!llvm.array<3 x i16>") == (6, 2)
    assert gep_offset("!llvm.struct<(i8, array<2 x i32>)>", [1, 1, 1]) == 12 + 4 + 4
    assert gep_offset("i64", [None]) is None
    assert size_align('!llvm.struct<"named", (ptr)>') is None


# -- 3, 4, 6: in the extracted facts --------------------------------------------

def _facts(body: str) -> object:
    text = subprocess.run(
        [need_mlir_opt(19), "--mlir-print-op-generic", "-"],
        input="module {\n" + body + DECLS + "}\n", capture_output=True, text=True).stdout
    return extract(read_lowered(text))


def test_call_through_pointer_to_defined_function_is_inlined() -> None:
    facts = _facts("""
  llvm.func @release(%s: !llvm.ptr) {
    llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @main() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
    %f = llvm.mlir.addressof @release : !llvm.ptr
    llvm.call %f(%s) : !llvm.ptr, (!llvm.ptr) -> ()
    llvm.return
  }
""")
    calls = [c for c in facts.calls if c.func == "main"]  # type: ignore[attr-defined]
    assert [c.callee for c in calls] == ["mgpuStreamCreate", "mgpuStreamDestroy"]
    assert fold.value_of(calls[1].args[0]) == calls[0].handle
    assert not facts.hidden_creates  # type: ignore[attr-defined]
