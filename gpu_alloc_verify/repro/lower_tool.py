"""An in-process xDSL lowering as a command line lit can run in place of mlir-opt.

    python -m gpu_alloc_verify.repro.lower_tool --lowering xdsl:split-api FILE.mlir \
        [--pass-pipeline=... | --gpu-to-llvm] [-split-input-file] [--mlir-print-debuginfo]

prints the lowered module in custom form (xDSL's printer), as `mlir-opt
FILE.mlir --pass-pipeline=...` would.  The exported lit tests' `lit.cfg.py`
substitutes it for `mlir-opt` when lit runs with `--param lowering=xdsl:NAME`.
The variant re-creates gpu-to-llvm; passes the pipeline runs before it on
host code (`func.func(gpu-async-region)`) are run first by the newest real
mlir-opt, so `xdsl:split-api` in place of mlir-opt means "the same pipeline
with gpu-to-llvm fixed".  Where the model does not read what they leave
(`convert-scf-to-cf`'s branches), the source is lowered as written: those
passes do not change what gpu-to-llvm has to do.  Passes nested in
`gpu.module` are left out (the variant keeps kernels as signatures).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.ir.upstream_shape import SPLIT_MARKER, split_cases
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.model.program import Program


def lower_custom(text: str, spec: str, debuginfo: bool = False, name: str = "<input>",
                 pipeline: str = "") -> str:
    """`text` lowered by the xDSL variant `spec` (after `pipeline`'s host passes
    before gpu-to-llvm), printed in custom form."""
    from xdsl.printer import Printer

    from gpu_alloc_verify.verify.ir.custom_form import custom_gpu_ops
    from gpu_alloc_verify.verify.lowerings.xdsl_lowering import resolve_xdsl

    module = resolve_xdsl(spec).lower_module(_entering_program(text, pipeline, name))
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(module)
    return custom_gpu_ops(out.getvalue().rstrip("\n") + "\n")


# The model of each (text, pipeline, name) read so far: a lit test's program is
# lowered by the buggy and the fixed variant, with and without locations,
# from the same reading (two mlir-opt runs and a parse each, otherwise).
_PROGRAMS: dict[tuple[str, str, str], Program] = {}


def _entering_program(text: str, pipeline: str, name: str) -> Program:
    """The model of `text` as gpu-to-llvm gets it (read as written where the
    model does not hold what the host passes leave)."""
    from gpu_alloc_verify.verify.model.errors import SourceParseError
    from gpu_alloc_verify.verify.triage.fast_model import read_program

    key = (text, pipeline, name)
    program = _PROGRAMS.get(key)
    if program is None:
        entering = before_gpu_to_llvm(text, pipeline, name)
        try:
            program = read_program(entering, name)
        except SourceParseError:
            if entering == text:
                raise
            program = read_program(text, name)
        _PROGRAMS[key] = program  # errors are not kept: raised again as before
    return program


def host_passes(pipeline: str) -> list[str]:
    """The passes `pipeline` (with or without `builtin.module(...)`) runs on
    host code before gpu-to-llvm."""
    from gpu_alloc_verify.verify.lowerings.pass_pipeline import parse

    return [e.text() for e in parse(pipeline).host_passes_before()]


def before_gpu_to_llvm(text: str, pipeline: str, name: str) -> str:
    """`text` after the pipeline's host passes, by the newest mlir-opt found,
    locations kept (the text itself when there are none)."""
    from gpu_alloc_verify.verify.model.errors import EnvironmentProblem, SourceParseError
    from gpu_alloc_verify.verify.tools.commands import (
        default_reader,
        mlir_opt_argv,
        module_pipeline,
    )
    from gpu_alloc_verify.verify.tools.runner import run_tool

    passes = host_passes(pipeline)
    if not passes:
        return text
    tool = default_reader()
    if tool is None:
        raise EnvironmentProblem(f"running {', '.join(passes)} before the in-process "
                                 "gpu-to-llvm needs mlir-opt: apt-get install mlir-19-tools")
    argv = mlir_opt_argv(tool, pipeline=module_pipeline(",".join(passes)), locations=True,
                         stdin=True)
    proc = run_tool(argv, stdin=text, timeout_s=120)
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[0]
        raise SourceParseError(f"{name}: {', '.join(passes)} failed: {first}")
    return proc.stdout


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gpu_alloc_verify.repro.lower_tool")
    parser.add_argument("--lowering", required=True, metavar="xdsl:NAME")
    parser.add_argument("file")
    parser.add_argument("--pass-pipeline", default="")
    parser.add_argument("--mlir-print-debuginfo", action="store_true")
    parser.add_argument("--mlir-print-local-scope", action="store_true")
    # Upstream's RUN line: `mlir-opt %s --gpu-to-llvm -split-input-file`.
    parser.add_argument("--gpu-to-llvm", action="store_true")
    parser.add_argument("-split-input-file", "--split-input-file", action="store_true")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
        cases = split_cases(text) if args.split_input_file else [text]
        sys.stdout.write(SPLIT_MARKER.join(
            lower_custom(case, args.lowering, args.mlir_print_debuginfo, args.file,
                         args.pass_pipeline) for case in cases))
    except (OSError, GpuAllocVerifyError) as e:
        print(f"{args.file}: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a pattern failing is the lowering's error
        print(f"{args.file}: error: {args.lowering} failed: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
