"""The campaign's progress line on stderr: a `\\r` bar on a terminal, a plain
line every few seconds otherwise (CI logs, `nohup`).  The bar is cut to the
terminal's width and never exceeds 80 columns; a campaign's log line fits 80
columns as written.  Both end with an ETA once a share of --max-examples or
--time-budget is done; the violation count is red on a terminal unless
NO_COLOR is set; a closed stderr silences them."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import TextIO

from gpu_alloc_verify.reports.console import (
    RED,
    RESET,
    columns,
    duration,
    fit,
    on_terminal,
    use_colour,
)


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
            return (f"shrinking {violations(self.violations)} after {self.examples} "
                    f"examples, {duration(self.elapsed)}")
        eta = self.eta()
        return (f"{self.examples} examples, {self.rate:.1f}/s, {violations(self.violations)}, "
                f"{duration(self.elapsed)}" + (f", ETA {duration(eta)}" if eta is not None
                                               else ""))

    def eta(self) -> float | None:
        """Seconds left at this pace, once some share is done (not on the last line;
        not in the first second, whose pace says nothing yet)."""
        if self.final or not self.fraction or self.fraction <= 0 or self.elapsed < 1:
            return None
        return max(0.0, self.elapsed * (1 - min(1.0, self.fraction)) / self.fraction)

    def __str__(self) -> str:
        return self.message()


def violations(n: int) -> str:
    return f"{n} violation" + ("" if n == 1 else "s")


class ProgressPrinter:
    """Callable for `FuzzOptions.progress`."""

    def __init__(self, stream: TextIO | None = None, every_s: float = 5.0,
                 tty: bool | None = None, colour: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = on_terminal(self.stream, tty)
        self.colour = (self.tty and use_colour(self.stream)) if colour is None else colour
        self.every_s = every_s
        self._last: float | None = None  # None: nothing printed yet, print the first
        self._width = 0
        self._said = ""
        self._closed = False  # stderr's reader has gone: print nothing more

    def __call__(self, p: Progress) -> None:
        if self._closed:
            return
        now = time.monotonic()
        if self.tty:
            if not p.final and self._recent(now, 0.2):
                return
            self._last = now
            # One column short of the terminal's width: a line that fills it
            # wraps on some terminals, and `\r` then rewrites only its tail.
            line = fit(f"{_bar(p.fraction)} {p.message()}", columns(self.stream) - 1)
            pad = max(0, self._width - len(line))
            self._width = len(line)
            self._write(f"\r{self._paint(line, p.violations)}{' ' * pad}")
        else:
            message = p.message()
            if message == self._said or (not p.final and self._recent(now, self.every_s)):
                return
            self._last, self._said = now, message
            share = f"{p.fraction * 100:.0f}%, " if p.fraction is not None and not (
                p.phase == "shrink") else ""
            # Not cut: a log line is appended, never rewritten, and a cut would
            # lose data (a cluster's shard counts); on one machine it fits 80.
            self._write(f"progress: {share}{message}\n")

    def _paint(self, line: str, found: int) -> str:
        token = violations(found)
        if not self.colour or not found or token not in line:
            return line
        return line.replace(token, f"{RED}{token}{RESET}", 1)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):  # `2>&1 | head` gone, or stream closed
            self._closed = True

    def _recent(self, now: float, within_s: float) -> bool:
        # Not `_last = 0.0`: the monotonic clock may start near zero (a
        # machine up for less than `every_s`), which would hide the first line.
        return self._last is not None and now - self._last < within_s

    def done(self) -> None:
        if self.tty and self._width and not self._closed:
            self._write("\n")
            self._width = 0


def _bar(fraction: float | None, width: int = 12) -> str:
    if fraction is None:
        return "[" + "?" * width + "]"
    filled = int(round(max(0.0, min(1.0, fraction)) * width))
    return f"[{'#' * filled}{'.' * (width - filled)}] {fraction * 100:3.0f}%"
