"""What a failing `mlir-opt` run says about the lowering under test.

The tool exits 1 alike when a pass declines an op, when the input does not
verify, and when IR a pass produced fails the verifier the pass manager runs
after each pass.  Only the last is a defect of the lowering
(`lowering-no-crash`); a pass declining an input is `rejected` (DESIGN,
"What counts as a finding").  Rules, on one program's diagnostics:

- exit status above 1 or a signal: `crash`.
- "failed to legalize unresolved materialization" (LLVM 17 on) or "failed to
  materialize conversion" (16): the conversion left casts it cannot
  reconcile, so its own output is inconsistent: `invalid-ir`.
- "failed to legalize operation": the pass declines an op: `declined`.
- an error at an op a conversion creates (`llvm.*`, an unrealized cast): the
  verifier's, the pass's own or the input's.  `settle` reruns that one program
  (rare, so the extra process starts stay off the common path):
  * with `--verify-each=0` it succeeds: the input verified (parsing always
    verifies) and every pass succeeded, so the failure was the verifier on a
    pass's output: `invalid-ir`;
  * it fails with an "IR Dump After ... Failed" (`--mlir-print-ir-after-failure`):
    a pass failed by itself: `declined`;
  * it fails with no pass dump: before any pass ran, the input: `input-error`.
- anything else (a parse error, an error at an op no conversion creates, such
  as a `gpu.launch_func` whose kernel the pipeline left unconverted, a
  documented precondition): `declined`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

from gpu_alloc_verify.verify.lowerings.base import InvalidIR, LoweringOutcome
from gpu_alloc_verify.verify.tools.commands import NAME_PASS, NO_VERIFY
from gpu_alloc_verify.verify.tools.runner import ToolResult

Kind = Literal["input-error", "declined", "invalid-ir", "crash", "unsettled"]
# Runs the failing program again with extra flags; None when it did not finish.
Rerun = Callable[[Sequence[str]], ToolResult | None]

CONFIRMED_BY_TOOL = "confirmed by the tool's own error"
_UNRESOLVED = ("failed to legalize unresolved materialization",  # LLVM 17 on
               "failed to materialize conversion")  # LLVM 16
_DECLINED = "failed to legalize operation"
_AT_OP = re.compile(r"^'([\w.$-]+)' op\b")
_NAMED = re.compile(r"^loc\((.*?)\): ")
_PASS_FAILED = re.compile(r"IR Dump After (\S+) Failed(?: \(([^)]*)\))?")


def first_error(diagnostics: str) -> tuple[str, str]:
    """(location, message) of the first `error:` line; the location as the
    tool printed it, without its trailing colon."""
    for line in diagnostics.splitlines():
        where, sep, message = line.strip().partition("error: ")
        if not sep:
            continue
        # A bare name location prints as `<unknown>:0: error: loc("op3"): ...`.
        named = _NAMED.match(message)
        if named:
            return named.group(1), message[named.end():].strip()
        return where.rstrip(": ").removeprefix("within split at "), message.strip()
    return "", ""


def failing_op(message: str) -> str:
    """The op an error names ("'llvm.insertvalue' op ..." -> llvm.insertvalue)."""
    m = _AT_OP.match(message)
    return m.group(1) if m else ""


def classify(diagnostics: str, rc: int) -> Kind:
    """The kind of a failure from its text alone; `unsettled` when only a rerun
    can tell (`settle`)."""
    if rc < 0 or rc > 1:
        return "crash"
    if any(u in diagnostics for u in _UNRESOLVED):
        return "invalid-ir"
    if _DECLINED in diagnostics:
        return "declined"
    op = failing_op(first_error(diagnostics)[1])
    # Ops only a conversion creates (the input was verified, so a failure at
    # one of them is about what the pipeline did to it).
    if op.startswith("llvm.") or op == "builtin.unrealized_conversion_cast":
        return "unsettled"
    return "declined"


def failure_outcome(diagnostics: str, rc: int, rerun: Rerun) -> LoweringOutcome:
    """The outcome of one program the tool failed on (exit status 1)."""
    kind = classify(diagnostics, rc)
    note = ""
    if kind == "unsettled":
        kind, note = settle(rerun)
    if kind == "invalid-ir":
        invalid = _confirm(diagnostics, rerun, note)
        if isinstance(invalid, InvalidIR):
            return LoweringOutcome("invalid-ir", diagnostics=diagnostics, invalid=invalid)
        kind, note = "declined", invalid
    if kind == "input-error":
        where, message = first_error(diagnostics)
        return LoweringOutcome("rejected", diagnostics=diagnostics, not_applicable=(
            f"the input does not verify for this tool: {message}"
            + (f" (at {where})" if where else "")))
    if kind == "crash":
        return LoweringOutcome("crash", diagnostics=diagnostics)
    return LoweringOutcome("rejected", diagnostics=diagnostics + (f"\n({note})" if note else ""))


def settle(rerun: Rerun) -> tuple[Kind, str]:
    """Decide an error at an op by one rerun with the verifier between passes
    off: (kind, how it was decided)."""
    proc = rerun(NO_VERIFY)
    if proc is None or proc.returncode not in (0, 1):
        what = "did not finish" if proc is None else f"exited {proc.returncode}"
        return "declined", (f"not settled whether the verifier or the pass reported this: "
                            f"the rerun with --verify-each=0 {what}")
    if proc.returncode == 0:
        return "invalid-ir", ("the input verifies and every pass succeeds with "
                              "--verify-each=0, so only the verifier fails")
    if _PASS_FAILED.search(proc.stderr):
        return "declined", ""
    return "input-error", ""


def _confirm(diagnostics: str, rerun: Rerun, evidence: str) -> InvalidIR | str:
    """The program rerun alone, as the lowering ran it, with the failure dump
    on: it must fail after a pass, which the dump names.  This ties the error
    to this program (a batch's untagged diagnostics are shared) and names the
    pass.  A string: why it is not confirmed."""
    proc = rerun(NAME_PASS)
    m = _PASS_FAILED.search(proc.stderr) if proc is not None else None
    if proc is None or proc.returncode != 1 or m is None:
        return "not confirmed as invalid IR: rerun alone, the program does not fail after a pass"
    where, message = first_error(diagnostics)
    producer = m.group(2) or m.group(1)
    how = (f"the tool fails after {producer}; {evidence}" if evidence else
           f"the dialect conversion of {producer} leaves a cast it cannot reconcile")
    return InvalidIR(message, failing_op(message), where, producer, how)
