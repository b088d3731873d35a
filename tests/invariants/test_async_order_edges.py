"""async-order's happens-before edges, kind by kind (issue 25, item 7).

The hand-written cases are `tests/soundness/cases/50..58` (judged there too,
by `test_adversarial`); here each program's exact `async-order` verdict is
pinned, and the simulated runtime (`oracles.simulated`, run through
`oracles.lowered_interp`) must agree: every bug races, no twin does.

Edge kinds, and what the checker said before they were modelled (every bug
below was `holds`, every twin `holds` too):

- a. host order against later async work: a host write (50) or read (52)
  before async work on its buffer; a host wait before work issued after it
  (51, including `mgpuEventSynchronize` of a stream handle, which does not
  wait);
- b. loop iterations: a host read after the previous iteration's work (55),
  an event re-recorded per iteration and synchronized in the next (56), two
  loops with different trip counts (57: source order, not iteration
  numbers, decides across loops);
- c. event re-records: a wait (53) or an event synchronize (54) sees only the
  latest record, also when the re-record is on one branch (58).

The simulator runs every program, stack slots (`llvm.alloca`) included.
"""

from __future__ import annotations

from functools import cache

import pytest

from gpu_alloc_verify.oracles.lowered_interp import run_function
from gpu_alloc_verify.oracles.runtime import DEVICE_RACE, HOST_RACE
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.verify.extract.facts import Call
from gpu_alloc_verify.verify.invariants.ordering import _loop_keys, _precedes
from gpu_alloc_verify.verify.model import fold
from tests.builders import DECLS, generic
from tests.soundness.test_adversarial import sections, verdicts

ORDER = "async-order"
FILES = [
    "50_host_write_before_async_copy",
    "51_host_wait_before_later_work",
    "52_host_read_before_async_write",
    "53_wait_sees_latest_record",
    "54_event_sync_sees_latest_record",
    "55_loop_read_after_previous_iteration",
    "56_loop_event_rerecorded",
    "57_sibling_loops",
    "58_rerecord_on_one_branch",
]
# The one bug whose work carries no source op's location: not decidable.
UNKNOWN_BUGS = {("52_host_read_before_async_write", "bug:fill-no-location")}
# Arguments each case's @main is run with on the simulator.
ARGS: dict[str, list[list[int]]] = {"58_rerecord_on_one_branch": [[0], [1]]}

PROGRAMS = [(f, name) for f in FILES for name in sections(f) if name != "source"]


def _id(item: tuple[str, str]) -> str:
    return f"{item[0][:2]}-{item[1].replace(':', '-')}"


@pytest.mark.parametrize("item", PROGRAMS, ids=_id)
def test_async_order_verdict(item: tuple[str, str]) -> None:
    file, name = item
    r = verdicts(file, name)[ORDER]
    if name.startswith("twin"):
        want = "holds"
    else:
        want = "unknown" if item in UNKNOWN_BUGS else "violated"
    why = r.reason or "; ".join(v.detail for v in r.violations)
    assert r.verdict == want, f"{file} {name}: {r.verdict} ({why})"


@cache
def _simulate(file: str, name: str) -> list[tuple[str, list[str]]]:
    """(status, race kinds) of the lowered program on the simulator, per
    argument assignment."""
    module = generic("module {\n" + sections(file)[name] + DECLS + "}\n")
    out = []
    for args in ARGS.get(file, [[]]):
        run = run_function(module, "main", args, SimulatedRuntime("cuda", seed=0))
        errors = run.outcome.errors if run.outcome is not None else []
        out.append((run.status, [e.kind for e in errors if e.kind in (HOST_RACE, DEVICE_RACE)]))
    return out


@pytest.mark.parametrize("item", PROGRAMS, ids=_id)
def test_simulator_agrees(item: tuple[str, str]) -> None:
    file, name = item
    runs = _simulate(file, name)
    assert all(status == "ok" for status, _ in runs), runs
    if name.startswith("twin"):
        assert not any(races for _, races in runs), runs
    else:
        assert any(races for _, races in runs), runs


def test_every_edge_kind_has_a_simulated_bug() -> None:
    seen = {f for f, name in PROGRAMS if name.startswith("bug")
            and any(races for _, races in _simulate(f, name))}
    assert seen == set(FILES)


def _call(index: int, iters: tuple[int, ...]) -> Call:
    return Call(index, "main", "host.load", (), fold.TRUE, "op1", iters=iters)


def test_loop_keys_tell_loop_instances_apart() -> None:
    # Loop A runs iterations 0 and 1, then loop B starts again at 0.
    calls = [_call(0, ()), _call(1, (0,)), _call(2, (1,)), _call(3, (0,)), _call(4, ())]
    keys = _loop_keys(calls)
    assert keys[1][0][0] == keys[2][0][0] != keys[3][0][0]
    # Same loop: iteration order; different loops: source text order.
    assert _precedes(keys[1], keys[2], text_before=False)
    assert not _precedes(keys[2], keys[1], text_before=True)
    assert _precedes(keys[2], keys[3], text_before=True)
    assert not _precedes(keys[2], keys[3], text_before=False)
    assert _precedes(keys[0], keys[2], text_before=True)


def test_nested_loop_instances_restart_per_outer_iteration() -> None:
    calls = [_call(0, (0, 0)), _call(1, (0, 1)), _call(2, (1, 0)), _call(3, (1, 1))]
    keys = _loop_keys(calls)
    assert keys[0][0] == (keys[1][0][0], 0) and keys[2][0][1] == 1
    assert keys[1][1][0] != keys[2][1][0]
    assert _precedes(keys[1], keys[2], text_before=False)
