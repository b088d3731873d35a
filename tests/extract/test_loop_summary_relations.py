"""Loop summaries that keep relations (issue 43, part B, item 1), each a
hand-written lowered module with a bug and its correct twin, on a source
loop whose trip count is the argument `%n`:

- a summarized loop's havoc'd integers are one term each: two branches on
  the induction value are never taken at odds, and the loop's own bound
  (`lb <= %i < ub`, and the step's stride) holds in its body;
- a value `scf.while` forwards from its condition to its body keeps its
  value, and a carried value every round yields back unchanged (a flag)
  keeps the value it entered with, in `scf.while`, `scf.for` and `cf`
  loops alike;
- a flag kept in a stack slot made before a summarized loop is carried
  like a loop-carried value (kept when every round stores it back, else
  one integer of its own);
- a loop whose trip count is an argument, leaking a stream every round, is
  `violated` (the source's trip count is that argument too), not `unknown`;
- `scf.for unsigned` over `i8` with bounds past the signed range runs the
  rounds the real code runs (the source reads its constants unsigned).

Before, each twin was a false alarm (`violated`) or `unknown`, and each
narrow-unsigned bug a false `holds`.
"""

from __future__ import annotations

import subprocess

import pytest

from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.model.verdicts import CheckResult
from gpu_alloc_verify.verify.source.user_file import from_text
from tests.builders import DECLS, generic
from tests.conftest import need_mlir_opt

LEAK = "stream-no-leak"
UAD = "stream-no-use-after-destroy"


def check_module(source: str, lowered: str) -> dict[str, CheckResult]:
    """The two handle invariants these loops are about (a violation's
    witness still runs), as `check` reads a user's file: the differential
    run of every input would replay loops of up to 127 rounds."""
    src = from_text(source, "src.mlir", need_mlir_opt(19))
    return judge(src, LoweringOutcome("ok", lowered=generic(lowered)), "hand-written",
                 CheckOptions(invariants=(LEAK, UAD), runtime="cuda", timeout_ms=2000)).results

SOURCE = """func.func @main(%n: i8) {
  %c0 = arith.constant 0 : i8
  %c1 = arith.constant 1 : i8
  scf.for %i = %c0 to %n step %c1 : i8 {
    %t = gpu.wait async
    gpu.wait [%t]
  }
  return
}
"""
HEAD = """module {
  llvm.func @main(%n: i8) {
    %c0 = llvm.mlir.constant(0 : i8) : i8
    %c1 = llvm.mlir.constant(1 : i8) : i8
    %c2 = llvm.mlir.constant(2 : i8) : i8
    %c5 = llvm.mlir.constant(5 : i8) : i8
    %true = llvm.mlir.constant(true) : i1
    %false = llvm.mlir.constant(false) : i1
"""
MAKE = """      %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":5:10)
      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":6:5)
"""
KILL = 'llvm.call @mgpuStreamDestroy(%s) : (!llvm.ptr) -> () loc("src.mlir":6:5)'


def _end(body: str) -> str:
    return body + "    llvm.return\n  }\n" + DECLS + "}\n"


def _for(body: str, step: str = "%c1") -> str:
    return _end(HEAD + f"""    scf.for %i = %c0 to %n step {step} : i8 {{
{MAKE}{body}
    }} loc("src.mlir":4:3)
""")


def _while(body: str, flag_next: str = "%g", cond: str = "") -> str:
    return _end(HEAD + f"""    %r:2 = scf.while (%i = %c0, %f = %true) : (i8, i1) -> (i8, i1) {{
      %more = llvm.icmp "slt" %i, %n : i8
      scf.condition(%more) %i, %f : i8, i1
    }} do {{
    ^bb0(%j: i8, %g: i1):
{MAKE}{body}
      %next = llvm.add %j, %c1 : i8
      scf.yield %next, {flag_next} : i8, i1
    }} loc("src.mlir":4:3)
""")


def _cf(body: str, flag_next: str = "%f") -> str:
    return _end(HEAD + f"""    llvm.br ^head(%c0, %true : i8, i1)
  ^head(%i: i8, %f: i1):
    %more = llvm.icmp "slt" %i, %n : i8
    llvm.cond_br %more, ^body, ^exit
  ^body:
{MAKE}{body}
    %next = llvm.add %i, %c1 : i8
    %nf = llvm.xor %f, %true : i1
    llvm.br ^head(%next, {flag_next} : i8, i1)
  ^exit:
""")


IN_BOUND = f"""      %in = llvm.icmp "slt" %i, %n : i8
      scf.if %in {{ {KILL} }}"""
SAME_VALUE = f"""      %a = llvm.icmp "eq" %i, %c5 : i8
      scf.if %a {{ {KILL} }}
      %b = llvm.icmp "ne" %i, %c5 : i8
      scf.if %b {{ {KILL} }}"""
EVEN = f"""      %low = llvm.and %i, %c1 : i8
      %even = llvm.icmp "eq" %low, %c0 : i8
      scf.if %even {{ {KILL} }}"""
FLAG = f"      scf.if %g {{ {KILL} }}"
CF_FLAG = f"    llvm.cond_br %f, ^d, ^e\n  ^d:\n    {KILL}\n    llvm.br ^e\n  ^e:"
FORWARDED = f"""      %in = llvm.icmp "slt" %j, %n : i8
      scf.if %in {{ {KILL} }}"""

# name -> (twin, bug): the twin holds, the bug leaks (or destroys twice).
PAIRS = {
    "for: the loop's bound holds in its body": (
        _for(IN_BOUND), _for(IN_BOUND.replace('"slt" %i, %n', '"sgt" %i, %n'))),
    "for: two branches on one induction value": (
        _for(SAME_VALUE), _for(SAME_VALUE.replace('"ne" %i, %c5', '"ne" %i, %c2'))),
    "for: a step of 2 never makes an odd value": (
        _for(EVEN, step="%c2"), _for(EVEN)),
    "while: a flag yielded back unchanged": (_while(FLAG), _while(FLAG, "%false")),
    "while: the value the condition forwards": (
        _while(FORWARDED), _while(FORWARDED.replace('"slt" %j, %n', '"sge" %j, %n'))),
    "cf: a flag passed back unchanged": (_cf(CF_FLAG), _cf(CF_FLAG, "%nf")),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_summary_keeps_relations(name: str) -> None:
    twin, bug = PAIRS[name]
    good = check_module(SOURCE, twin)
    assert good[LEAK].verdict == "holds", good[LEAK].reason
    assert good[UAD].verdict == "holds", good[UAD].reason
    bad = check_module(SOURCE, bug)
    assert "violated" in (bad[LEAK].verdict, bad[UAD].verdict), (bad[LEAK], bad[UAD])


def _slot_flag(store: str, cf: bool) -> str:
    """A flag kept in a stack slot (an i8 made before the loop): each round
    destroys its stream when the flag is set, then stores `store` back."""
    before = """    %one = llvm.mlir.constant(1 : i64) : i64
    %slot = llvm.alloca %one x i8 : (i64) -> !llvm.ptr
    %t8 = llvm.mlir.constant(1 : i8) : i8
    %f8 = llvm.mlir.constant(0 : i8) : i8
    llvm.store %t8, %slot : i8, !llvm.ptr
"""
    body = """      %fl = llvm.load %slot : !llvm.ptr -> i8
      %b = llvm.trunc %fl : i8 to i1
      %x = llvm.xor %fl, %t8 : i8
"""
    if not cf:
        return _for(body + f"      scf.if %b {{ {KILL} }}\n"
                    f"      llvm.store {store}, %slot : i8, !llvm.ptr").replace(
            "    scf.for", before + "    scf.for", 1)
    return _cf(body + f"""    llvm.cond_br %b, ^d, ^e
  ^d:
    {KILL}
    llvm.br ^e
  ^e:
    llvm.store {store}, %slot : i8, !llvm.ptr""").replace("    llvm.br ^head", before
                                                            + "    llvm.br ^head", 1)


@pytest.mark.parametrize("cf", [False, True])
def test_flag_in_a_stack_slot_is_carried(cf: bool) -> None:
    """Before, a store to a slot made the loop unsummarizable: past the
    unroll bound every verdict was `unknown`."""
    for store in ("%fl", "%t8"):  # stored back, or the same constant
        r = check_module(SOURCE, _slot_flag(store, cf))
        assert (r[LEAK].verdict, r[UAD].verdict) == ("holds", "holds"), (store, r[LEAK])
    # Cleared after the first round, or flipped every round (written to
    # fool a summary that would keep the first value): a leak.
    for store in ("%f8", "%x"):
        r = check_module(SOURCE, _slot_flag(store, cf))
        assert r[LEAK].verdict == "violated", (store, r[LEAK])


def _exit_guard(pred: str) -> str:
    """One stream; a cf loop to %n synchronizes it each round; after the
    loop it is destroyed where `%i pred %n` holds of the value %i left with."""
    create = MAKE.replace("      ", "    ")
    return _end(HEAD + create + f"""    llvm.br ^head(%c0 : i8)
  ^head(%i: i8):
    %more = llvm.icmp "slt" %i, %n : i8
    llvm.cond_br %more, ^body, ^exit
  ^body:
    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":6:5)
    %next = llvm.add %i, %c1 : i8
    llvm.br ^head(%next : i8)
  ^exit:
    %last = llvm.icmp "{pred}" %i, %n : i8
    llvm.cond_br %last, ^d, ^e
  ^d:
    {KILL}
    llvm.br ^e
  ^e:
""")


def test_value_after_the_loop_keeps_its_exit_condition() -> None:
    """The loop is left where `%i slt %n` fails: after it `%i sge %n` holds
    (the twin destroys there).  The value after the loop is the exit
    round's, renamed apart from the round whose events were walked, and the
    exit condition holds of it.  Before: a false alarm."""
    r = check_module(SOURCE, _exit_guard("sge"))
    assert (r[LEAK].verdict, r[UAD].verdict) == ("holds", "holds"), r[LEAK]
    # `sgt` fails when the loop ends with %i == %n (any %n >= 0): a leak.
    assert check_module(SOURCE, _exit_guard("sgt"))[LEAK].verdict == "violated"


def _result_guard(form: str, pred: str) -> str:
    """One stream, synchronized by a summarized loop to %n; after it the
    stream is destroyed where `pred` holds of the loop's result: scf.for's
    last induction value (against %n - 1, or any result when no round
    runs), scf.while's value at the exit (against %n)."""
    create = MAKE.replace("      ", "    ")
    sync = '      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":6:5)\n'
    if form == "for":
        loop = f"""    %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c0) -> (i8) : i8 {{
{sync}      scf.yield %i : i8
    }} loc("src.mlir":4:3)
    %nm1 = llvm.sub %n, %c1 : i8
    %at = llvm.icmp "{pred}" %r, %nm1 : i8
    %none = llvm.icmp "sle" %n, %c0 : i8
    %last = llvm.or %at, %none : i1
"""
    else:
        loop = f"""    %r = scf.while (%i = %c0) : (i8) -> i8 {{
      %more = llvm.icmp "slt" %i, %n : i8
      scf.condition(%more) %i : i8
    }} do {{
    ^bb0(%j: i8):
{sync}      %next = llvm.add %j, %c1 : i8
      scf.yield %next : i8
    }} loc("src.mlir":4:3)
    %last = llvm.icmp "{pred}" %r, %n : i8
"""
    return _end(HEAD + create + loop + f"""    llvm.cond_br %last, ^d, ^e
  ^d:
    {KILL}
    llvm.br ^e
  ^e:
""")


@pytest.mark.parametrize(("form", "twin", "bug"), [("for", "eq", "ne"), ("while", "sge", "sgt")])
def test_result_of_a_structured_loop_keeps_its_exit(form: str, twin: str, bug: str) -> None:
    """scf.for's result after its last round is `%n - 1` (yielded `%i`);
    scf.while's is `>= %n` (its condition failed).  Before: a free value,
    so both twins were false alarms."""
    r = check_module(SOURCE, _result_guard(form, twin))
    assert (r[LEAK].verdict, r[UAD].verdict) == ("holds", "holds"), r[LEAK]
    assert check_module(SOURCE, _result_guard(form, bug))[LEAK].verdict == "violated"


@pytest.mark.parametrize("form", ["for", "while", "cf"])
def test_loop_leaking_every_round_is_violated(form: str) -> None:
    """The trip count is the argument %n on both sides: a leak in every
    round is a leak whenever %n > 0, shown, not `unknown`."""
    lowered = {"for": _for(""), "while": _while(""), "cf": _cf("")}[form]
    r = check_module(SOURCE, lowered)[LEAK]
    assert r.verdict == "violated", r.reason
    # The argument (the reader's label for %n, an i8 so that the execution
    # cross-check runs few rounds) picks a trip count that runs.
    path = r.violations[0].counterexample["path"]
    assert isinstance(path, dict) and path.get("main:%arg0", 0) > 0, path
    closed = {"for": _for(KILL), "while": _while(KILL), "cf": _cf(KILL)}[form]
    assert check_module(SOURCE, closed)[LEAK].verdict == "holds"


NARROW_SOURCE = """func.func @main() {
  %lb = arith.constant LB : i8
  %ub = arith.constant UB : i8
  %sp = arith.constant SP : i8
  scf.for unsigned %i = %lb to %ub step %sp : i8 {
    %t = gpu.wait async
    gpu.wait [%t]
  }
  return
}
"""
NARROW_LOWERED = """module {
  llvm.func @main() {
    %lb = llvm.mlir.constant(LB : i8) : i8
    %ub = llvm.mlir.constant(UB : i8) : i8
    %sp = llvm.mlir.constant(SP : i8) : i8
    scf.for unsigned %i = %lb to %ub step %sp : i8 {
      %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":6:10)
      llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":7:5)
      KILL
    } loc("src.mlir":5:3)
    llvm.return
  }
""" + DECLS + "}\n"


@pytest.mark.parametrize("bounds", [(100, 200, 100), (0, 200, 1), (1, 250, 50)])
def test_narrow_unsigned_loop_runs_its_rounds(bounds: tuple[int, int, int]) -> None:
    """Each of these loops runs (2, 200, 5 rounds) as unsigned i8, none as
    signed; the leak is confirmed by running the lowered code."""
    tool = need_mlir_opt(22)
    lb, ub, step = bounds

    def fill(text: str) -> str:
        return text.replace("LB", str(lb)).replace("UB", str(ub)).replace("SP", str(step))

    verdicts = {}
    for bug in (False, True):
        lowered = fill(NARROW_LOWERED).replace("KILL", "" if bug else KILL)
        proc = subprocess.run([tool, "--mlir-print-op-generic", "--mlir-print-debuginfo",
                               "--mlir-print-local-scope", "-"], input=lowered,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        j = judge(from_text(fill(NARROW_SOURCE), "src.mlir", tool),
                  LoweringOutcome("ok", lowered=proc.stdout), "hand-written",
                  CheckOptions(invariants=(LEAK,), runtime="cuda", timeout_ms=2000))
        verdicts[bug] = j.results[LEAK].verdict
        if bug:
            assert "confirmed by execution" in str(j.results[LEAK].violations[0].confirmation)
    assert verdicts == {False: "holds", True: "violated"}
