"""Harness defects: a Python exception inside an interpreter or oracle.

Such an exception is the harness's fault, never the user's file's: the
verdict it cut short is `unknown`, with a reason in words naming the op
and the construct (`record` returns it), and the exception itself is kept
here, as `selfcheck` keeps the analysis's defects, for `check` to report
apart from the verdicts (`take`), its Python text shown only on request.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass

# Past this many in one process, later ones are counted, not kept.
_KEEP = 100

# What a Python exception type says about the construct, in words.
_CONSTRUCT = (
    (RecursionError, "nesting deeper than the harness follows"),
    (MemoryError, "more memory than this machine gives it"),
    (ZeroDivisionError, "a division by zero it does not model"),
    (OverflowError, "a number too large for it"),
    (IndexError, "an operand, result or element it did not find"),
    (KeyError, "a value or attribute it did not find"),
    (AttributeError, "an attribute the op does not carry"),
    (TypeError, "a value of a kind it does not expect"),
    (ValueError, "a value or attribute of a form it does not expect"),
)


@dataclass(frozen=True)
class HarnessDefect:
    """One exception inside a stage, where it arose and what it was."""

    stage: str  # "the lowered-IR interpreter", ...
    op: str  # the op it was running ("" when none is known)
    where: str  # its file:line:col or key ("?" when none)
    construct: str  # what the op held that the stage failed on, in words
    error: str  # the Python exception, type and message (for the report only)
    trace: str  # its traceback (for --debug)

    def words(self) -> str:
        on = f" on {self.op}" if self.op else ""
        at = f" at {self.where}" if self.where and self.where != "?" else ""
        return (f"{self.stage} failed{on}{at}, on {self.construct}: a harness defect "
                "(recorded), not a property of the file")


_recorded: list[HarnessDefect] = []
_dropped = 0


def construct_of(error: BaseException) -> str:
    """The construct an exception of this type points at, in words."""
    for kind, words in _CONSTRUCT:
        if isinstance(error, kind):
            return words
    return "a construct it does not handle"


def record(stage: str, op: str, where: str, error: BaseException) -> str:
    """Keep `error` as a harness defect; the `unknown` reason to give."""
    global _dropped
    defect = HarnessDefect(stage, op, where, construct_of(error),
                           f"{type(error).__name__}: {error}",
                           "".join(traceback.format_exception(error)))
    if len(_recorded) < _KEEP:
        _recorded.append(defect)
    else:
        _dropped += 1
    return defect.words()


def record_text(stage: str, error: str) -> str:
    """`record` for an exception a stage kept only as text (`Type: message`)."""
    global _dropped
    defect = HarnessDefect(stage, "", "?", "a construct it does not handle", error, "")
    if len(_recorded) < _KEEP:
        _recorded.append(defect)
    else:
        _dropped += 1
    return defect.words()


def take() -> tuple[list[HarnessDefect], int]:
    """The defects recorded since the last `take`, and how many were not kept."""
    global _dropped
    out, dropped = list(_recorded), _dropped
    _recorded.clear()
    _dropped = 0
    return out, dropped


# A Python exception's name at the start of a message (`ValueError: ...`).
_EXCEPTION_PREFIX = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception): ")


def without_exception_name(line: str) -> str:
    """`line` without a leading `SomeError: `."""
    return _EXCEPTION_PREFIX.sub("", line.strip())


def message_in_words(error: BaseException) -> str:
    """An exception's own message, for a reason that quotes what a reader
    said about the text: without the exception's name, its first line."""
    if isinstance(error, RecursionError | MemoryError):  # Python's words, not the text's
        return construct_of(error)
    text = str(error).strip()
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    first = _EXCEPTION_PREFIX.sub("", first)
    return first or construct_of(error)


# A Python exception's name, or text only Python's errors hold: what no
# reason a user reads may contain (tests scan verdicts for it).
PYTHON_ERROR_TEXT = re.compile(
    r"\b[A-Z]\w*(?:Error|Exception)\b|\bTraceback\b|op_name__|maximum recursion depth")
