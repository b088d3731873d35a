"""Progress of a long `check`, on a terminal only, on the one progress
display (reports.progress_line): a `\\r` line with the lowering being judged,
the count, the time spent and an ETA once one lowering is done, redrawn twice
a second and erased when the check ends.  Logs and pipes get nothing (the
verdicts are the output), and a check that ends within a second shows nothing
at all."""

from __future__ import annotations

import os
import threading
import time
from typing import TextIO

from gpu_alloc_verify.reports.console import duration
from gpu_alloc_verify.reports.progress_line import ProgressLine

QUIET_S = 1.0  # a check done sooner prints no progress
REDRAW_S = 0.5


class CheckProgress:
    def __init__(self, name: str, total: int, stream: TextIO | None = None,
                 tty: bool | None = None) -> None:
        self.line = ProgressLine(stream, tty)
        self.stream, self.tty = self.line.stream, self.line.tty
        self.name, self.total = os.path.basename(name) or name, total  # fits 80 columns
        self.start = time.monotonic()
        self._done, self._spec = 0, ""
        self._stop = threading.Event()
        # The judging of one lowering can take minutes: a thread redraws the
        # line meanwhile (only on a terminal; nothing else writes stderr then).
        self._thread = threading.Thread(target=self._run, daemon=True) if self.tty else None
        if self._thread is not None:
            self._thread.start()

    def step(self, done: int, spec: str) -> None:
        """`done` lowerings judged; `spec` is the one being judged now."""
        self._done, self._spec = done, spec

    def _run(self) -> None:
        while not self._stop.wait(REDRAW_S) and not self.line.closed:
            self._draw()

    def _draw(self) -> None:
        spent = time.monotonic() - self.start
        if spent < QUIET_S:
            return
        done = self._done
        eta = f", ETA {duration(spent * (self.total - done) / done)}" if done else ""
        self.line.redraw(f"check {self.name}: {self._spec} ({done + 1}/{self.total}), "
                         f"{duration(spent)}{eta}")

    def done(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.line.erase()
