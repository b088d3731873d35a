"""The command line's entry point: parse, apply the configured defaults, run
the command, and turn what goes wrong into an exit status and one line."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Sequence

from gpu_alloc_verify.reports.console import output_closed, quiet_exit_on_closed_pipe
from gpu_alloc_verify.verify.cli.bench import cmd_bench
from gpu_alloc_verify.verify.cli.certify import cmd_certify
from gpu_alloc_verify.verify.cli.check import check_files
from gpu_alloc_verify.verify.cli.defaults import apply_config
from gpu_alloc_verify.verify.cli.findings import cmd_findings
from gpu_alloc_verify.verify.cli.fuzz import cmd_fuzz
from gpu_alloc_verify.verify.cli.listing import cmd_invariants, cmd_lowerings
from gpu_alloc_verify.verify.cli.parser import build_parser
from gpu_alloc_verify.verify.cli.replay import cmd_replay
from gpu_alloc_verify.verify.cli.report import cmd_report
from gpu_alloc_verify.verify.cli.selfcheck import cmd_selfcheck
from gpu_alloc_verify.verify.cli.status import EXIT_ERROR, EXIT_INTERRUPTED
from gpu_alloc_verify.verify.cli.triage import cmd_triage
from gpu_alloc_verify.verify.config import Config, load_config
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError


def _findings(args: argparse.Namespace) -> int:
    return cmd_findings(args, main)  # its campaigns are this command line's `fuzz`


# What runs each command of parser.SUBCOMMANDS.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "fuzz": cmd_fuzz, "check": check_files, "replay": cmd_replay, "report": cmd_report,
    "triage": cmd_triage, "findings": _findings,
    "lowerings": cmd_lowerings, "invariants": cmd_invariants, "bench": cmd_bench,
    "selfcheck": cmd_selfcheck, "certify": cmd_certify,
}


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; its exit status.  A closed stdout or stderr (the
    reader of `| head` gone) ends the command quietly with EXIT_CLOSED_PIPE
    (reports.console), never a traceback or "Broken pipe"."""
    try:
        try:
            status = _main(argv)
        except SystemExit:  # --help, --version, a usage error: flushed while a closed
            sys.stdout.flush()  # pipe can still be handled, not at interpreter exit
            raise
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        if not output_closed():
            raise
        return quiet_exit_on_closed_pipe()


def _main(argv: Sequence[str] | None) -> int:
    try:
        config, config_error = load_config(), None
    except GpuAllocVerifyError as e:  # only commands that use the defaults fail on it
        config, config_error = Config(), e
    parser = build_parser(config)
    args = parser.parse_args(argv)
    try:
        if config_error is not None and args.command in ("fuzz", "check", "bench"):
            raise config_error
        apply_config(args, config)
        return COMMANDS[args.command](args)
    except GpuAllocVerifyError as e:
        print(f"gpu-alloc-verify: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("gpu-alloc-verify: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as e:  # a file or directory the command cannot read or write
        if isinstance(e, BrokenPipeError) and output_closed():
            raise  # `| head` is done reading: main ends quietly
        if args.debug:
            traceback.print_exc(file=sys.stderr)
        print(f"gpu-alloc-verify: error: {_one_line(str(e))}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:  # noqa: BLE001 - a bug is exit 2, never 1 ("violation")
        return _internal_error(e, args.debug)


def _internal_error(e: Exception, debug: bool) -> int:
    if debug:
        traceback.print_exc(file=sys.stderr)
    hint = "" if debug else " (run with --debug for the traceback)"
    print(f"gpu-alloc-verify: internal error: {type(e).__name__}: {_one_line(str(e))}{hint}",
          file=sys.stderr)
    return EXIT_ERROR


def _one_line(text: str) -> str:
    return " ".join(text.split())
