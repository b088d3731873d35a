"""A portfolio of the pipelines users run, as one `mlir-opt` lowering.

A campaign without `--pipeline` does not test `gpu-to-llvm` alone: it spreads
its programs over the pipelines people put it in (the issue-40 list), so a
defect that shows only behind `func.func(gpu-async-region)`, or only after
`convert-scf-to-cf`, is met without a flag.  Each program gets one pipeline,
chosen from a digest of its text: the same program always gets the same one
(search, resume, replay), and the choice never depends on Python's salted
`hash`.  A pipeline that only matters for some op (outlining for
`gpu.launch`, the async runtime chain for `async.execute`) is offered only to
programs that hold it.  A pipeline whose passes the installed tool's `--help`
does not list (`gpu-lower-to-nvvm-pipeline` before LLVM 18) is left out for
that version, not run and refused.

The lowering's spec stays the version's (`mlir-opt-19`): results are keyed by
it as before, and each program's record says which pipeline it went through
(`pipeline_for`), which triage and replay read back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE, MlirOptLowering
from gpu_alloc_verify.verify.lowerings.pass_pipeline import parse
from gpu_alloc_verify.verify.lowerings.tool_passes import tool_passes
from gpu_alloc_verify.verify.model.program import Program

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.source.user_file import SourceModule

# What a campaign records as its pipeline when it ran the portfolio; resolving
# an mlir-opt spec with it gives a PortfolioLowering.
PORTFOLIO = "portfolio"
_KERNELS = "gpu.module(convert-gpu-to-nvvm)"
_ASYNC_RUNTIME = "async-to-async-runtime,async-runtime-ref-counting,convert-async-to-llvm"


@dataclass(frozen=True)
class Entry:
    """One pipeline of the portfolio; `wants`: the op names (custom and
    generic spelling) a program must hold for it to be worth running."""

    pipeline: str
    wants: tuple[str, ...] = ()

    def fits(self, text: str) -> bool:
        return not self.wants or any(w in text for w in self.wants)


_LAUNCH = ("gpu.launch ", '"gpu.launch"')  # not gpu.launch_func
_EXECUTE = ("async.execute",)

# Order matters only for the digest's pick: append, do not reorder, so that a
# recorded campaign's programs keep their pipelines.
ENTRIES: tuple[Entry, ...] = (
    Entry(DEFAULT_PIPELINE),
    Entry(f"convert-scf-to-cf,{DEFAULT_PIPELINE}"),
    Entry(f"func.func(gpu-async-region),{DEFAULT_PIPELINE}"),
    Entry(f"{DEFAULT_PIPELINE},{_ASYNC_RUNTIME}", _EXECUTE),
    Entry(f"gpu-kernel-outlining,{DEFAULT_PIPELINE}", _LAUNCH),
    # Its gpu-module-to-binary would call ptxas for the default fatbin; PTX
    # text (isa) needs no CUDA toolkit and leaves the host code the same.
    Entry("gpu-lower-to-nvvm-pipeline{cubin-format=isa}"),
)


def available(path: str, entries: Sequence[Entry] = ENTRIES) -> tuple[Entry, ...]:
    """The entries whose every pass the tool at `path` lists in its --help
    (all of them when it does not answer: its own diagnostics decide)."""
    have = tool_passes(path)
    if have is None:
        return tuple(entries)
    return tuple(e for e in entries if all(n in have for n in parse(e.pipeline).pass_names()))


def pick(text: str, entries: Sequence[Entry]) -> Entry:
    """The entry of a program (`text` as it is lowered, without location
    prefixes): a digest of the text over the entries that fit it."""
    fitting = [e for e in entries if e.fits(text)] or list(entries[:1])
    digest = hashlib.sha256(text.encode()).digest()
    return fitting[int.from_bytes(digest[:8], "big") % len(fitting)]


@dataclass
class PortfolioLowering(MlirOptLowering):
    """`mlir-opt` with each program lowered by its portfolio pipeline: one
    MlirOptLowering per pipeline, each taking its share of a batch in one
    process."""

    entries: tuple[Entry, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        self.pipeline = PORTFOLIO
        if not self.entries:
            self.entries = available(self.path)

    def describe(self) -> str:
        return (f"{super().describe().split(', pipeline ')[0]}, a portfolio of "
                f"{len(self.entries)} pipelines: "
                + "; ".join(f"'{e.pipeline}'" for e in self.entries))

    def pipelines(self) -> list[str]:
        return [e.pipeline for e in self.entries]

    def pipeline_for(self, program: Program | SourceModule) -> str:
        return pick(program.to_mlir(), self.entries).pipeline

    def member(self, pipeline: str) -> MlirOptLowering:
        return MlirOptLowering(self.spec, self.path, pipeline, self.timeout_s)

    def rewrites_source(self) -> bool:
        return False  # each member says so for its own share

    def unavailable(self) -> str | None:
        return None if self.entries else f"{self.spec} has none of the portfolio's pipelines"

    def pipeline_error(self) -> str | None:
        """The first member pipeline the tool refuses (none should: each
        was read from its --help)."""
        for e in self.entries:
            why = self.member(e.pipeline).pipeline_error()
            if why is not None:
                return f"portfolio pipeline '{e.pipeline}': {why}"
        return None

    def lower_batch(self, programs: Sequence[Program | SourceModule]) -> list[LoweringOutcome]:
        why = self.unavailable()
        if why is not None:
            return [LoweringOutcome("rejected", diagnostics=why, not_applicable=why)
                    for _ in programs]
        shares: dict[str, list[int]] = {}
        for k, p in enumerate(programs):
            shares.setdefault(self.pipeline_for(p), []).append(k)
        out: list[LoweringOutcome | None] = [None] * len(programs)
        for pipeline, idx in shares.items():
            outcomes = self.member(pipeline).lower_batch([programs[k] for k in idx])
            for k, outcome in zip(idx, outcomes, strict=True):
                out[k] = outcome
        return [o for o in out if o is not None]
