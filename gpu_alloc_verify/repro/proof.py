"""Proving a lit test is not vacuous before it is written.

A test is a list of FileCheck directives; some are marked as the defect (the
lines a fixed lowering satisfies and the buggy one does not).  It is proven
when, on the text the RUN line produces:

- the buggy lowering's output fails it, at a defect directive (every line
  before it matched real output: the failure is the defect, not an erased op
  or a garbled module);
- the *witness* (the same test with each defect directive negated) passes on
  the buggy output: the defect is there to see;
- the fixed lowering's output, where one is given, passes it.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gpu_alloc_verify.repro.lower_tool import lower_custom
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem, GpuAllocVerifyError
from gpu_alloc_verify.verify.tools.commands import filecheck_argv, mlir_opt_argv, module_pipeline
from gpu_alloc_verify.verify.tools.runner import ToolError, run_tool


@dataclass
class Lowered:
    ok: bool
    text: str
    error: str = ""


def tool_path(spec: str, pipeline: str) -> str | None:
    """The mlir-opt a spec names, or None for an in-process lowering."""
    if spec.startswith("xdsl:"):
        return None
    return resolve(spec, pipeline).external_tool()


def lower_for_test(spec: str, pipeline: str, source: str, debuginfo: bool = False) -> Lowered:
    """What the RUN line prints for `source` with `spec` in place of mlir-opt."""
    try:
        path = tool_path(spec, pipeline)
        if path is None:
            return Lowered(True, lower_custom(source, spec, debuginfo, pipeline=pipeline))
    except GpuAllocVerifyError as e:
        return Lowered(False, "", str(e))
    except Exception as e:  # noqa: BLE001 - a pattern failing is the lowering's answer
        return Lowered(False, "", f"{spec} failed: {type(e).__name__}: {e}")
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "input.mlir"
        f.write_text(source, encoding="utf-8")
        cmd = mlir_opt_argv(path, input_file=str(f), pipeline=module_pipeline(pipeline),
                            locations=debuginfo)
        try:
            proc = run_tool(cmd, timeout_s=120)
        except ToolError as e:  # not started or timed out: in the OS's words
            return Lowered(False, "", f"{spec}: {e.detail}")
    if proc.returncode != 0:
        return Lowered(False, proc.stdout, proc.stderr.strip().splitlines()[0]
                       if proc.stderr.strip() else f"exit {proc.returncode}")
    return Lowered(True, proc.stdout)


@dataclass
class CheckRun:
    ok: bool
    failed_line: int | None = None  # 1-based line of the failing directive
    message: str = ""


_ERROR = re.compile(r"^(?P<file>.+?):(?P<line>\d+):\d+: error: (?P<msg>.*)$")


def run_filecheck(filecheck: str, test_text: str, input_text: str,
                  prefix: str = "CHECK") -> CheckRun:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "test.mlir"
        f.write_text(test_text, encoding="utf-8")
        try:
            proc = run_tool(filecheck_argv(filecheck, str(f), prefix),
                            stdin=input_text, timeout_s=60)
        except ToolError as e:
            raise EnvironmentProblem(f"cannot run {filecheck}: {e.detail}") from e
    if proc.returncode == 0:
        return CheckRun(True)
    for line in proc.stderr.splitlines():
        m = _ERROR.match(line)
        if m and m.group("file").endswith("test.mlir"):
            return CheckRun(False, int(m.group("line")), m.group("msg"))
    return CheckRun(False, None, proc.stderr.strip()[:300])


@dataclass
class Proof:
    buggy: str
    fixed: str | None
    fails_on_buggy: bool = False
    failed_line: int | None = None
    failure: str = ""
    at_defect: bool = False
    witness: bool = False
    passes_on_fixed: bool | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        return (self.fails_on_buggy and self.at_defect and self.witness
                and self.passes_on_fixed is not False)

    def summary(self) -> str:
        if not self.proven:
            return "not proven: " + "; ".join(self.reasons or ["?"])
        fixed = (f"; passes on {self.fixed}" if self.passes_on_fixed
                 else "; no fixed lowering to pass on")
        return f"fails on {self.buggy} at line {self.failed_line}{fixed}"


def prove(filecheck: str, test_text: str, witness_text: str, defect_lines: set[int],
          buggy: str, buggy_out: Lowered, fixed: str | None,
          fixed_out: Lowered | None) -> Proof:
    proof = Proof(buggy, fixed)
    if not buggy_out.ok:
        proof.reasons.append(f"{buggy} does not lower the test: {buggy_out.error}")
        return proof
    run = run_filecheck(filecheck, test_text, buggy_out.text)
    proof.fails_on_buggy = not run.ok
    proof.failed_line, proof.failure = run.failed_line, run.message
    if run.ok:
        proof.reasons.append(f"passes on {buggy}: the checks do not see the defect")
    else:
        proof.at_defect = run.failed_line in defect_lines
        if not proof.at_defect:
            proof.reasons.append(f"fails on {buggy} at line {run.failed_line}, before the "
                                 f"defect lines ({run.message})")
    wit = run_filecheck(filecheck, witness_text, buggy_out.text)
    proof.witness = wit.ok
    if not wit.ok:
        proof.reasons.append(f"the defect is not in {buggy}'s output (witness fails at line "
                             f"{wit.failed_line}: {wit.message})")
    if fixed is not None and fixed_out is not None:
        if not fixed_out.ok:
            proof.reasons.append(f"{fixed} does not lower the test: {fixed_out.error}")
            proof.passes_on_fixed = None
        else:
            fx = run_filecheck(filecheck, test_text, fixed_out.text)
            proof.passes_on_fixed = fx.ok
            if not fx.ok:
                proof.reasons.append(f"fails on {fixed} too, at line {fx.failed_line} "
                                     f"({fx.message})")
    return proof


def find_filecheck() -> str | None:
    """LLVM's FileCheck (plain, versioned, or under /usr/lib/llvm-*), else Python `filecheck`."""
    import glob
    import shutil

    found = os.environ.get("GPU_ALLOC_VERIFY_FILECHECK") or shutil.which("FileCheck")
    if found:
        return found
    for v in range(30, 9, -1):
        found = shutil.which(f"FileCheck-{v}")
        if found:
            return found
    for cand in sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"), reverse=True):
        if os.access(cand, os.X_OK):
            return cand
    return shutil.which("filecheck")
