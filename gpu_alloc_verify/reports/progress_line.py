"""The one progress display of the long commands (`fuzz`, `check`, `report`),
on stderr: on a terminal a line redrawn in place with `\\r`, cut to the
terminal's width and padded over the tail of the last one; elsewhere (CI logs,
`nohup`) plain lines, at most one every few seconds.  A closed stream silences
it.  What each command says on it is its own: `verify.campaign.progress`
(fuzz), `verify.campaign.check_progress` (check), `reports.report_progress`."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from gpu_alloc_verify.reports.console import columns, fit, on_terminal

REDRAW_S = 0.2  # a terminal's line is redrawn at most this often


class ProgressLine:
    def __init__(self, stream: TextIO | None = None, tty: bool | None = None,
                 every_s: float = 5.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = on_terminal(self.stream, tty)
        self.every_s = every_s  # between two lines of a log
        self.closed = False  # the reader has gone: say nothing more
        self._last: float | None = None  # None: nothing shown yet, show the first
        self._width = 0  # of the line on screen, 0 when there is none
        self._lock = threading.Lock()  # `check` redraws from a thread of its own

    def due(self, force: bool = False) -> bool:
        """Whether a line may be shown now, counted as shown if so: a forced
        one always, else once REDRAW_S (terminal) or every_s (log) have passed
        since the last."""
        if self.closed:
            return False
        now = time.monotonic()
        # Not `_last = 0.0`: the monotonic clock may start near zero (a
        # machine up for less than `every_s`), which would hide the first line.
        within = REDRAW_S if self.tty else self.every_s
        if not force and self._last is not None and now - self._last < within:
            return False
        self._last = now
        return True

    def show(self, text: str) -> None:
        """`text` redrawn on a terminal, else appended as a line of the log."""
        if self.tty:
            self.redraw(text)
        else:
            self.write(text + "\n")

    def redraw(self, text: str, paint: Callable[[str], str] | None = None) -> None:
        """`text` over the line on screen; `paint` colours it once cut."""
        # One column short of the terminal's width: a line that fills it
        # wraps on some terminals, and `\r` then rewrites only its tail.
        line = fit(text, columns(self.stream) - 1)
        with self._lock:
            pad = max(0, self._width - len(line))
            self._width = len(line)
            self.write(f"\r{paint(line) if paint else line}{' ' * pad}")

    def keep(self) -> None:
        """The line on screen ended with a newline: it stays, later output goes below."""
        with self._lock:
            if self.tty and self._width:
                self.write("\n")
                self._width = 0

    def erase(self) -> None:
        """The line on screen blanked, the cursor back at its start."""
        with self._lock:
            if self._width:
                self.write("\r" + " " * self._width + "\r")
                self._width = 0

    def write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError, OSError):  # `2>&1 | head` gone, stream closed
            self.closed = True
