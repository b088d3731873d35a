"""What every lowering under test returns, and the interface it implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from gpu_alloc_verify.verify.model.program import Program

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.source.user_file import SourceModule

# ok: lowered; rejected: declined with a diagnostic (e.g. failed to legalize);
# invalid-ir: the tool failed on IR a pass produced (its verifier, or casts the
# conversion cannot reconcile: `failure_kind`); crash: signal, assertion,
# garbage or empty output; timeout: did not finish.
Status = Literal["ok", "rejected", "invalid-ir", "crash", "timeout"]


@dataclass(frozen=True)
class InvalidIR:
    """What the tool's own error says about IR a pass produced."""

    error: str  # its first error line, location dropped ("'llvm.insertvalue' op ...")
    op: str  # the op it names ("llvm.insertvalue"), "" when none
    where: str  # the source location it names ("f.mlir:11:13"), "" when none
    producer: str  # the pass it names ("gpu-to-llvm"), "" when unknown
    evidence: str  # how the tool showed the IR is the pass's, not the input's


@dataclass
class LoweringOutcome:
    status: Status
    lowered: str = ""  # the lowered module, generic form with locations
    diagnostics: str = ""
    module: Any = None  # an already-parsed xDSL module (in-process lowerings)
    # Why this lowering cannot take the input at all (e.g. an in-process
    # lowering given a file outside the generator's model): every verdict is
    # then not-applicable, with this reason.
    not_applicable: str = ""
    # The IR entering gpu-to-llvm, when passes before it rewrote the source
    # (generic form with locations); "" when it is the source itself.
    entry: str = ""
    # Set with status invalid-ir.
    invalid: InvalidIR | None = None


class Lowering(Protocol):
    spec: str

    def describe(self) -> str:
        """One line for `gpu-alloc-verify lowerings` and the choice message."""
        ...

    def lower_batch(self, programs: Sequence[Program | SourceModule]
                    ) -> list[LoweringOutcome]:
        """Lower each program (a generated one, or a user's module as
        written); never raises for a problem of one program."""
        ...

    def external_tool(self) -> str | None:
        """The external mlir-opt this lowering runs; None when it lowers in
        process."""
        ...

    def reading_tool(self) -> str | None:
        """The mlir-opt that reads a text (a user's file, a recorded program)
        for this lowering: its own tool, else the newest installed
        (`tools.commands.default_reader`); None when there is none."""
        ...
