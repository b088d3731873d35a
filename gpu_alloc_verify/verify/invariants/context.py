"""Everything a checker may look at for one (program, lowering)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.verify.extract.calls import LoweredFacts
from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.source.facts import SourceFacts


@dataclass
class CheckContext:
    program: Program | None  # the generator's model of the source, when it has one
    source: SourceFacts
    lowered: LoweredFacts
    module: Any  # the parsed lowered xDSL module
    lowered_text: str
    runtime: str = "cuda"
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    # Reasons of reachable unexplored paths, once computed (`common.reachable_cuts`).
    cut_reasons: list[str] | None = None
    # Facts of the IR entering gpu-to-llvm when the pipeline rewrote the
    # source before it: lowering-specific invariants are judged against it.
    entry: SourceFacts | None = None
    # The source as written (generic form, tagged locations), for a user's
    # module: `differential` interprets it where `program` is None.
    source_text: str | None = None
    # The LLVM version whose runtime wrappers the lowered code links against
    # (`tools.llvm_version.lowering_version`); None: an in-process lowering.
    llvm_version: int | None = None

    @property
    def lowering_input(self) -> SourceFacts:
        """What `gpu-to-llvm` was given: the entry IR, else the source."""
        return self.entry if self.entry is not None else self.source
