"""Decisions that were reachable but `unknown` (issue 43, part B, item 2):
each a hand-written lowered module, a bug and its correct twin, and a case
written to fool the model (it must stay undecided, never `holds`):

- `llvm.switch`: each case's block runs when the value equals it, the
  default when none does;
- a struct of handles an inlined helper builds and returns keeps its
  fields at the caller;
- a handle stored in an `llvm.mlir.global` and loaded back is followed
  (code not seen, an external call, may change it: then it is not; code
  after @main may read an external global: what it holds then escapes);
- a pointer taken to an integer, changed by arithmetic that cancels out
  and taken back is the same pointer (one that does not cancel is not),
  and so is `getelementptr p[0]`.
"""

from __future__ import annotations

import pytest

from tests.builders import DECLS, check_module

LEAK = "stream-no-leak"
UAD = "stream-no-use-after-destroy"

SOURCE = """func.func @main(%k: i32) {
  %t = gpu.wait async
  gpu.wait [%t]
  return
}
"""
CREATE = '    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":2:8)\n'
SYNC = '    llvm.call @mgpuStreamSynchronize(%s) : (!llvm.ptr) -> () loc("src.mlir":3:3)\n'


def _kill(v: str = "%s") -> str:
    return f'    llvm.call @mgpuStreamDestroy({v}) : (!llvm.ptr) -> () loc("src.mlir":3:3)\n'


def _module(body: str, before: str = "") -> str:
    return ("module {\n" + before + "  llvm.func @main(%k: i32) {\n" + body
            + "    llvm.return\n  }\n" + DECLS + "}\n")


SWITCH = CREATE + SYNC + f"""    llvm.switch %k : i32, ^other [
      1: ^one,
      -2: ^two
    ]
  ^one:
{_kill()}    llvm.br ^done
  ^two:
{_kill()}    llvm.br ^done
  ^other:
{_kill()}    llvm.br ^done
  ^done:
"""
HELPER = """  llvm.func @make() -> !llvm.struct<(ptr, i32)> {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":2:8)
    %u = llvm.mlir.undef : !llvm.struct<(ptr, i32)>
    %c = llvm.mlir.constant(7 : i32) : i32
    %a = llvm.insertvalue %s, %u[0] : !llvm.struct<(ptr, i32)>
    %b = llvm.insertvalue %c, %a[1] : !llvm.struct<(ptr, i32)>
    llvm.return %b : !llvm.struct<(ptr, i32)>
  }
"""
STRUCT = """    %r = llvm.call @make() : () -> !llvm.struct<(ptr, i32)>
    %s = llvm.extractvalue %r[0] : !llvm.struct<(ptr, i32)>
""" + SYNC + _kill()
GLOBAL = """  llvm.mlir.global internal @g() : !llvm.ptr {
    %z = llvm.mlir.zero : !llvm.ptr
    llvm.return %z : !llvm.ptr
  }
  llvm.func @init() {
    %s = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr loc("src.mlir":2:8)
    %p = llvm.mlir.addressof @g : !llvm.ptr
    llvm.store %s, %p : !llvm.ptr, !llvm.ptr
    llvm.return
  }
  llvm.func @other()
"""
LOAD = """    llvm.call @init() : () -> ()
    %q = llvm.mlir.addressof @g : !llvm.ptr
    %s = llvm.load %q : !llvm.ptr -> !llvm.ptr
""" + SYNC + _kill()
CLEAR = "    %nul = llvm.mlir.zero : !llvm.ptr\n    llvm.store %nul, %q : !llvm.ptr, !llvm.ptr\n"


def _round_trip(back: str) -> str:
    return CREATE + SYNC + f"""    %a = llvm.ptrtoint %s : !llvm.ptr to i64
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %b = llvm.add %a, %c8 : i64
    %c = {back} : i64
    %p = llvm.inttoptr %c : i64 to !llvm.ptr
""" + _kill("%p")


ROUND = _round_trip("llvm.sub %b, %c8")
GEP_ZERO = CREATE + SYNC + """    %g = llvm.getelementptr %s[0] : (!llvm.ptr) -> !llvm.ptr, i8
    %a = llvm.ptrtoint %g : !llvm.ptr to i64
    %p = llvm.inttoptr %a : i64 to !llvm.ptr
""" + _kill("%p")

# name -> (twin, bug, fool or None); the twin holds, the bug is violated,
# the fool's leak is anything but `holds` (which pointer is destroyed is
# not known there).
CASES = {
    "switch": (_module(SWITCH), _module(SWITCH.replace("  ^two:\n" + _kill(), "  ^two:\n")),
               None),
    "struct returned by a helper": (_module(STRUCT, HELPER), _module(STRUCT + _kill(), HELPER),
                                    None),
    "handle in a global": (
        _module(LOAD + CLEAR, GLOBAL), _module(LOAD + _kill() + CLEAR, GLOBAL),
        # An external call between the store and the load may change @g.
        _module(LOAD.replace("    %s = llvm.load", "    llvm.call @other() : () -> ()\n"
                             "    %s = llvm.load") + CLEAR, GLOBAL)),
    "pointer through an integer": (
        _module(ROUND), _module(ROUND + _kill("%p")),
        # add 8 then xor 8 is not the address back (unless bit 3 is clear).
        _module(_round_trip("llvm.xor %b, %c8"))),
    "getelementptr p[0]": (_module(GEP_ZERO), _module(GEP_ZERO + _kill("%p")),
                           _module(GEP_ZERO.replace("%s[0]", "%s[8]"))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_decided(name: str) -> None:
    twin, bug, fool = CASES[name]
    good = check_module(SOURCE, twin)
    assert (good[LEAK].verdict, good[UAD].verdict) == ("holds", "holds"), \
        (good[LEAK].reason, good[UAD].reason)
    bad = check_module(SOURCE, bug)
    assert "violated" in (bad[LEAK].verdict, bad[UAD].verdict), (bad[LEAK], bad[UAD])
    if fool is not None:
        r = check_module(SOURCE, fool)
        assert r[LEAK].verdict != "holds", r[LEAK]


def test_a_handle_left_in_a_global_at_the_end() -> None:
    """A global other code can name (external linkage) may be read after
    @main returns: its handle may be destroyed there, so a leak is not
    shown (`unknown`).  An internal one, in a module whose only root is
    @main, is read by nothing after it: a leak."""
    left = LOAD.replace(_kill(), "")
    r = check_module(SOURCE, _module(left, GLOBAL.replace("global internal @g", "global @g")))
    assert r[LEAK].verdict == "unknown", r[LEAK]
    assert "global" in (r[LEAK].reason or ""), r[LEAK].reason
    r = check_module(SOURCE, _module(left, GLOBAL))
    assert r[LEAK].verdict == "violated", r[LEAK]
