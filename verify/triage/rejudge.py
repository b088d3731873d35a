"""Judging recorded program texts again, in batches, to get each violation's
evidence (the campaign's program records keep verdicts only).

The texts are validated and printed in generic form by one `mlir-opt`
process per batch (`--split-input-file`), then lowered and judged as `check`
does, under the settings of the campaign that recorded them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.ir.source_module import SourceModule
from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.tools.runner import ToolTimedOut, run_tool

Record = dict[str, Any]
SPLIT = "// -----"
BATCH = 100
_PRINT = ("--split-input-file", "--mlir-print-op-generic", "--mlir-print-debuginfo",
          "--mlir-print-local-scope", "--allow-unregistered-dialect")


@dataclass(frozen=True)
class Settings:
    lowering: str
    pipeline: str
    runtime: str = "cuda"
    solver_timeout_ms: int = 2000


def normalize_batch(texts: Sequence[str], tool: str, timeout_s: float = 120.0
                    ) -> list[str | None]:
    """Each text in generic form with its locations, as `tool` prints it; None
    for a text the tool does not read."""
    if not texts:
        return []
    joined = f"\n{SPLIT}\n".join(t.rstrip("\n") for t in texts) + "\n"
    try:  # a tool that cannot start raises ToolNotStarted ("cannot run TOOL: ...")
        proc = run_tool([tool, *_PRINT, "-"], stdin=joined, timeout_s=timeout_s)
    except ToolTimedOut:
        return [None] * len(texts)
    chunks = proc.stdout.split(f"{SPLIT}\n")
    if len(chunks) != len(texts) or proc.returncode not in (0, 1):
        if len(texts) == 1:
            return [None]
        mid = len(texts) // 2
        return normalize_batch(texts[:mid], tool) + normalize_batch(texts[mid:], tool)
    return [c if c.strip() else None for c in chunks]


def lowering_for(settings: Settings) -> Lowering:
    """The campaign's lowering (EnvironmentProblem when its tool is not here)."""
    return resolve(settings.lowering, settings.pipeline)


def _reader_tool(lowering: Lowering) -> str:
    tool = lowering.path if isinstance(lowering, MlirOptLowering) else find_mlir_opt()
    if tool is None:
        raise EnvironmentProblem("no mlir-opt to read recorded programs with: "
                                 "apt-get install mlir-19-tools")
    return tool


def rejudge(texts: Sequence[str], names: Sequence[str], settings: Settings,
            invariants: Sequence[Sequence[str]], lowering: Lowering | None = None,
            keep: Callable[[SourceModule], bool] | None = None
            ) -> list[list[Record] | None]:
    """Per text, its violation records (`--json` shape plus `pipeline`) of the
    given invariants; None where the text could not be read again (or `keep`
    refuses it)."""
    lowering = lowering or lowering_for(settings)
    tool = _reader_tool(lowering)
    out: list[list[Record] | None] = []
    for start in range(0, len(texts), BATCH):
        part = list(texts[start:start + BATCH])
        generic = normalize_batch(part, tool)
        # One SourceModule per text: `keep` and the lowering share its parse.
        read = [SourceModule(names[start + k], t, g, tool) if g is not None else None
                for k, (t, g) in enumerate(zip(part, generic, strict=True))]
        read = [m if m is None or keep is None or keep(m) else None for m in read]
        generic = [g if m is not None else None for g, m in zip(generic, read, strict=True)]
        sources = [m for m in read if m is not None]
        outcomes = iter(lowering.lower_batch(sources))
        for k, (text, g) in enumerate(zip(part, generic, strict=True)):
            if g is None:
                out.append(None)
                continue
            source = sources.pop(0)
            wanted = list(invariants[start + k])
            j = judge(source, next(outcomes), settings.lowering, wanted, settings.runtime,
                      settings.solver_timeout_ms)
            out.append([{"invariant": v.invariant, "lowering": settings.lowering,
                         "pipeline": settings.pipeline, "program": text,
                         "lowered": j.lowered, "detail": v.detail,
                         "counterexample": v.counterexample, "marked_calls": v.marked_calls}
                        for v in j.violations()])
    return out
