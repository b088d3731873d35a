"""What every lowering under test returns, and the interface it implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from verify.program import Program

# ok: lowered; rejected: declined with a diagnostic (e.g. failed to legalize);
# crash: signal, assertion, garbage or empty output; timeout: did not finish.
Status = Literal["ok", "rejected", "crash", "timeout"]


@dataclass
class LoweringOutcome:
    status: Status
    lowered: str = ""  # the lowered module, generic form with locations
    diagnostics: str = ""
    module: Any = None  # an already-parsed xDSL module (in-process lowerings)


class Lowering(Protocol):
    spec: str

    def describe(self) -> str:
        """One line for `gpu-alloc-verify lowerings` and the choice message."""
        ...

    def lower_batch(self, programs: Sequence[Program]) -> list[LoweringOutcome]:
        """Lower each program; never raises for a problem of one program."""
        ...
