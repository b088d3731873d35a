"""The invariant catalogue: ID -> checker over a `CheckContext`.

`lowering-no-crash` is decided from the lowering's status, before any checker
runs (see `verify.pipeline`).
"""

from __future__ import annotations

from collections.abc import Callable

from verify.invariants.completeness import check_lowering_complete
from verify.invariants.context import CheckContext
from verify.invariants.streams import check_stream_no_leak, check_sync_alloc_no_stream
from verify.verdicts import CheckResult

Checker = Callable[[CheckContext], CheckResult]

CHECKERS: dict[str, Checker] = {
    "sync-alloc-no-stream": check_sync_alloc_no_stream,
    "stream-no-leak": check_stream_no_leak,
    "lowering-complete": check_lowering_complete,
}

__all__ = ["CHECKERS", "CheckContext", "Checker"]
