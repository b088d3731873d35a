"""A real external `mlir-opt` as the lowering under test.

A whole batch goes through one process with `--split-input-file` (process
start costs ~20x the lowering of a small program).  Each program's ops carry
`loc("pK/opN")`, so diagnostics and output chunks map back to program K.  A
crash (signal, exit status above 1), a hang (no answer within `timeout_s`,
per process) or malformed output (wrong number of `// -----` chunks) of the
batch is bisected, so one bad program cannot hide the verdicts of the others:
that program alone gets status crash or timeout, i.e. `lowering-no-crash`
violated.  Bisecting a hang costs about one timeout per halving.
"""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.ir.locations import first_batch_index
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.lowerings.failure_kind import failure_outcome
from gpu_alloc_verify.verify.lowerings.pass_pipeline import Pipeline, PipelineSyntaxError
from gpu_alloc_verify.verify.lowerings.pass_pipeline import parse as parse_pipeline
from gpu_alloc_verify.verify.lowerings.tool_passes import installed_passes, tool_passes
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.tools.blame import tool_failure
from gpu_alloc_verify.verify.tools.commands import mlir_opt_argv, print_ir_before
from gpu_alloc_verify.verify.tools.runner import (
    ToolResult,
    ToolTimedOut,
    find_mlir_opt,
    run_tool,
    tool_version,
)

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.source.user_file import SourceModule

SPLIT = "// -----"
# Kernels need their gpu.module converted before gpu-to-llvm: without it, 19
# and 22 refuse every gpu.launch_func ("got 5 kernel operands but expected
# 1").  On a module without kernels the nested pass does nothing, so the
# output equals plain gpu-to-llvm's (measured on 16, 19 and 22).
DEFAULT_PIPELINE = "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"
DEFAULT_TIMEOUT_S = 60.0
# What mlir-opt prints when it cannot build the pass pipeline (LLVM 16-22):
# an unknown pass, a bad option, a pass nested where it cannot run.
_PIPELINE_ERRORS = (
    "PassPipeline Parser",
    "does not refer to a registered pass",
    "Pass-Options-Parser",
    "failed to add `",
    "Can't add pass",
)
_VALIDATE_TIMEOUT_S = 30.0


@dataclass
class MlirOptLowering:
    spec: str
    path: str
    pipeline: str = DEFAULT_PIPELINE
    # Wall-clock limit of one mlir-opt process (one batch).  A batch that
    # runs past it is split in halves until the program that hangs is alone;
    # that one gets the verdict `timeout`.
    timeout_s: float = DEFAULT_TIMEOUT_S

    def describe(self) -> str:
        version = tool_version(self.path)
        return f"{self.spec}: {self.path} (LLVM {version}), pipeline '{self.pipeline}'"

    def parsed(self) -> Pipeline:
        """`pipeline` parsed (cached per text); PipelineSyntaxError if malformed."""
        return parse_pipeline(self.pipeline)

    def command(self) -> list[str]:
        # A pipeline that rewrites the source before gpu-to-llvm also prints
        # the IR entering it (on stderr): lowering-specific invariants are
        # judged against that IR.
        entry = [print_ir_before("gpu-to-llvm")] if self.rewrites_source() else []
        # Wrapped exactly once, whether or not the user wrote builtin.module(...).
        return mlir_opt_argv(self.path, split_input_file=True, pipeline=self.parsed().wrapped(),
                             extra=entry, generic=True, locations=True, unregistered=True)

    def reading_tool(self) -> str | None:
        """Its own binary reads the texts it lowers: what it cannot read is
        not-applicable for it alone."""
        return self.path

    def external_tool(self) -> str | None:
        return self.path

    def rewrites_source(self) -> bool:
        """Does a pass before gpu-to-llvm rewrite host code (e.g.
        `func.func(gpu-async-region)`)?  Passes nested in `gpu.module` touch
        only kernels."""
        return self.parsed().rewrites_source()

    def unavailable(self) -> str | None:
        """Why this binary cannot run the pipeline at all: it lacks a pass
        that another mlir-opt version has.  Every verdict is then
        not-applicable with this reason; the run goes on."""
        missing = self._missing_passes()
        if not missing:
            return None
        return f"{self.spec} has no pass{'es' if len(missing) > 1 else ''} {', '.join(missing)}"

    def _missing_passes(self) -> list[str]:
        """Passes of the pipeline this binary's --help does not list ([] when
        the pipeline is malformed or the binary does not say)."""
        try:
            names = self.parsed().pass_names()
        except PipelineSyntaxError:
            return []  # pipeline_error says so
        have = tool_passes(self.path, min(self.timeout_s, _VALIDATE_TIMEOUT_S))
        return [] if have is None else [n for n in names if n not in have]

    def pipeline_error(self) -> str | None:
        """Why `pipeline` is not a pass pipeline at all, or None.

        Malformed text, a pass no installed mlir-opt has (a typo), or what
        the tool says on an empty module: a pipeline it cannot build (a bad
        option, a pass nested where it cannot run) fails there with a
        pipeline diagnostic.  A pass only this version lacks is not an error
        (see `unavailable`); a crash, a hang or a pass failing on a real op
        is left to the verdicts; a tool that fails even to parse an empty
        module raises ToolFailed."""
        try:
            self.parsed()
        except PipelineSyntaxError as e:
            return str(e)
        missing = self._missing_passes()
        if missing:  # the tool would refuse it: nothing more to learn by running it
            typos = [n for n in missing if n not in installed_passes()]
            return (f"'{typos[0]}' is a pass of neither {self.spec} nor any installed "
                    "mlir-opt-N (see mlir-opt --help)") if typos else None
        try:  # a tool that cannot start raises ToolNotStarted ("cannot run PATH: ...")
            proc = run_tool(mlir_opt_argv(self.path, pipeline=self.parsed().wrapped()),
                            stdin="module {}\n",
                            timeout_s=min(self.timeout_s, _VALIDATE_TIMEOUT_S))
        except ToolTimedOut:
            return None
        pipeline_said = proc.returncode == 1 and any(m in proc.stderr for m in _PIPELINE_ERRORS)
        if proc.returncode != 0 and not pipeline_said:
            # A build that cannot even parse an empty module fails on every
            # program: its failure, not a verdict on each (ToolFailed, exit 2).
            blamed = tool_failure(proc, "its input", crash_blames_tool=False)
            if blamed is not None:
                raise blamed
        if not pipeline_said:
            return None
        return _first_error(proc.stderr)

    def lower_batch(self, programs: Sequence[Program | SourceModule]) -> list[LoweringOutcome]:
        if not programs:
            return []
        why = self.unavailable()
        if why is not None:
            return [LoweringOutcome("rejected", diagnostics=why, not_applicable=why)
                    for _ in programs]
        return self._lower(list(enumerate(programs)))

    def _lower(self, items: list[tuple[int, Program | SourceModule]]) -> list[LoweringOutcome]:
        text = f"\n{SPLIT}\n".join(p.to_mlir(loc_prefix=f"p{k}/") for k, p in items)
        proc = self._run(text)
        if proc is None:  # no answer within timeout_s
            if len(items) == 1:
                return [LoweringOutcome("timeout", diagnostics=f"no answer in {self.timeout_s:g}s"
                                        " (the process group was killed)")]
            return self._bisect(items)
        chunks = proc.stdout.split(f"\n{SPLIT}\n")
        if proc.returncode < 0 or proc.returncode > 1 or len(chunks) != len(items):
            if len(items) > 1:
                return self._bisect(items)
            return [_crash_outcome(proc, len(chunks))]
        outcomes = [
            self._outcome(k, chunk, proc.stderr, proc.returncode, p)
            for (k, p), chunk in zip(items, chunks, strict=False)
        ]
        if self.rewrites_source():
            dumps = _entry_dumps(proc.stderr)
            for (k, _), outcome in zip(items, outcomes, strict=False):
                outcome.entry = dumps.get(k, "")
        return outcomes

    def _run(self, text: str, extra: Sequence[str] = ()) -> ToolResult | None:
        """One process on `text` (`extra`: flags added to `command()`); None
        when it did not finish within timeout_s (the runner killed its process
        group).  ToolNotStarted (an EnvironmentProblem) when it cannot start."""
        try:
            return run_tool([*self.command(), *extra], stdin=text, timeout_s=self.timeout_s)
        except ToolTimedOut:
            return None

    def _bisect(self, items: list[tuple[int, Program | SourceModule]]
                ) -> list[LoweringOutcome]:
        mid = len(items) // 2
        return self._lower(items[:mid]) + self._lower(items[mid:])

    def _outcome(self, k: int, chunk: str, stderr: str, rc: int,
                 program: Program | SourceModule) -> LoweringOutcome:
        mine = _diagnostics_for(k, stderr)
        body = chunk.strip()
        if body.startswith(SPLIT):
            body = body[len(SPLIT):].strip()
        if body:
            return LoweringOutcome("ok", lowered=body.replace(f'"p{k}/', '"') + "\n",
                                   diagnostics=mine)
        if mine or rc == 1:
            # Declined, the input's, or invalid IR a pass produced: a rerun of
            # this program alone settles an error at an op (`failure_kind`).
            text = program.to_mlir(loc_prefix=f"p{k}/")
            return failure_outcome(mine or stderr.strip(), rc,
                                   lambda flags: self._run(text, flags))
        return LoweringOutcome("crash", diagnostics="exit 0 with no output for this program")


def _first_error(stderr: str) -> str:
    """The first diagnostic line, without mlir-opt's location prefixes."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    first = next((ln for ln in lines if "error:" in ln), lines[0] if lines else "")
    return first.rsplit("error: ", 1)[-1].strip()


def top_level_passes(pipeline: str) -> list[str]:
    """The top-level passes of a pipeline (one outer builtin.module(...)
    dropped), nested pipelines kept whole, in canonical text."""
    try:
        return parse_pipeline(pipeline).top_level()
    except PipelineSyntaxError:  # a recorded pipeline only names a campaign: keep it whole
        return [pipeline.strip()] if pipeline.strip() else []


_DUMP_HEADER = re.compile(r"^// -----// IR Dump Before .*\(gpu-to-llvm\).*//----- //$")


def _entry_dumps(stderr: str) -> dict[int, str]:
    """Program index -> the module entering gpu-to-llvm (its locations name
    the program, `loc("pK/...")`), from `--mlir-print-ir-before` output."""
    dumps: dict[int, str] = {}
    lines = stderr.splitlines()
    i = 0
    while i < len(lines):
        if not _DUMP_HEADER.match(lines[i]):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("})"):
            j += 1
        text = "\n".join(lines[i + 1:j + 1])
        k = first_batch_index(text)
        if k is not None:
            dumps[k] = text.replace(f'"p{k}/', '"') + "\n"
        i = j + 1
    return dumps


def _diagnostics_for(k: int, stderr: str) -> str:
    # A name location prints quoted ("p3/op1": error: ...), a file location
    # bare (p3/file.mlir:4:7: error: ...).
    tag, bare = f'"p{k}/', f"p{k}/"
    lines = [ln.replace(tag, '"').removeprefix(bare) for ln in stderr.splitlines()
             if tag in ln or ln.startswith(bare)]
    return "\n".join(lines)


def _crash_outcome(proc: ToolResult, n_chunks: int = 1) -> LoweringOutcome:
    if proc.returncode < 0:
        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = "?"
        why = f"killed by signal {-proc.returncode} ({name})"
    elif proc.returncode <= 1 and n_chunks != 1:
        why = (f"exit {proc.returncode} with {n_chunks} output chunks for one input "
               f"(split markers '{SPLIT}' do not match)")
    elif proc.returncode == 0:
        why = "exit 0 with malformed output"
    else:
        why = f"exit status {proc.returncode}"
    tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
    return LoweringOutcome("crash", diagnostics=f"{why}\n{tail}".strip())


def resolve_mlir_opt(spec: str, pipeline: str,
                     timeout_s: float = DEFAULT_TIMEOUT_S) -> MlirOptLowering:
    """`mlir-opt`, `mlir-opt-N` or `mlir-opt:/path` to a runnable lowering."""
    if spec.startswith("mlir-opt:"):
        path = spec.split(":", 1)[1]
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            raise EnvironmentProblem(f"{spec}: '{path}' is not an executable file; give the "
                                     "path of an mlir-opt binary (or a wrapper script with "
                                     "its x bit set)")
        return MlirOptLowering(spec, path, pipeline, timeout_s)
    m = re.fullmatch(r"mlir-opt(?:-(\d+))?", spec)
    if not m:
        raise EnvironmentProblem(f"unknown lowering '{spec}'")
    version = int(m.group(1)) if m.group(1) else None
    found = find_mlir_opt(version)
    if found is None:
        pkg = f"mlir-{version}-tools" if version else "mlir-19-tools (or any mlir-N-tools)"
        raise EnvironmentProblem(
            f"{spec}: no such mlir-opt on PATH or under /usr/lib/llvm-*/bin; "
            f"install it with: apt-get install {pkg}"
        )
    return MlirOptLowering(spec, found, pipeline, timeout_s)
