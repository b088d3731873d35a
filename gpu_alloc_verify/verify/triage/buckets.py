"""Triage: the violations of a results file bucketed into root causes.

Every program a campaign recorded with a `violated` verdict is judged again
under that campaign's settings (the program line keeps verdicts only, not
the evidence), and each violation gets a signature
(`verify.triage.signature`): invariant, source-op pattern, offending call
pattern, lowering family.  A bucket is one signature, with how many programs
showed it in each campaign, the first and last campaign that did, whether it
is new since the previous campaign, the lowerings it was seen on, and its
smallest example (a shrunk violation record of the campaign when one has the
signature).  Buckets come most frequent first, then by key, so the same
results file gives the same buckets on every run.

`gpu-alloc-verify triage RESULTS.jsonl [--json]` prints them; the HTML
report and `fuzz` lead with them.  The `--json` object's shape is
`verify/schema/triage.schema.json` (its own output: the fuzz/check summary
schema stays as it is).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.extract.leftovers import CASTS
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.model.baseline import base_violated
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError, UsageError
from gpu_alloc_verify.verify.model.results import read_records
from gpu_alloc_verify.verify.model.verdicts import INVARIANTS, InvariantId, Verdict
from gpu_alloc_verify.verify.triage.causes import organize, program_text
from gpu_alloc_verify.verify.triage.kinds import DEFECT, KNOCK_ON, LIMITATION, SEVERITY
from gpu_alloc_verify.verify.triage.offending import roles
from gpu_alloc_verify.verify.triage.reduce import reductions_out_of_time
from gpu_alloc_verify.verify.triage.rejudge import Settings, lowering_for, rejudge
from gpu_alloc_verify.verify.triage.signature import Signature, family, signature_of

Record = dict[str, Any]
TRIAGE_SCHEMA_VERSION = 2
EXAMPLES_KEPT = 5


@dataclass
class Bucket:
    signature: Signature
    per_campaign: dict[str, int] = field(default_factory=dict)  # campaign -> programs
    lowerings: list[str] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)  # the first few program ids
    violation_ids: list[str] = field(default_factory=list)  # shrunk records with it
    # The smallest violation records (size, record), smallest first.
    smallest: list[tuple[tuple[int, ...], Record]] = field(default_factory=list)
    first_seen: str = ""
    last_seen: str = ""
    first_time: float | None = None
    last_time: float | None = None
    new: bool = False
    # Set by `verify.triage.causes` once every violation is bucketed.
    kind: str = "defect"
    severity: int = 0  # tier in `kinds.SEVERITY`
    pass_name: str = "gpu-to-llvm"
    upstream: list[dict[str, str]] = field(default_factory=list)
    parent: str | None = None  # a knock-on's parent bucket key
    knock_ons: list[Bucket] = field(default_factory=list)
    merged: list[Bucket] = field(default_factory=list)  # same minimal program
    # Occurrences, those on a program with an op left unconverted, and those
    # ops' signatures (what a knock-on is a consequence of).
    seen: int = 0
    seen_unconverted: int = 0
    unconverted: dict[Signature, int] = field(default_factory=dict)
    confirmed: bool = False  # the differential (execution) view shows it too
    # Its example reduced to show it with no op left unconverted (so no knock-on).
    reduced: str | None = None

    @property
    def count(self) -> int:
        return sum(self.per_campaign.values())

    @property
    def key(self) -> str:
        return self.signature.key

    @property
    def program_count(self) -> int:
        """Programs that show it: the recorded ones, else its shrunk programs
        (shrinking reached it from a program recorded under another root
        cause), so a root cause always has its programs."""
        return self.count or len(self.violation_ids)

    def count_text(self) -> str:
        n = self.program_count
        text = f"{n} program" + ("" if n == 1 else "s")
        return text if self.count or not n else text + " (shrunk)"

    @property
    def example(self) -> Record | None:
        """The smallest violation record of the bucket."""
        return self.smallest[0][1] if self.smallest else None

    @property
    def examples(self) -> list[Record]:
        return [rec for _, rec in self.smallest]

    def to_json(self) -> Record:
        return {
            "key": self.key, "slug": self.signature.slug(),
            "signature": {"invariant": self.signature.invariant,
                          "source": self.signature.source, "calls": self.signature.calls,
                          "family": self.signature.family},
            "count": self.count, "per_campaign": dict(self.per_campaign),
            "first_seen": self.first_seen, "last_seen": self.last_seen,
            "first_time": self.first_time, "last_time": self.last_time,
            "new": self.new, "lowerings": list(self.lowerings),
            "programs": list(self.programs), "violation_ids": list(self.violation_ids),
            "example": _example_json(self.example),
            "kind": self.kind, "severity": SEVERITY[self.severity],
            "pass": self.pass_name, "upstream": [dict(u) for u in self.upstream],
            "parent": self.parent, "confirmed_by_execution": self.confirmed,
            "reduced_program": self.reduced,
            "merged": [{"key": m.key, "slug": m.signature.slug(),
                        "invariant": m.signature.invariant, "count": m.count}
                       for m in self.merged],
            "knock_ons": [k.to_json() for k in self.knock_ons],
        }


def _example_json(rec: Record | None) -> Record | None:
    if rec is None:
        return None
    keys = ("id", "program_id", "invariant", "lowering", "pipeline", "program", "lowered",
            "detail", "counterexample", "marked_calls")
    return {k: rec.get(k) for k in keys if k in rec}


@dataclass
class Triage:
    buckets: list[Bucket]
    campaigns: list[str]
    latest: str | None
    previous: str | None
    programs: int  # programs with at least one violation
    violations: int  # (program, lowering, violation) occurrences bucketed
    unreproduced: int = 0  # violated verdicts that did not show again
    notes: list[str] = field(default_factory=list)

    def all_buckets(self) -> list[Bucket]:
        """Every bucket: the root causes, their knock-ons and merged duplicates."""
        out: list[Bucket] = []
        for b in self.buckets:
            for x in [b, *b.knock_ons]:
                out += [x, *x.merged]
        return out

    def kind_counts(self) -> dict[str, int]:
        """Root causes per kind (knock-ons counted, merged duplicates not)."""
        out = {DEFECT: 0, LIMITATION: 0, KNOCK_ON: 0}
        for b in self.buckets:
            for x in [b, *b.knock_ons]:
                out[x.kind] = out.get(x.kind, 0) + 1
        return out

    def to_json(self) -> Record:
        return {"schema_version": TRIAGE_SCHEMA_VERSION, "campaigns": self.campaigns,
                "latest": self.latest, "previous": self.previous,
                "violating_programs": self.programs, "violations": self.violations,
                "unreproduced": self.unreproduced, "notes": list(self.notes),
                "buckets": [b.to_json() for b in self.buckets]}


@dataclass
class _Campaign:
    id: str
    start: Record = field(default_factory=dict)
    programs: list[Record] = field(default_factory=list)
    violations: list[Record] = field(default_factory=list)

    def settings(self, spec: str, record: Record | None = None) -> Settings:
        def pick(key: str, default: Any) -> Any:
            value = (record or {}).get(key)
            value = value if value is not None else self.start.get(key)
            return value if value is not None else default

        timeout = pick("solver_timeout_ms", 2000)
        return Settings(spec, str(pick("pipeline", DEFAULT_PIPELINE)),
                        str(pick("runtime", "cuda")),
                        timeout if isinstance(timeout, int) and timeout > 0 else 2000)


def _campaigns(records: list[Record]) -> list[_Campaign]:
    found: dict[str, _Campaign] = {}
    for rec in records:
        cid = rec.get("campaign")
        if not isinstance(cid, str) or not cid:
            continue
        camp = found.setdefault(cid, _Campaign(cid))
        kind = rec.get("kind")
        if kind == "campaign-start" and not camp.start:
            camp.start = rec
        elif kind == "program":
            camp.programs.append(rec)
        elif kind == "violation":
            camp.violations.append(rec)
    return list(found.values())


def _violated(program: Record) -> dict[str, list[str]]:
    """Lowering spec -> invariants violated on this program, those the
    campaign's baseline violates on it too left out (`fuzz --baseline`: the
    root causes are what the lowering adds)."""
    out: dict[str, list[str]] = {}
    shared = base_violated(program)
    results = program.get("results")
    if not isinstance(results, dict):
        return out
    for spec, result in results.items():
        verdicts = result.get("verdicts") if isinstance(result, dict) else None
        if isinstance(verdicts, dict):
            bad = [str(i) for i, v in verdicts.items()
                   if v == Verdict.VIOLATED and str(i) not in shared]
            if bad:
                out[str(spec)] = bad
    return out


def _root_causes(found: list[Record]) -> list[Record]:
    """The violations of one program without knock-on effects: a cast left over
    because another op of the program was left unconverted is not a cause."""
    def cast_only(v: Record) -> bool:
        return v["invariant"] == InvariantId.LOWERING_COMPLETE and roles(v).left in CASTS

    if any(v["invariant"] == InvariantId.LOWERING_COMPLETE and not cast_only(v) for v in found):
        return [v for v in found if not cast_only(v)]
    return found


def _size(rec: Record) -> tuple[int, int]:
    text = str(rec.get("program") or "")
    return (sum(1 for ln in text.splitlines() if 'loc("' in ln or "gpu." in ln), len(text))


Progress = Callable[[str], None]


class _Builder:
    def __init__(self, order: list[str]) -> None:
        self.order = order
        self.buckets: dict[Signature, Bucket] = {}
        self.occurrences = 0

    def add(self, sig: Signature, camp: _Campaign, rec: Record, time: float | None,
            program_id: str | None, shrunk_id: str | None = None,
            unconverted: list[Signature] | None = None) -> None:
        """`unconverted`: the signatures of ops left unconverted on the same
        program (None: not known)."""
        b = self.buckets.setdefault(sig, Bucket(sig))
        others = [u for u in unconverted or [] if u != sig]
        b.seen += 1
        if others:
            b.seen_unconverted += 1
            for u in others:
                b.unconverted[u] = b.unconverted.get(u, 0) + 1
        if program_id is not None:
            b.per_campaign[camp.id] = b.per_campaign.get(camp.id, 0) + 1
            if len(b.programs) < EXAMPLES_KEPT:
                b.programs.append(program_id)
            self.occurrences += 1
        if shrunk_id is not None and shrunk_id not in b.violation_ids:
            b.violation_ids.append(shrunk_id)
        spec = str(rec.get("lowering") or "")
        if spec and spec not in b.lowerings:
            b.lowerings.append(spec)
        gpu_ops, length = _size(rec)
        if shrunk_id is not None:
            gpu_ops -= 1  # a shrunk record is preferred at equal size
        # A program that shows the cause alone is the better reproducer.
        size = (1 if others else 0, gpu_ops, length)
        if len(b.smallest) < EXAMPLES_KEPT or size < b.smallest[-1][0]:
            kept = dict(rec, program_id=program_id) if program_id else dict(rec)
            b.smallest.append((size, kept))
            b.smallest.sort(key=lambda item: item[0])
            del b.smallest[EXAMPLES_KEPT:]
        if not b.first_seen or self.order.index(camp.id) < self.order.index(b.first_seen):
            b.first_seen, b.first_time = camp.id, time
        if not b.last_seen or self.order.index(camp.id) >= self.order.index(b.last_seen):
            b.last_seen = camp.id
            if b.last_time is None or (time is not None and time > b.last_time):
                b.last_time = time


def _time(rec: Record) -> float | None:
    t = rec.get("time")
    return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None


def _add_program(builder: _Builder, camp: _Campaign, found: list[Record], pipeline: str,
                 time: float | None, program_id: str) -> None:
    """The root causes one program shows.  Its differential violation is the
    execution view of a structural one it also shows (one cause, one bucket);
    each cause notes the ops the program left unconverted (knock-on evidence)."""
    sigs: list[tuple[Record, Signature]] = []
    for v in _root_causes(found):
        sig = signature_of(v, pipeline)
        if all(sig != s for _, s in sigs):
            sigs.append((v, sig))
    unconverted = [s for _, s in sigs if s.invariant == InvariantId.LOWERING_COMPLETE]
    structural = [s for _, s in sigs
                  if s.invariant not in (InvariantId.DIFFERENTIAL, InvariantId.LOWERING_COMPLETE)]
    for v, sig in sigs:
        if sig.invariant == InvariantId.DIFFERENTIAL and structural:
            continue
        builder.add(sig, camp, v, time, program_id, unconverted=unconverted)
    if structural and any(s.invariant == InvariantId.DIFFERENTIAL for _, s in sigs):
        for s in structural:
            builder.buckets[s].confirmed = True


_STRUCTURAL = [inv for inv in INVARIANTS if inv != InvariantId.DIFFERENTIAL]


def _add_shrunk(builder: _Builder, camp: _Campaign, progress: Progress | None) -> None:
    """The campaign's shrunk violation records, each judged again on every
    structural rule so that what else its program shows is known."""
    jobs: dict[Settings, list[Record]] = {}
    for rec in camp.violations:
        if isinstance(rec.get("program"), str):
            settings = camp.settings(str(rec.get("lowering") or ""), rec)
            jobs.setdefault(settings, []).append(dict(rec, pipeline=settings.pipeline))
    for settings, recs in jobs.items():
        if progress is not None:
            progress(f"triage: judging {len(recs)} shrunk example(s) of {camp.id} again")
        try:
            judged = rejudge([r["program"] for r in recs], [str(r.get("id")) for r in recs],
                             settings, [_STRUCTURAL] * len(recs))
        except GpuAllocVerifyError:
            judged = [None] * len(recs)
        for rec, found in zip(recs, judged, strict=True):
            sig = signature_of(rec, settings.pipeline)
            causes = [(v, signature_of(v, settings.pipeline)) for v in _root_causes(found or [])]
            unconverted = [s for _, s in causes if s.invariant == InvariantId.LOWERING_COMPLETE]
            if sig.invariant == InvariantId.DIFFERENTIAL and len(causes) > len(unconverted):
                for _, s in causes:
                    if s.invariant != InvariantId.LOWERING_COMPLETE and s in builder.buckets:
                        builder.buckets[s].confirmed = True
                continue
            for v, s in causes:  # the parents a knock-on is listed under
                if s.invariant == InvariantId.LOWERING_COMPLETE and s != sig:
                    builder.add(s, camp, v, _time(rec), None)
            builder.add(sig, camp, rec, _time(rec), None, str(rec.get("id") or ""),
                        unconverted if found is not None else None)


def triage_records(records: list[Record], progress: Progress | None = None,
                   reduce: bool = True) -> Triage:
    """`reduce`: reduce each defect's example with the campaign's lowering (its
    reproducer, and whether a knock-on candidate stands alone)."""
    camps = _campaigns(records)
    order = [c.id for c in camps]
    builder = _Builder(order)
    notes: list[str] = []
    unreproduced = 0
    programs = 0
    for camp in camps:
        jobs: dict[Settings, list[tuple[Record, list[str]]]] = {}
        for prog in camp.programs:
            bad = _violated(prog)
            if bad and isinstance(prog.get("program"), str):
                programs += 1
                for spec, invariants in bad.items():
                    # A portfolio campaign's result names the program's own pipeline.
                    result = (prog.get("results") or {}).get(spec)
                    jobs.setdefault(camp.settings(spec, result if isinstance(result, dict)
                                                  else None), []).append((prog, invariants))
        for settings, items in jobs.items():
            if progress is not None:
                progress(f"triage: judging {len(items)} program(s) of {camp.id} again "
                         f"on {settings.lowering}")
            try:
                # The triage deadline (`findings --time-budget`) bounds judging
                # again as well as reducing.
                if reductions_out_of_time():
                    raise GpuAllocVerifyError("the time budget ran out")
                lowering = lowering_for(settings)
                judged = rejudge([p["program"] for p, _ in items],
                                 [str(p.get("id", "?")) for p, _ in items], settings,
                                 [inv for _, inv in items], lowering)
            except GpuAllocVerifyError as e:
                notes.append(f"{camp.id}: {settings.lowering} not judged again ({e}); its "
                             "violations are bucketed by invariant only")
                judged = [None] * len(items)
                for prog, invariants in items:
                    for inv in invariants:
                        sig = Signature(inv, "?", "not judged again",
                                        family(settings.lowering, settings.pipeline))
                        builder.add(sig, camp, {"invariant": inv, "lowering": settings.lowering,
                                                "program": prog["program"]},
                                    _time(prog), str(prog.get("id", "?")))
                continue
            for (prog, invariants), found in zip(items, judged, strict=True):
                if not found:
                    unreproduced += len(invariants)
                    continue
                unreproduced += len(set(invariants) - {v["invariant"] for v in found})
                _add_program(builder, camp, found, settings.pipeline, _time(prog),
                             str(prog.get("id", "?")))
        _add_shrunk(builder, camp, progress)
    latest = order[-1] if order else None
    previous = order[-2] if len(order) > 1 else None
    buckets = sorted(builder.buckets.values(), key=lambda b: (-b.count, b.key))
    for b in buckets:
        earlier = [c for c in order[:-1] if b.per_campaign.get(c)]
        b.new = bool(latest and (b.per_campaign.get(latest) or b.last_seen == latest)
                     and not earlier)
    if unreproduced:
        notes.append(f"{unreproduced} violated verdict(s) did not show again when judged "
                     "again (a different tool build, or a solver timeout)")
    if reduce and progress is not None and buckets:
        progress("triage: reducing the examples of the root causes' defects")
    # A cause noted only as a shrunk program's parent, on no program of its own
    # (with --baseline: the baseline's), is no root cause of this file.
    causes = [b for b in organize(buckets, reduce) if b.program_count or b.knock_ons]
    return Triage(causes, order, latest, previous, programs,
                  builder.occurrences, unreproduced, notes)


_CACHE: dict[tuple[str, int, int], Triage] = {}


def triage_file(path: str | Path, progress: Progress | None = None) -> Triage:
    """The triage of a results file (kept per file size and time within a process)."""
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"results file '{path}' does not exist; give the results.jsonl "
                         "a fuzz campaign wrote (--results FILE or --report DIR)")
    st = p.stat()
    key = (os.path.realpath(p), st.st_size, st.st_mtime_ns)
    if key not in _CACHE:
        _CACHE[key] = triage_records(read_records(p), progress)
    return _CACHE[key]


def _bucket_lines(b: Bucket, label: str, indent: str = "    ") -> list[str]:
    sig = b.signature
    new = "  NEW" if b.new else ""
    lines = [f"\n{label} {b.kind}: {sig.slug()}  [{b.key}]  {b.count_text()}{new}"]
    lines.append(f"{indent}pass       {b.pass_name}"
                 + (f" ({SEVERITY[b.severity]})" if b.kind == DEFECT else ""))
    lines.append(f"{indent}invariant  {sig.invariant}"
                 + ("  (differential view too)" if b.confirmed else ""))
    lines.append(f"{indent}source     {sig.source}")
    lines.append(f"{indent}calls      {sig.calls}")
    lines.append(f"{indent}lowering   {sig.family}: {', '.join(b.lowerings)}")
    seen = b.first_seen if b.first_seen == b.last_seen else f"{b.first_seen} .. {b.last_seen}"
    lines.append(f"{indent}seen       {seen}")
    if b.violation_ids:
        lines.append(f"{indent}shrunk     {', '.join(b.violation_ids)}")
    for ref in b.upstream:
        lines.append(f"{indent}upstream   {ref.get('ref')} ({ref.get('state')}, "
                     f"{ref.get('relation')}): {ref.get('url')}")
    if b.merged:
        lines.append(f"{indent}same program as "
                     + ", ".join(f"{m.signature.slug()} [{m.key}]" for m in b.merged))
    return lines


def format_triage(t: Triage, limit: int | None = None) -> str:
    """The root causes as text for a terminal: defects first, each with its
    minimal reproducer; knock-ons under their parent."""
    if not t.buckets:
        return "triage: no violation\n"
    counts = t.kind_counts()
    head = (f"triage: {len(t.buckets)} root cause(s) in {t.programs} program(s): "
            f"{counts[DEFECT]} defect(s), "
            f"{counts[LIMITATION]} limitation(s), {counts[KNOCK_ON]} knock-on(s)"
            + (f"; campaigns {len(t.campaigns)}, latest {t.latest}" if t.campaigns else ""))
    lines = [head]
    shown = t.buckets if limit is None else t.buckets[:limit]
    for k, b in enumerate(shown, 1):
        lines += _bucket_lines(b, f"{k:>2}.")
        program = program_text(b)
        if b.kind == DEFECT and program:
            lines.append("    minimal reproducer" + (" (reduced):" if b.reduced else ":"))
            lines += ["      " + ln for ln in program.splitlines()]
        for j, knock in enumerate(b.knock_ons, 1):
            lines += _bucket_lines(knock, f"    {k}.{j}", "        ")
    if limit is not None and len(t.buckets) > limit:
        lines.append(f"\n... and {len(t.buckets) - limit} more (gpu-alloc-verify triage)")
    lines += [f"\nnote: {n}" for n in t.notes]
    return "\n".join(lines) + "\n"

