"""What every command's arguments share: the value parsers, the help
formatter, the titles of the option groups, and the groups that `fuzz` and
`check` (and the options that several commands) define once."""

from __future__ import annotations

import argparse
from typing import Any

from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE, DEFAULT_TIMEOUT_S

RUNTIMES = ("cuda", "hip", "sycl")

# One title per concern, the same words in every command's --help.
LOWERING = "lowering under test"
CHECKS = "what to check"
PROGRAMS = "programs generated"
SIZE = "campaign size and time"
OUTPUT = "output"
CLUSTER = "cluster"

# argparse's group and parser both take add_argument; a group is what a
# command's arguments are added to.
Group = argparse._ArgumentGroup


def share(text: str) -> float:
    """A share from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value


def positive(kind: type[int] | type[float]) -> Any:
    """A parser of positive numbers of `kind`."""
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value

    return parse


def jobs(text: str) -> int:
    """`-j N`: N >= 1 worker processes, or 0 for one per available core."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (one per core) or more, not {text}")
    return value


class DefaultsFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default (as ArgumentDefaultsHelpFormatter),
    except where the help already says it, for flags (off unless given) and
    for None defaults, whose help says in words what happens without them."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if ("default" in text or not action.option_strings or action.nargs == 0
                or action.default in (None, argparse.SUPPRESS)):
            return action.help
        return f"{text} (default: %(default)s)".lstrip()


def lowering_group(p: argparse.ArgumentParser) -> Group:
    """--lowering, --pipeline and --lowering-timeout, as `fuzz` and `check` take them."""
    g = p.add_argument_group(LOWERING)
    g.add_argument("--lowering", action="append", metavar="SPEC",
                   help="lowering under test, repeatable: mlir-opt, mlir-opt-16/19/22, "
                   "mlir-opt:/path/to/mlir-opt, xdsl:NAME (default: newest mlir-opt found, "
                   "else xdsl:pr69969)")
    g.add_argument("--pipeline", default=DEFAULT_PIPELINE,
                   help="pass pipeline for mlir-opt lowerings, as inside "
                   "builtin.module(...) (default: %(default)s)")
    g.add_argument("--lowering-timeout", type=positive(float), default=None, metavar="SEC",
                   help="limit of one mlir-opt process (a batch of programs) in seconds; "
                   "a hanging batch is bisected down to the program that hangs, which gets "
                   f"verdict timeout (default: {DEFAULT_TIMEOUT_S:g})")
    return g


def checks_group(p: argparse.ArgumentParser) -> Group:
    """--invariant, --runtime and --solver-timeout, as `fuzz` and `check` take them."""
    g = p.add_argument_group(CHECKS)
    g.add_argument("--invariant", action="append", metavar="ID",
                   help="check only these invariants (repeatable; default: all)")
    g.add_argument("--runtime", choices=RUNTIMES, default=None,
                   help="runtime profile for runtime-contract (default: hip when the "
                   "pipeline converts kernels to ROCDL, else cuda)")
    g.add_argument("--solver-timeout", type=positive(int), default=DEFAULT_TIMEOUT_MS,
                   metavar="MS", help="limit of one Z3 query in milliseconds; a query that "
                   "runs out is verdict 'unknown' with its reason (default: %(default)s)")
    return g


def output_group(p: argparse.ArgumentParser) -> Group:
    """--json, --junitxml and --allow-unknown, as `fuzz` and `check` take them."""
    g = p.add_argument_group(OUTPUT)
    g.add_argument("--json", action="store_true", help="print one JSON object on stdout "
                   "(schema: verify/schema/summary.schema.json)")
    g.add_argument("--junitxml", metavar="FILE",
                   help="also write JUnit XML to FILE: a testcase per (lowering, invariant), "
                   "a failure per violation, unknown verdicts skipped (default: none)")
    allow_unknown(g)
    return g


def allow_unknown(g: Group) -> None:
    g.add_argument("--allow-unknown", action="store_true",
                   help="exit 0 instead of 3 when nothing is violated but some verdict is "
                   "unknown (not proven either way)")


def debug(p: argparse.ArgumentParser, default: Any) -> None:
    p.add_argument("--debug", action="store_true", default=default,
                   help="print the traceback of an internal error")
