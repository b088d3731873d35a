"""An in-process xDSL lowering as a command line lit can run in place of mlir-opt.

    python -m reports.lower_tool --lowering xdsl:split-api FILE.mlir \
        [--pass-pipeline=...] [--mlir-print-debuginfo]

prints the lowered module in custom form (xDSL's printer), as `mlir-opt
FILE.mlir --pass-pipeline=...` would.  The exported lit tests' `lit.cfg.py`
substitutes it for `mlir-opt` when lit runs with `--param lowering=xdsl:NAME`.
The pipeline is accepted and ignored: the variant is the whole lowering.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

from verify.model.errors import GpuAllocVerifyError


def lower_custom(text: str, spec: str, debuginfo: bool = False, name: str = "<input>") -> str:
    """`text` lowered by the xDSL variant `spec`, printed in custom form."""
    from xdsl.printer import Printer

    from reports.xdsl_custom import custom_gpu_ops
    from verify.ir.source_reader import program_from_text
    from verify.lowerings.xdsl_lowering import resolve_xdsl

    program = program_from_text(text, name)
    module = resolve_xdsl(spec).lower_module(program)
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(module)
    return custom_gpu_ops(out.getvalue().rstrip("\n") + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.lower_tool")
    parser.add_argument("--lowering", required=True, metavar="xdsl:NAME")
    parser.add_argument("file")
    parser.add_argument("--pass-pipeline", default="")
    parser.add_argument("--mlir-print-debuginfo", action="store_true")
    parser.add_argument("--mlir-print-local-scope", action="store_true")
    args = parser.parse_args(argv)
    try:
        with open(args.file, encoding="utf-8") as f:
            text = f.read()
        sys.stdout.write(lower_custom(text, args.lowering, args.mlir_print_debuginfo,
                                      args.file))
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
