"""Exit statuses and the verdict counts they are read from, shared by the
commands that judge (fuzz, check, replay)."""

from __future__ import annotations

import sys

from gpu_alloc_verify.verify.model.verdicts import Verdict

# Version of the `--json` summary of fuzz and check; its shape is
# verify/schema/summary.schema.json.  Bump it when a field changes meaning or goes.
SCHEMA_VERSION = 2
EXIT_OK, EXIT_VIOLATION, EXIT_ERROR, EXIT_UNKNOWN, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


def exit_status(violated: bool, unknown: int, allow_unknown: bool = False) -> int:
    """1 for a violation (only then), 3 for unknown verdicts unless allowed, else 0."""
    if violated:
        return EXIT_VIOLATION
    if unknown and not allow_unknown:
        print(f"gpu-alloc-verify: no violation, but {unknown} verdict(s) unknown "
              "(not proven): exit 3; --allow-unknown makes it 0", file=sys.stderr)
        return EXIT_UNKNOWN
    return EXIT_OK


def count_verdicts(by_invariant: dict[str, dict[str, int]], verdict: Verdict) -> int:
    return sum(counts.get(verdict, 0) for counts in by_invariant.values())


def verdict_line(by_invariant: dict[str, dict[str, int]]) -> str:
    """The totals the summary ends with, unknown always shown (e.g. "3 violated, 2 unknown")."""
    violated = count_verdicts(by_invariant, Verdict.VIOLATED)
    unknown = count_verdicts(by_invariant, Verdict.UNKNOWN)
    holds = count_verdicts(by_invariant, Verdict.HOLDS)
    return f"{violated} violated, {unknown} unknown, {holds} holds"
