"""The invariant catalogue (stage: judge): ID -> checker over a `CheckContext`.

- `pipeline`: lower a batch with each lowering, read it, judge every invariant.
- `context`: what a checker is given; `common`: verdicts over escapes and
  unknowns; `solver`: Z3 with a time limit; `schedule`: async work orders.
- Checkers: `streams` (sync-alloc-no-stream, stream-no-leak), `handles`
  (use after destroy, event leaks), `flags` (host-shared-flag), `ordering`
  (async-order), `contract` (runtime-contract), `completeness`
  (lowering-complete), `differential` (runs programs, see `oracles/`).

`lowering-no-crash` is decided from the lowering's status, before any checker
runs (see `pipeline`).
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_alloc_verify.verify.invariants.completeness import check_lowering_complete
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.invariants.contract import check_runtime_contract
from gpu_alloc_verify.verify.invariants.differential import check_differential
from gpu_alloc_verify.verify.invariants.flags import check_host_shared_flag
from gpu_alloc_verify.verify.invariants.handles import check_event_no_leak, check_use_after_destroy
from gpu_alloc_verify.verify.invariants.ordering import check_async_order
from gpu_alloc_verify.verify.invariants.streams import (
    check_stream_no_leak,
    check_sync_alloc_no_stream,
)
from gpu_alloc_verify.verify.model.verdicts import CheckResult

Checker = Callable[[CheckContext], CheckResult]

CHECKERS: dict[str, Checker] = {
    "sync-alloc-no-stream": check_sync_alloc_no_stream,
    "stream-no-leak": check_stream_no_leak,
    "stream-no-use-after-destroy": check_use_after_destroy,
    "event-no-leak": check_event_no_leak,
    "host-shared-flag": check_host_shared_flag,
    "async-order": check_async_order,
    "runtime-contract": check_runtime_contract,
    "lowering-complete": check_lowering_complete,
    "differential": check_differential,
}

# Invariants decided from the IR by the solver (the bench's "solve" stage);
# `differential` executes programs instead.
SOLVER_INVARIANTS = [i for i in CHECKERS if i != "differential"]

__all__ = ["CHECKERS", "SOLVER_INVARIANTS", "CheckContext", "Checker"]
