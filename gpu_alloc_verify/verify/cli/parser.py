"""The command line's parser: the global options, one subparser per command
(its arguments come from the command's `*_args` module), and the defaults
pyproject.toml gives in place of the built-in ones."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from gpu_alloc_verify.verify.cli import (
    bench_args,
    certify_args,
    check_args,
    findings_args,
    fuzz_args,
    replay_args,
    report_args,
    selfcheck_args,
    triage_args,
)
from gpu_alloc_verify.verify.cli.arguments import DefaultsFormatter, debug
from gpu_alloc_verify.verify.config import Config


def _no_arguments(p: argparse.ArgumentParser) -> None:
    """A command that takes no argument of its own."""


# Each command: its one-line help and what adds its arguments, in --help's order.
SUBCOMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None]]] = {
    "fuzz": ("generate random programs, lower, check, shrink", fuzz_args.add_arguments),
    "check": ("lower and check .mlir files", check_args.add_arguments),
    "replay": ("re-check recorded violations of a results file", replay_args.add_arguments),
    "findings": ("catalogue the upstream defects found over every installed mlir-opt "
                 "and the usual pipelines (markdown + lit tests)", findings_args.add_arguments),
    "triage": ("bucket a results file's violations into root causes",
               triage_args.add_arguments),
    "report": ("render an HTML report from a results file", report_args.add_arguments),
    "lowerings": ("list the lowerings this machine can run", _no_arguments),
    "invariants": ("list the invariant IDs", _no_arguments),
    "bench": ("measure per-stage cost and throughput", bench_args.add_arguments),
    "selfcheck": ("fuzz the analysis against execution on mutated lowered code",
                  selfcheck_args.add_arguments),
    "certify": ("check every valid program up to N ops and write a certificate",
                certify_args.add_arguments),
}


def version_string() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"gpu-alloc-verify {version('gpu-alloc-verify')}"
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "gpu-alloc-verify (version unknown: package not installed)"


def build_parser(config: Config | None = None) -> argparse.ArgumentParser:
    """The parser; `config` (pyproject.toml defaults) replaces the built-in
    defaults of --pipeline, --runtime and --max-examples (--lowering: see
    `defaults.apply_config`)."""
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-verify", formatter_class=DefaultsFormatter,
        description="Prove and test how MLIR lowers async GPU ops (gpu.alloc, gpu.wait, ...) "
        "to runtime calls. Exit 0: no violation, nothing unknown; 1: a violation; 2: usage, "
        "input, environment or internal error; 3: no violation but some verdict unknown "
        "(0 with --allow-unknown), or nothing checked (every lowering rejected the file or "
        "could not take it).",
    )
    parser.add_argument("--version", action="version", version=version_string())
    debug(parser, False)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (summary, add_arguments) in SUBCOMMANDS.items():
        # add_parser does not inherit the formatter
        p = sub.add_parser(name, help=summary, formatter_class=DefaultsFormatter)
        add_arguments(p)
        debug(p, argparse.SUPPRESS)  # --debug after the command too; SUPPRESS keeps the global
    if config is not None:
        _config_defaults(config, sub.choices)
    return parser


def _config_defaults(config: Config, commands: dict[str, argparse.ArgumentParser]) -> None:
    """The defaults pyproject.toml gives, in place of the built-in ones."""
    for name in ("fuzz", "check", "bench"):
        if config.pipeline is not None:
            commands[name].set_defaults(pipeline=config.pipeline)
    for name in ("fuzz", "check"):
        if config.runtime is not None:
            commands[name].set_defaults(runtime=config.runtime)
    if config.max_examples is not None:
        commands["fuzz"].set_defaults(max_examples=config.max_examples)
