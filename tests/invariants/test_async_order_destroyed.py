"""async-order on calls after a destroy, and host accesses among themselves
(selfcheck's unsound classes, issue 25 item 4; cases 71-80).

Before the fix every bug below was `holds`:

- a synchronize, wait or record on a stream or event destroyed before it
  counted as one that orders, and work enqueued on a destroyed stream as
  work that runs (71, 73-76);
- host accesses were ordered against device work only, so two of one
  buffer (one a write) swapped in the lowered code went unseen (72, 77-80).

Here each program's exact verdict is pinned (the suite in
`tests/soundness` only asks "never holds"), and where a destroy or an
escape the analysis cannot follow might have ended the stream, the verdict
must be `unknown`, never `holds`.
"""

from __future__ import annotations

import pytest

from tests.builders import check
from tests.soundness.test_adversarial import sections, verdicts

ORDER = "async-order"
FILES = [
    "71_wait_on_destroyed_stream",
    "72_host_stores_reordered",
    "73_destroy_in_helper",
    "74_destroyed_stream_through_slot",
    "75_destroyed_event",
    "76_destroy_before_sync_in_loop",
    "77_host_read_write_swapped",
    "78_host_writes_through_slot",
    "79_host_read_write_in_loop",
    "80_host_accesses_two_buffers",
]
# A store without a location may be anywhere: not decidable.
UNKNOWN_BUGS = {("77_host_read_write_swapped", "bug:store-no-location")}
PROGRAMS = [(f, name) for f in FILES for name in sections(f) if name != "source"]


@pytest.mark.parametrize("item", PROGRAMS, ids=lambda i: f"{i[0][:2]}-{i[1]}")
def test_exact_verdict(item: tuple[str, str]) -> None:
    file, name = item
    r = verdicts(file, name)[ORDER]
    if name.startswith("twin"):
        expected = "holds"
    else:
        expected = "unknown" if item in UNKNOWN_BUGS else "violated"
    assert r.verdict == expected, (r.reason, [v.detail for v in r.violations])


def test_dead_work_is_named() -> None:
    r = verdicts("71_wait_on_destroyed_stream", "bug:destroy-first")[ORDER]
    assert "never runs: its stream is destroyed before it" in r.violations[0].detail


def _with_call_before_finish(call: str, decls: str) -> tuple[str, str]:
    s = sections("73_destroy_in_helper")
    lowered = s["twin"].replace("  llvm.func @main() {", decls + "  llvm.func @main() {")
    lowered = lowered.replace("    llvm.call @finish(%s)", call + "    llvm.call @finish(%s)")
    return s["source"], lowered


def test_escape_before_synchronize_is_unknown() -> None:
    # The external function may destroy the stream: its synchronize may do nothing.
    src, low = _with_call_before_finish(
        '    llvm.call @opaque_sink(%s) : (!llvm.ptr) -> () loc("op4")\n',
        "  llvm.func @opaque_sink(!llvm.ptr)\n")
    r = check(src, low)[ORDER]
    assert r.verdict == "unknown", r
    assert "@opaque_sink" in (r.reason or "")


def test_destroy_of_an_unfollowed_value_is_unknown() -> None:
    # A stream loaded through an untracked pointer may be the memset's (the
    # load has no location: with one it would be a host access of op4).
    src, low = _with_call_before_finish(
        '    %q = llvm.mlir.addressof @g : !llvm.ptr loc("op4")\n'
        '    %u = llvm.load volatile %q : !llvm.ptr -> !llvm.ptr\n'
        '    llvm.call @mgpuStreamDestroy(%u) : (!llvm.ptr) -> () loc("op4")\n',
        "  llvm.mlir.global external @g() : !llvm.ptr\n")
    r = check(src, low)[ORDER]
    assert r.verdict == "unknown", r
