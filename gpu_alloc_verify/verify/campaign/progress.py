"""The campaign's progress on the one progress display
(reports.progress_line): a `\\r` bar on a terminal, a plain line every few
seconds otherwise (CI logs, `nohup`).  The bar is cut to the terminal's width
and never exceeds 80 columns; a campaign's log line fits 80 columns as
written.  Both end with an ETA once a share of --max-examples or
--time-budget is done; the violated verdict count is red on a terminal unless
NO_COLOR is set; a closed stderr silences them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from gpu_alloc_verify.reports.console import RED, RESET, duration, use_colour
from gpu_alloc_verify.reports.progress_line import ProgressLine


@dataclass
class Progress:
    phase: str  # "search" | "shrink"
    examples: int  # programs judged and recorded, resumed ones included
    generated: int  # programs the search has drawn in this run (duplicates included)
    rate: float  # programs judged per second in this run
    violations: int  # violated verdicts so far (with --baseline: those it adds)
    elapsed: float
    fraction: float | None = None  # of max-examples or time budget, whichever is further
    final: bool = False

    def message(self) -> str:
        if self.phase == "shrink":
            return (f"shrinking, after {self.examples} programs and "
                    f"{violations(self.violations)}, {duration(self.elapsed)}")
        eta = self.eta()
        return (f"{self.examples} programs, {self.rate:.1f}/s, {violations(self.violations)}, "
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
    """The count the summary's verdict table adds up to: violated verdicts."""
    return f"{n} violated verdict" + ("" if n == 1 else "s")


class ProgressPrinter:
    """Callable for `FuzzOptions.progress`: the campaign's lines on the one
    progress display (reports.progress_line)."""

    def __init__(self, stream: TextIO | None = None, every_s: float = 5.0,
                 tty: bool | None = None, colour: bool | None = None) -> None:
        self.line = ProgressLine(stream, tty, every_s)
        self.stream, self.tty = self.line.stream, self.line.tty
        self.colour = (self.tty and use_colour(self.stream)) if colour is None else colour
        self._said = ""  # the log's last line: the same is not said twice

    def __call__(self, p: Progress) -> None:
        if self.tty:
            if self.line.due(force=p.final):
                self.line.redraw(f"{_bar(p.fraction)} {p.message()}",
                                 lambda line: self._paint(line, p.violations))
            return
        message = p.message()
        if message == self._said or not self.line.due(force=p.final):
            return
        self._said = message
        share = f"{p.fraction * 100:.0f}%, " if p.fraction is not None and not (
            p.phase == "shrink") else ""
        # Not cut: a log line is appended, never rewritten, and a cut would
        # lose data (a cluster's shard counts); on one machine it fits 80.
        self.line.write(f"progress: {share}{message}\n")

    def _paint(self, line: str, found: int) -> str:
        token = violations(found)
        if not self.colour or not found or token not in line:
            return line
        return line.replace(token, f"{RED}{token}{RESET}", 1)

    def done(self) -> None:
        self.line.keep()


def _bar(fraction: float | None, width: int = 12) -> str:
    if fraction is None:
        return "[" + "?" * width + "]"
    filled = int(round(max(0.0, min(1.0, fraction)) * width))
    return f"[{'#' * filled}{'.' * (width - filled)}] {fraction * 100:3.0f}%"
