"""Everything a checker may look at for one (program, lowering)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verify.extract import LoweredFacts
from verify.program import Program
from verify.solver import DEFAULT_TIMEOUT_MS
from verify.source_facts import SourceFacts


@dataclass
class CheckContext:
    program: Program
    source: SourceFacts
    lowered: LoweredFacts
    module: Any  # the parsed lowered xDSL module
    lowered_text: str
    runtime: str = "cuda"
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    # Reasons of reachable unexplored paths, once computed (`common.reachable_cuts`).
    cut_reasons: list[str] | None = None
