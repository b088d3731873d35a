"""What `fuzz --resume` takes back from the command line that started the
campaign: where its report and JUnit go, its output format, how many worker
processes and how large a batch, its cross-check share and lowering timeout.

The campaign-start record keeps them under "options" (`recorded_options`);
`restore_options` puts each back where the resume command line did not give
the flag (a value equal to the flag's default counts as not given), so an
explicit flag wins.  A results file written before the record held them has
no "options": nothing is restored, as before.  `resume_hint` is the command
an interrupted campaign prints, with what it restores.

What defines the campaign (lowerings, seed, pipeline, generator settings,
max-examples, invariants, runtime) is restored by `fuzz.resumed_options`
from the record's own fields, as always.
"""

from __future__ import annotations

import argparse
import shlex
from functools import cache
from typing import Any

# dest -> the flag that sets it, in the order the hint names them.
RESUMED = {
    "report": "--report",
    "junitxml": "--junitxml",
    "json": "--json",
    "verbose": "--verbose",
    "allow_unknown": "--allow-unknown",
    "jobs": "-j",
    "batch_size": "--batch-size",
    "crosscheck_share": "--crosscheck-share",
    "lowering_timeout": "--lowering-timeout",
}


@cache
def _defaults() -> dict[str, Any]:
    """Each resumed flag's default, as `fuzz`'s parser defines it."""
    from gpu_alloc_verify.verify.cli.fuzz_args import add_arguments

    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    return {dest: parser.get_default(dest) for dest in RESUMED}


def recorded_options(args: argparse.Namespace) -> dict[str, Any]:
    """The resumable options of this command line, for the campaign-start record."""
    return {dest: getattr(args, dest) for dest in RESUMED if hasattr(args, dest)}


def restore_options(args: argparse.Namespace, recorded: Any) -> list[str]:
    """Set each recorded option the command line left at its default; the
    flags restored, as words (`--report out`, `-j 4`)."""
    if not isinstance(recorded, dict):
        return []  # written before campaigns recorded their options
    defaults = _defaults()
    restored: list[str] = []
    for dest, flag in RESUMED.items():
        if dest not in recorded or not hasattr(args, dest):
            continue
        value, default = recorded[dest], defaults[dest]
        if value == default or getattr(args, dest) != default:
            continue  # nothing to restore, or the command line gave its own
        setattr(args, dest, value)
        restored.append(_words(flag, value))
    return restored


def given_options(args: argparse.Namespace) -> list[str]:
    """The resumable options this command line set away from their defaults."""
    defaults = _defaults()
    return [_words(flag, getattr(args, dest)) for dest, flag in RESUMED.items()
            if hasattr(args, dest) and getattr(args, dest) != defaults[dest]]


def resume_hint(results: str, args: argparse.Namespace) -> str:
    """The command that continues an interrupted campaign, and what it restores."""
    command = f"gpu-alloc-verify fuzz --results {shlex.quote(results)} --resume"
    options = given_options(args)
    if not options:
        return command
    return f"{command} (it restores {', '.join(options)} from there)"


def _words(flag: str, value: Any) -> str:
    if value is True:
        return flag
    return f"{flag} {shlex.quote(str(value))}"
