"""Append-only JSONL results: each record is written with one `write()` on a
file opened with O_APPEND and fsynced, so a killed campaign loses at most the
program in flight and campaigns sharing a file interleave whole lines.

Records: campaign-start, campaign-resume (a `fuzz --resume` picked the
campaign up again), program (verdicts of every lowering), violation (a shrunk
counterexample), campaign-end (the summary).  A campaign without its
campaign-end was killed or interrupted; `fuzz --resume` continues it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any


class ResultsWriter:
    def __init__(self, path: str | Path, fsync: bool = True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fsync = fsync
        self._fd: int | None = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._seal_torn_tail()

    def _seal_torn_tail(self) -> None:
        # A writer killed mid-line leaves a last line without its newline:
        # end it, so that the next record starts a line of its own (readers
        # skip the torn one) instead of being glued to it.
        try:
            with open(self.path, "rb") as f:
                f.seek(0, os.SEEK_END)
                if f.tell() == 0:
                    return
                f.seek(-1, os.SEEK_END)
                last = f.read(1)
        except OSError:
            return
        if last != b"\n":
            self._write_bytes(b"\n")

    def _write_bytes(self, data: bytes) -> None:
        assert self._fd is not None, "results writer is closed"
        view = memoryview(data)
        while view:  # a regular file takes the whole line in one call
            n = os.write(self._fd, view)
            view = view[n:]
        if self._fsync:
            os.fsync(self._fd)

    def write(self, record: dict[str, Any]) -> None:
        record.setdefault("time", time.time())
        # One write call per line, with O_APPEND: concurrent campaigns on the
        # same file interleave whole lines, never parts of them.
        line = json.dumps(record, sort_keys=True) + "\n"
        self._write_bytes(line.encode("utf-8"))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """All complete records, in file order.  A torn last line (a killed
    writer) and any line that is not a JSON object are skipped."""
    records = []
    with open(path, "rb") as f:
        for raw in f:
            if not raw.endswith(b"\n"):
                break  # torn last line
            try:
                rec = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                continue
            if isinstance(rec, dict):
                records.append(rec)
    return records


def unfinished_campaign(records: list[dict[str, Any]]) -> str | None:
    """Id of the latest campaign that has a start but no campaign-end."""
    started: list[str] = []
    ended: set[str] = set()
    for rec in records:
        cid = rec.get("campaign")
        if not isinstance(cid, str):
            continue
        if rec.get("kind") == "campaign-start" and cid not in started:
            started.append(cid)
        elif rec.get("kind") == "campaign-end":
            ended.add(cid)
    return next((c for c in reversed(started) if c not in ended), None)
