"""Append-only JSONL results: each record is flushed and fsynced as it is
written, so a killed campaign loses at most the program in flight.

Records: campaign-start, program (verdicts of every lowering), violation
(a shrunk counterexample), campaign-end (the summary)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import IO, Any


class ResultsWriter:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = open(self.path, "a", encoding="utf-8")  # noqa: SIM115

    def write(self, record: dict[str, Any]) -> None:
        record.setdefault("time", time.time())
        # One write call per line, with O_APPEND: concurrent campaigns on the
        # same file interleave whole lines, never parts of them.
        line = json.dumps(record, sort_keys=True) + "\n"
        self._file.write(line)
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """All complete records; a torn last line (a killed writer) is skipped."""
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records
