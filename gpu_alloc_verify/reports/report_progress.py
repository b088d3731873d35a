"""Progress of writing the HTML report, on the one progress display
(reports.progress_line): a `\\r` line on a terminal, a plain line every few
seconds otherwise (CI logs), each with the stage, its count, the time spent
and an ETA of the stage once a share is done.  Triage and the lit tests
dominate; the pages are quick.  A closed stderr silences it."""

from __future__ import annotations

import time
from typing import TextIO

from gpu_alloc_verify.reports.console import duration
from gpu_alloc_verify.reports.progress_line import ProgressLine


class ReportProgress:
    def __init__(self, stream: TextIO | None = None, every_s: float = 5.0,
                 tty: bool | None = None) -> None:
        self.line = ProgressLine(stream, tty, every_s)
        self.stream, self.tty = self.line.stream, self.line.tty
        self.start = time.monotonic()
        self._stage = ""
        self._stage_start = self.start

    def note(self, message: str) -> None:
        """A message from a stage that counts nothing (triage's)."""
        self._show(f"report: {message}", force=True)

    def step(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != self._stage:
            self._stage, self._stage_start = stage, now
        spent = now - self._stage_start
        eta = ""
        if 0 < done < total and spent >= 1:
            eta = f", ETA {duration(spent * (total - done) / done)}"
        self._show(f"report: {stage} {done}/{total}, {duration(now - self.start)}{eta}",
                   force=done in (0, total))

    def _show(self, line: str, force: bool) -> None:
        if self.line.due(force):
            self.line.show(line)

    def done(self) -> None:
        if not self.line.closed:
            took = duration(time.monotonic() - self.start)
            self.line.erase()
            self.line.write(f"report: written in {took}\n")
