"""What a cluster campaign's driver has written, and the writing of it.

The driver is the only writer of the results file.  Every program record
is keyed by (campaign, shard, program text): a record already written, sent
again by a shard Dask ran a second time after its worker died (or by a
resumed shard), is dropped and counted (`duplicates`), never written twice.
A program another shard of the same lowering label recorded is dropped too
(`repeats`): a local campaign with as many shards judges it once.

Exact resume: a program record carries its place in its shard's program
stream (`draw`, see `verify.campaign.shards`), and a shard writes its
records in stream order, so the records of an unfinished shard are its
stream's recorded prefix (`progress`).  A shard's `shard-done` record says
it finished (its violations, draws and deferred example-database saves with
it), so a killed driver's `--resume` re-submits only the shards without one,
each with its recorded programs, which it skips: it judges only the rest of
its stream.  The tallies, coverage, unknown verdicts and violations found
are rebuilt from the records, exactly as they were counted when written.

Records are written one `write` each (whole lines, O_APPEND) and fsynced
once per batch received, not per record: a killed driver loses nothing it
wrote (the page cache outlives the process); a machine crash may lose the
last batch, which the resumed shard then sends again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.campaign.resume import add_to_tally, found_keys
from gpu_alloc_verify.verify.campaign.shards import Shard
from gpu_alloc_verify.verify.invariants.pipeline import Tally
from gpu_alloc_verify.verify.model.baseline import BaselineTally
from gpu_alloc_verify.verify.model.results import ResultsWriter

Record = dict[str, Any]
Key = tuple[str, str]  # (lowering label, invariant)


class BatchWriter(ResultsWriter):
    """A results writer that fsyncs when told (`sync`), not after every record."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, fsync=False)
        self._dirty = False

    def write(self, record: Record) -> None:
        super().write(record)
        self._dirty = True

    def sync(self) -> None:
        if self._dirty and self._fd is not None:
            os.fsync(self._fd)
        self._dirty = False


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class Ledger:
    def __init__(self, writer: BatchWriter | None, campaign: str, shards: Iterable[Shard]
                 ) -> None:
        self.writer = writer
        self.campaign = campaign
        self.shards = {s.index: s for s in shards}
        self.seen: dict[int, set[bytes]] = {k: set() for k in self.shards}
        # Texts recorded per label (every shard of it), digests and texts
        self.by_label: dict[str, set[bytes]] = {s.label: set() for s in self.shards.values()}
        self.texts: dict[str, list[str]] = {s.label: [] for s in self.shards.values()}
        self.count: dict[int, int] = dict.fromkeys(self.shards, 0)
        self.drawn: dict[int, int] = dict.fromkeys(self.shards, 0)  # draws recorded, a prefix
        self.done: dict[int, Record] = {}
        self.violations_written: set[str] = set()  # ids of violation records in the file
        self.tally = Tally()
        self.coverage: dict[str, int] = {}
        self.first: dict[Key, int] = {}  # first example index that showed each violation
        self.violated = 0  # violated verdicts counted (not a baseline's)
        self.base: BaselineTally | None = None  # with --baseline: added and shared verdicts
        self.unknown: dict[tuple[str, str, str], Record] = {}
        self.duplicates = 0  # program records received again and dropped
        self.repeats = 0  # programs another shard of the label recorded first, dropped
        self.written = 0  # program records written by this driver

    # -- writing ----------------------------------------------------------
    def write(self, record: Record) -> None:
        if self.writer is not None:
            self.writer.write(record)

    def sync(self) -> None:
        if self.writer is not None:
            self.writer.sync()

    def program(self, rec: Record) -> bool:
        """Write a program record a shard sent, unless written already."""
        shard = rec.get("shard")
        text = rec.get("program")
        if not isinstance(shard, int) or shard not in self.shards or not isinstance(text, str):
            return False
        digest = _digest(text)
        if digest in self.seen[shard]:
            self.duplicates += 1
            return False
        self.seen[shard].add(digest)
        self._progress(shard, rec.get("draw"))
        label = self.shards[shard].label
        if digest in self.by_label[label]:
            self.repeats += 1
            return False
        self._note_text(label, digest, text)
        n = self.count[shard]
        self.count[shard] = n + 1
        out: Record = {"kind": "program", "campaign": self.campaign,
                       "id": f"{self.campaign}-s{shard}-p{n}", "shard": shard, "program": text,
                       "features": rec.get("features") or [], "results": rec.get("results") or {},
                       "found": rec.get("found") or []}
        if isinstance(rec.get("baseline"), dict):
            out["baseline"] = rec["baseline"]
        if isinstance(rec.get("draw"), int):
            out["draw"] = rec["draw"]
        self._account(out)
        self.write(out)
        self.written += 1
        return True

    def _progress(self, shard: int, draw: Any) -> None:
        if isinstance(draw, int):
            self.drawn[shard] = max(self.drawn[shard], draw + 1)

    def _note_text(self, label: str, digest: bytes, text: str) -> None:
        self.by_label[label].add(digest)
        self.texts[label].append(text)

    def progress(self, shard: int) -> Record:
        """What an unfinished shard has recorded: programs, and the draws of
        its stream they cover (a prefix)."""
        return {"shard": shard, "programs": self.count[shard], "draws": self.drawn[shard]}

    def skip(self, shard: int) -> list[str]:
        """Programs other shards of `shard`'s label recorded."""
        mine = self.seen[shard]
        return [t for t in self.texts[self.shards[shard].label] if _digest(t) not in mine]

    def draws(self) -> int:
        """Draws of the finished shards' streams (the campaign's `generated`)."""
        return sum(d.get("draws") or 0 for d in self.done.values())

    def db_saves(self) -> list[tuple[bytes, bytes]]:
        """Example-database saves the finished shards deferred to the campaign's end."""
        out = []
        for k in sorted(self.done):
            for pair in self.done[k].get("db_saves") or []:
                if isinstance(pair, list) and len(pair) == 2:
                    out.append((bytes.fromhex(pair[0]), bytes.fromhex(pair[1])))
        return out

    def shard_done(self, shard: int, result: Record) -> Record:
        rec: Record = {
            "kind": "shard-done", "campaign": self.campaign, "shard": shard,
            "programs": self.count.get(shard, 0), "examples": result.get("examples"),
            "draws": result.get("draws"), "stopped_by": result.get("stopped_by"),
            "elapsed": result.get("elapsed"),
            "worker": result.get("worker"), "pid": result.get("pid"),
            "violations": result.get("violations") or [],
            "db_saves": result.get("db_saves") or []}
        if result.get("diverged"):
            rec["diverged"] = result["diverged"]
        self.done[shard] = rec
        self.write(rec)
        self.sync()
        return rec

    # -- counting -----------------------------------------------------------
    def _account(self, rec: Record) -> None:
        add_to_tally(self.tally, rec)
        for feat in rec.get("features") or []:
            self.coverage[feat] = self.coverage.get(feat, 0) + 1
        for key in found_keys(rec):
            self.first.setdefault(key, self.tally.examples)
            self.violated += 1
        base = rec.get("baseline")
        if isinstance(base, dict):
            if self.base is None:
                self.base = BaselineTally(str(base.get("lowering") or "baseline"))
            self.base.add(rec)
        for spec, res in (rec.get("results") or {}).items():
            for inv, reason in ((res or {}).get("reasons") or {}).items():
                self._note_unknown(spec, inv, str(reason), rec["program"])

    def _note_unknown(self, spec: str, inv: str, reason: str, text: str) -> None:
        short = reason.strip().splitlines()[0] if reason.strip() else "solver gave up"
        entry = self.unknown.setdefault((spec, inv, short), {
            "lowering": spec, "invariant": inv, "reason": short, "count": 0, "program": text})
        entry["count"] += 1

    # -- resuming -------------------------------------------------------------
    def load(self, records: Iterable[Record]) -> dict[int, list[Record]]:
        """Take over what an earlier driver of this campaign wrote; each
        unfinished shard's program records (to hand to it again)."""
        recorded: dict[int, list[Record]] = {}
        for rec in records:
            if rec.get("campaign") != self.campaign:
                continue
            kind = rec.get("kind")
            shard = rec.get("shard")
            if kind == "program" and isinstance(shard, int) and shard in self.shards:
                text = rec.get("program")
                label = self.shards[shard].label
                if not isinstance(text, str) or _digest(text) in self.by_label[label]:
                    continue
                self.seen[shard].add(_digest(text))
                self._note_text(label, _digest(text), text)
                self._progress(shard, rec.get("draw"))
                self.count[shard] += 1
                self._account(rec)
                recorded.setdefault(shard, []).append(
                    {k: rec[k] for k in ("program", "draw", "features", "results", "found",
                                         "baseline") if k in rec})
            elif kind == "shard-done" and isinstance(shard, int):
                self.done.setdefault(shard, rec)
            elif kind == "violation" and isinstance(rec.get("id"), str):
                self.violations_written.add(rec["id"])
        return {k: v for k, v in recorded.items() if k not in self.done}

    # -- the campaign's violations ---------------------------------------------
    def best_violations(self) -> list[tuple[Shard, Record]]:
        """One violation per (lowering label, invariant) over all finished
        shards: shrunk before unshrunk, then the fewest ops."""
        best: dict[Key, tuple[tuple[bool, int, int], Shard, Record]] = {}
        for k in sorted(self.done):
            for v in self.done[k].get("violations") or []:
                if not isinstance(v, dict):
                    continue
                key = (str(v.get("lowering")), str(v.get("invariant")))
                ops = v.get("ops")
                rank = (not v.get("shrunk", True), ops if isinstance(ops, int) else 1 << 30, k)
                if key not in best or rank < best[key][0]:
                    best[key] = (rank, self.shards[k], v)
        order = {label: n for n, label in enumerate(
            dict.fromkeys(s.label for s in self.shards.values()))}
        keys = sorted(best, key=lambda key: (order.get(key[0], len(order)), key[1]))
        return [(best[key][1], best[key][2]) for key in keys]
