"""What one judgement checks and how (`judge`'s `options`): the invariants,
the runtime profile, the solver's time limit and how execution checks the
verdicts, as one frozen value threaded from the command line, the public
API and the campaigns down to `verify.invariants.pipeline.judge`.

The defaults are `judge`'s: every active invariant, CUDA, `DEFAULT_TIMEOUT_MS`
per Z3 query, `DEFAULT_TRUTH` (every violation's witness run, holds not
cross-checked).  `check` judges with `CHECK_TRUTH`, campaigns with
`campaign_truth(share)` (`CAMPAIGN_TRUTH` at the default share).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc_verify.verify.invariants import CHECKERS
from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.invariants.witness import DEFAULT_CROSSCHECK_SHARE, TruthPolicy
from gpu_alloc_verify.verify.model.runtime_api import PROFILES
from gpu_alloc_verify.verify.model.verdicts import InvariantId

NO_CRASH = InvariantId.LOWERING_NO_CRASH
# The runtime profiles an invariant can be checked on (`--runtime`).
RUNTIMES: tuple[str, ...] = tuple(PROFILES)

DEFAULT_TRUTH = TruthPolicy()  # every violation's witness run; holds not cross-checked
# `check` (a file, the public API on text): every holds cross-checked on
# boundary inputs, every violation's witness also run natively.
CHECK_TRUTH = TruthPolicy(crosscheck=True, native=True)


def campaign_truth(share: float = DEFAULT_CROSSCHECK_SHARE) -> TruthPolicy:
    """A campaign's: every violation's witness run, the holds of `share` of
    the programs cross-checked (none at 0)."""
    return TruthPolicy(crosscheck=share > 0, share=share)


CAMPAIGN_TRUTH = campaign_truth()


def active_invariants(selected: Sequence[str] | None = None) -> list[InvariantId]:
    """Every invariant this harness judges, in catalogue order (or those of
    them in `selected`)."""
    known = [NO_CRASH, *CHECKERS]
    if not selected:
        return known
    return [i for i in known if i in selected]


def _all_active() -> tuple[InvariantId, ...]:
    return tuple(active_invariants())


@dataclass(frozen=True)
class CheckOptions:
    """The options of one judgement.

    `invariants`: IDs in the order verdicts are reported (text is taken: it
    is read as `InvariantId`; a list is kept as a tuple).  `runtime`: the
    profile runtime-contract and the executions check against, one of
    `RUNTIMES`.  `timeout_ms`: the limit of one Z3 query.  `truth`: how
    execution checks the verdicts (`verify.invariants.witness`); None: not
    at all.  `replace(**changes)` is `dataclasses.replace`."""

    invariants: tuple[InvariantId, ...] = field(default_factory=_all_active)
    runtime: str = "cuda"
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    truth: TruthPolicy | None = DEFAULT_TRUTH

    def __post_init__(self) -> None:
        given: Any = self.invariants
        if isinstance(given, str):  # one ID, not its characters
            given = (given,)
        object.__setattr__(self, "invariants", tuple(InvariantId(i) for i in given))
        if self.runtime not in RUNTIMES:
            raise ValueError(f"unknown runtime {self.runtime!r}: the runtime profile must be "
                             f"one of {', '.join(RUNTIMES)}")

    def replace(self, **changes: Any) -> CheckOptions:
        """A copy with `changes` (validated again)."""
        return dataclasses.replace(self, **changes)


__all__ = ["CAMPAIGN_TRUTH", "CHECK_TRUTH", "DEFAULT_TRUTH", "RUNTIMES", "CheckOptions",
           "active_invariants", "campaign_truth"]
