"""The campaign's progress on the one progress display
(reports.progress_line): a `\\r` bar on a terminal, a plain line every few
seconds otherwise (CI logs, `nohup`).  The bar is cut to the terminal's width
and never exceeds 80 columns; a campaign's log line fits 80 columns as
written.  Both end with an ETA once a share of --max-examples or
--time-budget is done, counting the shrinking to come (verify.campaign.eta),
and shrinking shows as its own phase; the violated verdict count is red on a
terminal unless NO_COLOR is set; a closed stderr silences them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from gpu_alloc_verify.reports.console import RED, RESET, duration, use_colour
from gpu_alloc_verify.reports.progress_line import ProgressLine
from gpu_alloc_verify.verify.campaign.eta import search_left


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
    # Seconds of shrinking still to come (verify.campaign.eta): in the search,
    # the whole shrink phase's estimate, counted in its ETA; in the shrink
    # phase, its rest.  None: nothing to shrink, or not known yet.
    shrink_left: float | None = None
    shrunk: int = 0  # shrink phase: violated (lowering, invariant) pairs shrunk so far
    to_shrink: int = 0  # of these pairs

    def message(self) -> str:
        eta = self.eta()
        tail = f", ETA {duration(eta)}" if eta is not None else ""
        if self.phase == "shrink":
            return (f"shrinking: {self.shrunk} of {self.to_shrink} programs shrunk, "
                    f"{duration(self.elapsed)}{tail}")
        return (f"{self.examples} programs, {self.rate:.1f}/s, {violations(self.violations)}, "
                f"{duration(self.elapsed)}{tail}")

    def eta(self) -> float | None:
        """Seconds left: the search's rest at its pace, once some share is
        done (not in the first second, whose pace says nothing yet), and the
        shrinking still to come; None on the last line or when unknown."""
        if self.final:
            return None
        if self.phase == "shrink":
            return self.shrink_left
        left = search_left(self.elapsed, self.fraction)
        if left is None:
            return None
        return left + (self.shrink_left or 0.0)

    def share(self) -> float | None:
        """The share of the whole campaign done, shrinking included: elapsed
        over elapsed plus ETA; the search's share while the ETA is unknown."""
        eta = self.eta()
        if eta is not None and self.elapsed + eta > 0:
            return self.elapsed / (self.elapsed + eta)
        return self.fraction if self.phase == "search" else None

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
                self.line.redraw(f"{_bar(p.share())} {p.message()}",
                                 lambda line: self._paint(line, p.violations))
            return
        message = p.message()
        if message == self._said or not self.line.due(force=p.final):
            return
        self._said = message
        done = p.share()
        share = f"{done * 100:.0f}%, " if done is not None else ""
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
