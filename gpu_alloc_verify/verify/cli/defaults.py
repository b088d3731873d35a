"""What a parsed command line gets from pyproject.toml and the pipeline after
parsing: the configured lowerings, and the runtime the pipeline builds for."""

from __future__ import annotations

import argparse
import sys

from gpu_alloc_verify.verify.config import Config


def apply_config(args: argparse.Namespace, config: Config) -> None:
    """`lowerings` from the config where no --lowering was given (a default
    list under action="append" would be added to, not replaced)."""
    if config.lowerings and getattr(args, "lowering", "absent") is None:
        args.lowering = list(config.lowerings)
    if hasattr(args, "runtime") and args.runtime is None:
        args.runtime = _runtime_for(getattr(args, "pipeline", None))
    if config.path is not None and args.command in ("fuzz", "check", "bench"):
        print(f"defaults: {config.path} [tool.gpu-alloc-verify] "
              f"({', '.join(config.keys) or 'empty'})", file=sys.stderr)


def _runtime_for(pipeline: str | None) -> str:
    """The runtime the pipeline's kernels are built for (a ROCDL pipeline:
    hip), else cuda; said on stderr when it is not cuda."""
    from gpu_alloc_verify.verify.lowerings.pass_pipeline import PipelineSyntaxError, parse

    try:
        found = parse(pipeline).runtime() if pipeline else None
    except PipelineSyntaxError:
        return "cuda"  # the pipeline's own error is reported where it is used
    if found is None:
        return "cuda"
    print(f"runtime: {found} (the pipeline builds ROCDL kernels; --runtime to choose)",
          file=sys.stderr)
    return found
