"""Every command line for MLIR's tools, spelled in one place: `mlir-opt`,
`mlir-translate`, `mlir-cpu-runner` / `mlir-runner`, FileCheck, and the text
of an exported lit test's RUN line.

Callers say what they want (a pipeline, split input, which printing flags)
and get an argv for `runner.run_tool`; no other module writes a flag of these
tools (`tests/tools/test_tool_layer.py` scans for them).  The order of the flags is
fixed here, so the same request always gives the same command line.

`default_reader` is the `mlir-opt` that reads a text when no lowering names
its own: the newest one installed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

from gpu_alloc_verify.verify.tools.runner import find_mlir_opt

# mlir-opt's printing flags, as the harness reads IR: generic form (stable
# across versions), every location, each location in place.
GENERIC = "--mlir-print-op-generic"
LOCATIONS = ("--mlir-print-debuginfo", "--mlir-print-local-scope")
UNREGISTERED = "--allow-unregistered-dialect"  # a user's file may hold such ops
SPLIT_INPUT = "--split-input-file"
STDIN = "-"
# Reruns that tell a pass's invalid IR from the input's (`failure_kind`):
# without the verifier between passes, and with the IR printed where a pass fails.
AFTER_FAILURE = "--mlir-print-ir-after-failure"
NO_VERIFY = ("--verify-each=0", AFTER_FAILURE)
NAME_PASS = (AFTER_FAILURE,)


def module_pipeline(passes: str) -> str:
    """`passes` (comma-separated text) nested in one builtin.module."""
    return f"builtin.module({passes})"


def pipeline_flag(pipeline: str) -> str:
    """`--pass-pipeline=` of a pipeline already wrapped in builtin.module."""
    return f"--pass-pipeline={pipeline}"


def print_ir_before(pass_name: str) -> str:
    """The flag that prints (on stderr) the IR entering `pass_name`."""
    return f"--mlir-print-ir-before={pass_name}"


def mlir_opt_argv(tool: str, *, input_file: str | None = None, split_input_file: bool = False,
                  pipeline: str | None = None, extra: Sequence[str] = (),
                  generic: bool = False, locations: bool = False, unregistered: bool = False,
                  stdin: bool = False) -> list[str]:
    """An `mlir-opt` command line: `tool`, the input file, split input, the
    pipeline (already wrapped: `module_pipeline`), `extra` flags, the printing
    flags, and `-` (read stdin) last when `stdin`."""
    argv = [tool]
    if input_file is not None:
        argv.append(input_file)
    if split_input_file:
        argv.append(SPLIT_INPUT)
    if pipeline is not None:
        argv.append(pipeline_flag(pipeline))
    argv += extra
    if generic:
        argv.append(GENERIC)
    if locations:
        argv += LOCATIONS
    if unregistered:
        argv.append(UNREGISTERED)
    if stdin:
        argv.append(STDIN)
    return argv


def help_argv(tool: str) -> list[str]:
    """What lists a tool's passes and options."""
    return [tool, "--help"]


def mlir_translate_argv(tool: str, input_file: str | None = None,
                        output_file: str | None = None) -> list[str]:
    """`mlir-translate` from the LLVM dialect to LLVM IR (stdin when no file)."""
    argv = [tool, "--mlir-to-llvmir"]
    if input_file is not None:
        argv.append(input_file)
    if output_file is not None:
        argv += ["-o", output_file]
    return argv


def jit_runner_argv(tool: str, module_file: str, entry: str,
                    shared_libs: Sequence[str] = ()) -> list[str]:
    """`mlir-cpu-runner` / `mlir-runner` JIT-running `entry` (no result) of
    an LLVM-dialect module, with `shared_libs` loaded."""
    return [tool, module_file, "-e", entry, "-entry-point-result=void",
            *(f"--shared-libs={lib}" for lib in shared_libs)]


def filecheck_argv(tool: str, check_file: str, prefix: str = "CHECK") -> list[str]:
    """FileCheck of stdin against `check_file`'s `prefix` lines."""
    return [tool, check_file, f"--check-prefix={prefix}"]


# An exported lit test's RUN line: text for upstream's test files, so its
# exact spelling is part of what the export promises.
_RUN_PIPELINE = re.compile(r"--pass-pipeline='?builtin\.module\((.*?)\)'?(?: |$)", re.M)
DEFAULT_RUN_PIPELINE = "gpu-to-llvm"


def lit_run_line(pipeline: str) -> str:
    """`// RUN: mlir-opt %s --pass-pipeline=... | FileCheck %s` for `pipeline`
    (its passes, unwrapped), quoted for the shell lit runs it in."""
    quoted = shlex.quote(module_pipeline(pipeline))
    return f"// RUN: mlir-opt %s {pipeline_flag(quoted)} | FileCheck %s"


def lit_run_pipeline(test_text: str) -> str:
    """The pipeline (unwrapped) of the RUN line `lit_run_line` wrote in
    `test_text`; gpu-to-llvm when it has none."""
    m = _RUN_PIPELINE.search(test_text)
    return m.group(1) if m else DEFAULT_RUN_PIPELINE


def default_reader() -> str | None:
    """The mlir-opt that reads a text when no lowering names its own (the
    newest installed), None when there is none."""
    return find_mlir_opt()
