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
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId

Checker = Callable[[CheckContext], CheckResult]

CHECKERS: dict[InvariantId, Checker] = {
    InvariantId.SYNC_ALLOC_NO_STREAM: check_sync_alloc_no_stream,
    InvariantId.STREAM_NO_LEAK: check_stream_no_leak,
    InvariantId.STREAM_NO_USE_AFTER_DESTROY: check_use_after_destroy,
    InvariantId.EVENT_NO_LEAK: check_event_no_leak,
    InvariantId.HOST_SHARED_FLAG: check_host_shared_flag,
    InvariantId.ASYNC_ORDER: check_async_order,
    InvariantId.RUNTIME_CONTRACT: check_runtime_contract,
    InvariantId.LOWERING_COMPLETE: check_lowering_complete,
    InvariantId.DIFFERENTIAL: check_differential,
}

# Invariants decided from the IR by the solver (the bench's "solve" stage);
# `differential` executes programs instead.
SOLVER_INVARIANTS = [i for i in CHECKERS if i != InvariantId.DIFFERENTIAL]

__all__ = ["CHECKERS", "SOLVER_INVARIANTS", "CheckContext", "Checker"]
