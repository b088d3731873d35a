"""Progress of writing the HTML report, on stderr: a `\\r` line on a terminal,
a plain line every few seconds otherwise (CI logs), each with the stage, its
count, the time spent and an ETA of the stage once a share is done.  Triage
and the lit tests dominate; the pages are quick.  A closed stderr silences it."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from gpu_alloc_verify.reports.console import columns, duration, fit, on_terminal


class ReportProgress:
    def __init__(self, stream: TextIO | None = None, every_s: float = 5.0,
                 tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = on_terminal(self.stream, tty)
        self.every_s = every_s
        self.start = time.monotonic()
        self._stage = ""
        self._stage_start = self.start
        self._last: float | None = None
        self._width = 0
        self._closed = False

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
        if self._closed:
            return
        now = time.monotonic()
        recent = self._last is not None and now - self._last < (0.2 if self.tty
                                                                 else self.every_s)
        if recent and not force:
            return
        self._last = now
        if self.tty:
            line = fit(line, columns(self.stream) - 1)
            pad = max(0, self._width - len(line))
            self._width = len(line)
            self._write(f"\r{line}{' ' * pad}")
        else:
            self._write(line + "\n")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._closed = True

    def done(self) -> None:
        if not self._closed:
            took = duration(time.monotonic() - self.start)
            if self.tty and self._width:
                self._write("\r" + " " * self._width + "\r")
            self._write(f"report: written in {took}\n")
