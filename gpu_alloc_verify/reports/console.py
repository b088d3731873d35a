"""Terminal conventions shared by the CLI and its progress line.

- A closed pipe (`gpu-alloc-verify check a.mlir | head -1`) ends the command
  quietly with status 141, what a shell reports for `cat` in the same place
  (128 + SIGPIPE): neither 0 ("no violation") nor 1 ("a violation") would be
  true, and `set -o pipefail` scripts see it as they see coreutils.  Python's
  default SIGPIPE handler is not restored instead: it would also kill the
  process on a write to an `mlir-opt` that died early, which is a verdict
  (crash), not the end of the command.
- `NO_COLOR` set to anything non-empty (https://no-color.org), `TERM=dumb`,
  or output that is not a terminal: no ANSI colour.
- Lines the progress bar rewrites in place fit the terminal and never exceed
  80 columns (a wrapped line cannot be rewritten with `\\r`).
"""

from __future__ import annotations

import os
import select
import sys
from typing import TextIO

EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE
MAX_COLUMNS = 80
RED, RESET = "\033[31m", "\033[0m"


def pipe_closed(stream: TextIO | None) -> bool:
    """Whether `stream` is a pipe whose reader has gone (poll says POLLERR)."""
    try:
        fd = stream.fileno() if stream is not None else -1
    except (AttributeError, OSError, ValueError):  # pytest's capture, StringIO
        return False
    if fd < 0:
        return False
    poll = getattr(select, "poll", None)
    if poll is None:  # Windows: no poll; a BrokenPipeError there is the pipe's
        return True
    poller = poll()
    poller.register(fd, select.POLLOUT)
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))


def output_closed() -> bool:
    """Whether stdout or stderr lost its reader: a BrokenPipeError then is the
    user's `| head`, not a worker or tool pipe breaking (an internal error)."""
    return pipe_closed(sys.stdout) or pipe_closed(sys.stderr)


def quiet_exit_on_closed_pipe() -> int:
    """Point stdout and stderr at /dev/null (the interpreter's final flush of
    what is still buffered would raise again and print "Exception ignored")
    and return the status to exit with."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (AttributeError, OSError, ValueError):
            pass
    os.close(devnull)
    return EXIT_CLOSED_PIPE


def on_terminal(stream: TextIO, tty: bool | None = None) -> bool:
    """Is `stream` a terminal (`tty` overrides)?  A closed or odd stream is not."""
    if tty is not None:
        return tty
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def use_colour(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def columns(stream: TextIO) -> int:
    """Columns a line on `stream` may use: the terminal's width (or $COLUMNS),
    never more than MAX_COLUMNS."""
    width = MAX_COLUMNS
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        width = int(env)
    else:
        try:
            width = os.get_terminal_size(stream.fileno()).columns or MAX_COLUMNS
        except (AttributeError, OSError, ValueError):
            pass
    return max(20, min(MAX_COLUMNS, width))


def fit(text: str, width: int) -> str:
    """`text` cut to `width` characters, a cut marked with '...'."""
    return text if len(text) <= width else text[:max(0, width - 3)] + "..."


def duration(seconds: float) -> str:
    """8s, 3m05s, 1h02m: short enough for the 80-column line."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
