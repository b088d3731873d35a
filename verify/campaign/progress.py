"""The campaign's progress line on stderr: a `\\r` bar on a terminal, a plain
line every few seconds otherwise (CI logs, `nohup`)."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import TextIO


@dataclass
class Progress:
    phase: str  # "search" | "shrink"
    examples: int  # programs judged and recorded, resumed ones included
    generated: int  # programs the search has drawn in this run (duplicates included)
    rate: float  # programs judged per second in this run
    violations: int  # distinct (lowering, invariant) violated so far
    elapsed: float
    fraction: float | None = None  # of max-examples or time budget, whichever is further
    final: bool = False

    def message(self) -> str:
        if self.phase == "shrink":
            return (f"shrinking {self.violations} violation(s) after {self.examples} "
                    f"examples, {self.elapsed:.0f}s")
        return (f"{self.examples} examples, {self.rate:.1f} examples/s, "
                f"{self.violations} violation(s) found, {self.elapsed:.0f}s")

    def __str__(self) -> str:
        return self.message()


class ProgressPrinter:
    """Callable for `FuzzOptions.progress`."""

    def __init__(self, stream: TextIO | None = None, every_s: float = 5.0,
                 tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.every_s = every_s
        self._last: float | None = None  # None: nothing printed yet, print the first
        self._width = 0
        self._said = ""

    def __call__(self, p: Progress) -> None:
        now = time.monotonic()
        if self.tty:
            if not p.final and self._recent(now, 0.2):
                return
            self._last = now
            line = f"{_bar(p.fraction)} {p.message()}"
            pad = max(0, self._width - len(line))
            self._width = len(line)
            self.stream.write(f"\r{line}{' ' * pad}")
        else:
            message = p.message()
            if message == self._said or (not p.final and self._recent(now, self.every_s)):
                return
            self._last, self._said = now, message
            self.stream.write(f"progress: {message}\n")
        self.stream.flush()

    def _recent(self, now: float, within_s: float) -> bool:
        # Not `_last = 0.0`: the monotonic clock may start near zero (a
        # machine up for less than `every_s`), which would hide the first line.
        return self._last is not None and now - self._last < within_s

    def done(self) -> None:
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
            self._width = 0


def _bar(fraction: float | None, width: int = 24) -> str:
    if fraction is None:
        return "[" + "?" * width + "]"
    filled = int(round(max(0.0, min(1.0, fraction)) * width))
    return f"[{'#' * filled}{'.' * (width - filled)}] {fraction * 100:3.0f}%"
