"""Judging recorded program texts again, in batches, to get each violation's
evidence (the campaign's program records keep verdicts only).

The texts are validated and printed in generic form by one `mlir-opt`
process per batch (`--split-input-file`), then lowered and judged as `check`
does, under the settings of the campaign that recorded them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import judge
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.lowerings.xdsl_lowering import XdslLowering
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.source.user_file import SourceModule
from gpu_alloc_verify.verify.tools.commands import mlir_opt_argv
from gpu_alloc_verify.verify.tools.pool import map_on_workers
from gpu_alloc_verify.verify.tools.runner import ToolTimedOut, run_tool
from gpu_alloc_verify.verify.triage.fast_model import read_model

Record = dict[str, Any]
SPLIT = "// -----"
BATCH = 100


@dataclass(frozen=True)
class Settings:
    """The recorded campaign's settings (a results file's keys) texts are judged under."""

    lowering: str
    pipeline: str
    runtime: str = "cuda"
    solver_timeout_ms: int = 2000

    def options(self, invariants: Sequence[str]) -> CheckOptions:
        """What a text is judged with, on `invariants`."""
        return CheckOptions(tuple(InvariantId(i) for i in invariants), self.runtime,
                            self.solver_timeout_ms)


class _Recorded(SourceModule):
    """A recorded text: its model read by the fast reader (xDSL's parse only
    where that declines: ~1 ms, not ~20 ms, for the same model)."""

    _gap: str | None = None

    def program(self) -> Program | None:
        if self._program == "":
            self._program, self._gap = read_model(self.text, self.name)
        return self._program if isinstance(self._program, Program) else None

    def model_gap(self) -> str:
        # Found by the reading that failed: not a second xDSL parse.
        return self._gap if self.program() is None and self._gap is not None \
            else super().model_gap()


def normalize_batch(texts: Sequence[str], tool: str, timeout_s: float = 120.0
                    ) -> list[str | None]:
    """Each text in generic form with its locations, as `tool` prints it; None
    for a text the tool does not read."""
    return _normalize(texts, tool, timeout_s)[0]


def _normalize(texts: Sequence[str], tool: str, timeout_s: float = 120.0
               ) -> tuple[list[str | None], bool]:
    """`normalize_batch`, and whether no run timed out (what may be kept)."""
    if not texts:
        return [], True
    joined = f"\n{SPLIT}\n".join(t.rstrip("\n") for t in texts) + "\n"
    argv = mlir_opt_argv(tool, split_input_file=True, generic=True, locations=True,
                         unregistered=True, stdin=True)
    try:  # a tool that cannot start raises ToolNotStarted ("cannot run TOOL: ...")
        proc = run_tool(argv, stdin=joined, timeout_s=timeout_s)
    except ToolTimedOut:
        return [None] * len(texts), False
    chunks = proc.stdout.split(f"{SPLIT}\n")
    if len(chunks) != len(texts) or proc.returncode not in (0, 1):
        if len(texts) == 1:
            return [None], True
        mid = len(texts) // 2
        (a, a_ok), (b, b_ok) = _normalize(texts[:mid], tool), _normalize(texts[mid:], tool)
        return a + b, a_ok and b_ok
    return [c if c.strip() else None for c in chunks], True


# What this process already computed, so that a batch is read and judged once
# (knock-on triage and the lit tests reduce the same examples through the
# same candidate batches).  Exact: a batch's generic text depends on the
# batch as a whole (locations count lines across it), so the keys are whole
# batches, never single texts.  Bounded, cleared when full.
_CACHED_MAX = 4096
_NORMALIZED: dict[tuple[str, tuple[str, ...]], list[str | None]] = {}
# (lowering's id, settings, the batch judged) -> (that lowering, records per text)
_JUDGED: dict[tuple[Any, ...], tuple[Lowering, list[list[Record]]]] = {}
_LOWERINGS: dict[tuple[str, str], Lowering] = {}


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
    if len(cache) >= _CACHED_MAX:
        cache.clear()
    cache[key] = value


def _normalized(texts: list[str], tool: str) -> list[str | None]:
    key = (tool, tuple(texts))
    got = _NORMALIZED.get(key)
    if got is None:
        got, complete = _normalize(texts, tool)
        if complete:  # a timeout may not happen again
            _remember(_NORMALIZED, key, got)
    return list(got)


def lowering_for(settings: Settings) -> Lowering:
    """The campaign's lowering (EnvironmentProblem when its tool is not here).
    An in-process one is one object per spec, so that its judgements are found
    again (`_judged`); an external tool is looked for again each time."""
    if not settings.lowering.startswith("xdsl:"):
        return resolve(settings.lowering, settings.pipeline)
    key = (settings.lowering, settings.pipeline)
    if key not in _LOWERINGS:
        _LOWERINGS[key] = resolve(settings.lowering, settings.pipeline)
    return _LOWERINGS[key]


def _reader_tool(lowering: Lowering) -> str:
    tool = lowering.reading_tool()
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
        generic = _normalized(part, tool)
        # One SourceModule per text: `keep` and the lowering share its parse.
        read: list[SourceModule | None] = [
            _Recorded(names[start + k], t, g, tool) if g is not None else None
            for k, (t, g) in enumerate(zip(part, generic, strict=True))]
        read = [m if m is None or keep is None or keep(m) else None for m in read]
        kept = [(m, list(invariants[start + k])) for k, m in enumerate(read) if m is not None]
        found = iter(_judged(kept, settings, lowering))
        out += [None if m is None else next(found) for m in read]
    return out


# Processes an in-process lowering's judgements may be spread on (`workers`):
# one by default, so that a caller that did not ask gets no pool.
_WORKERS = 1
_PARALLEL_FROM = 8  # judgements worth a pool's round trip


@contextmanager
def workers(jobs: int) -> Iterator[None]:
    """Within it, judgements an in-process lowering makes one source at a time
    are spread on `jobs` forked workers (the report's triage: the campaign's
    programs judged again)."""
    global _WORKERS
    before, _WORKERS = _WORKERS, max(1, jobs)
    try:
        yield
    finally:
        _WORKERS = before


def _judge_remote(job: tuple[str, str, str, str | None, list[str], Settings]
                  ) -> list[Record]:
    """`_judge` of one recorded text in a worker (sent as text: a parsed
    module does not pickle), with the campaign's own lowering."""
    name, written, text, tool, wanted, settings = job
    source = _Recorded(name, written, text, tool)
    return _judge([(source, wanted)], settings, lowering_for(settings))[0]


def _judged(kept: list[tuple[SourceModule, list[str]]], settings: Settings,
            lowering: Lowering) -> list[list[Record]]:
    """The violation records of each source, computed once per process for
    the same settings and lowering: per source where the lowering lowers each
    on its own (in-process), else per batch (one tool run lowers it whole)."""
    keys = [(m.name, m.written, m.text, tuple(w)) for m, w in kept]
    groups = [[k] for k in range(len(kept))] if isinstance(lowering, XdslLowering) \
        else [list(range(len(kept)))]
    found: list[list[Record]] = [[] for _ in kept]
    _judge_misses(kept, keys, groups, settings, lowering)
    for group in groups:
        key = (id(lowering), settings, tuple(keys[k] for k in group))
        hit = _JUDGED.get(key)
        if hit is None or hit[0] is not lowering:
            hit = (lowering, _judge([kept[k] for k in group], settings, lowering))
            _remember(_JUDGED, key, hit)  # the lowering kept: its id stays its own
        for k, records in zip(group, hit[1], strict=True):
            found[k] = copy.deepcopy(records)  # callers keep and extend records
    return found


def _judge_misses(kept: list[tuple[SourceModule, list[str]]], keys: list[Any],
                  groups: list[list[int]], settings: Settings, lowering: Lowering) -> None:
    """Judge on `workers` the one-source groups not judged yet, when there are
    enough of them and the lowering is the campaign's own (what a worker
    resolves again); their records go where `_judged` finds them."""
    if _WORKERS <= 1 or not isinstance(lowering, XdslLowering) \
            or lowering is not lowering_for(settings):
        return
    misses = [g[0] for g in groups if len(g) == 1 and not _is_judged(
        (id(lowering), settings, (keys[g[0]],)), lowering)]
    if len(misses) < _PARALLEL_FROM:
        return
    jobs = [(kept[k][0].name, kept[k][0].written, kept[k][0].text, kept[k][0].tool,
             kept[k][1], settings) for k in misses]
    for k, records in zip(misses, map_on_workers(_judge_remote, jobs, _WORKERS), strict=True):
        _remember(_JUDGED, (id(lowering), settings, (keys[k],)), (lowering, [records]))


def _is_judged(key: Any, lowering: Lowering) -> bool:
    hit = _JUDGED.get(key)
    return hit is not None and hit[0] is lowering


def _judge(kept: list[tuple[SourceModule, list[str]]], settings: Settings,
           lowering: Lowering) -> list[list[Record]]:
    outcomes = lowering.lower_batch([m for m, _ in kept])
    found: list[list[Record]] = []
    for (source, wanted), outcome in zip(kept, outcomes, strict=True):
        j = judge(source, outcome, settings.lowering, settings.options(wanted))
        found.append([{"invariant": v.invariant, "lowering": settings.lowering,
                       "pipeline": settings.pipeline, "program": source.written,
                       "lowered": j.lowered, "detail": v.detail,
                       "counterexample": v.counterexample, "marked_calls": v.marked_calls}
                      for v in j.violations()])
    return found
