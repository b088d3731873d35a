"""Does a certificate hold every root cause the default `fuzz` finds at its size?

    .venv/bin/python scripts/certify_vs_fuzz.py --certificate out/certificate/certificate.json

Runs the default `gpu-alloc-verify fuzz` on one lowering (default
mlir-opt-19) for a few seeds, with only what makes its programs the
certificate's size (`--max-ops N`) plus `--no-shrink`, a results file and
`--seed S`; triages the results; and compares the `defect` root causes
(triage's slugs, per pipeline) with the violations the certificate lists
for that lowering.  Prints those found by both, those only fuzz found (with
the first program's pipeline and feature tags, and whether some program
showing it lies in the certificate's space: a certified pipeline, only the
constructs it enumerates, at most its bound of ops), and those only the
certificate lists.

A fuzz-only cause is in the certificate's scope when its pipeline is one
the certificate ran and one of its programs (triage's reduced reproducer,
its smallest examples, its first programs) reads back as certificate steps
(`verify.certify.from_text`) of at most N ops; the script then says whether
that program's canonical form is one the enumeration lists, and what the
certificate recorded for it.

Exit 0: every fuzz defect in scope is in the certificate; 1: some is not;
2: a run failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.certify.canonical import canonical
from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
from gpu_alloc_verify.verify.certify.from_text import read_program
from gpu_alloc_verify.verify.model.results import read_records
from gpu_alloc_verify.verify.triage.buckets import Bucket, triage_file
from gpu_alloc_verify.verify.triage.kinds import DEFECT
from gpu_alloc_verify.verify.triage.signature import family

CLI = [sys.executable, "-m", "gpu_alloc_verify"]
Record = dict[str, Any]


def run_fuzz(lowering: str, seeds: list[int], programs: int, max_ops: int, results: Path,
             time_budget: float | None) -> None:
    """One default campaign per seed, all into `results`; a line per seed."""
    for seed in seeds:
        argv = [*CLI, "fuzz", "--lowering", lowering, "--max-ops", str(max_ops),
                "--no-shrink", "--seed", str(seed), "--max-examples", str(programs),
                "--results", str(results)]
        if time_budget is not None:
            argv += ["--time-budget", str(time_budget)]
        start = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        took = time.monotonic() - start
        if proc.returncode not in (0, 1, 3):  # 1: violations, 3: unknowns
            raise SystemExit(f"certify_vs_fuzz: fuzz --seed {seed} failed (exit "
                             f"{proc.returncode}):\n{proc.stderr[-2000:]}")
        judged = next((ln.strip() for ln in proc.stdout.splitlines()
                       if " programs judged" in ln), "?")
        print(f"  seed {seed}: {judged} ({took:.0f} s wall)", flush=True)


@dataclass
class CertCause:
    slug: str
    invariants: list[str]
    programs: int
    first: int

    @property
    def kind(self) -> str:
        """As triage would call it: an op left unconverted is a limitation
        (or its knock-on), except the one gpu-async-region causes."""
        if self.invariants == ["lowering-complete"] and self.slug != "async-region-host-shared":
            return "limitation"
        return DEFECT


@dataclass
class Certificate:
    path: Path
    lowering: str
    max_ops: int
    spaces: bool
    programs: int
    digest: str
    # family -> (pipeline, slug -> cause), for the lowering compared.
    by_family: dict[str, tuple[str, dict[str, CertCause]]]
    keys: dict[object, int] | None = None  # canonical key -> index; None: not at hand
    records: dict[tuple[str, int], Record] = field(default_factory=dict)
    loaded: bool = False

    def _load(self) -> None:
        """The certificate run's records on this lowering (its results.jsonl
        beside certificate.json) and, from their texts, the canonical key of
        each program it checked; without them, this code's enumeration when
        its digest is the certificate's."""
        if self.loaded:
            return
        self.loaded = True
        path = self.path.parent / "results.jsonl"
        if path.exists():
            for rec in read_records(path):
                target = rec.get("target") or {}
                if rec.get("kind") == "certify-program" and target.get("lowering") == self.lowering:
                    self.records[(target["pipeline"], int(rec["index"]))] = rec
        if self.records:
            self.keys = {}
            for (_, index), rec in self.records.items():
                read = read_program(str(rec["program"]), self.spaces)
                if read.steps is not None:
                    self.keys.setdefault(canonical(read.steps)[0], index)
            return
        enum = enumerate_bound(self.max_ops, self.spaces)
        if enum.digest == self.digest:
            self.keys = {canonical(p)[0]: i for i, p in enumerate(enum.programs)}

    def index_of(self, steps: Any) -> int | None:
        """The index of the certificate's program that is `steps` (None: none
        is); LookupError when the certificate's program list is not at hand."""
        self._load()
        if self.keys is None:
            raise LookupError("no results.jsonl beside the certificate, and its digest is "
                              "not this code's enumeration")
        return self.keys.get(canonical(steps)[0])

    def record(self, pipeline: str, index: int) -> Record | None:
        """What the certificate's run recorded for program `index` on `pipeline`."""
        self._load()
        return self.records.get((pipeline, index))


def load_certificate(path: Path, lowering: str) -> Certificate:
    cert = json.loads(path.read_text("utf-8"))
    spaces = 1 in cert["feature_set"].get("memory_spaces", [0])
    by_family: dict[str, tuple[str, dict[str, CertCause]]] = {}
    for t in cert["targets"]:
        if t["target"]["lowering"] != lowering:
            continue
        pipeline = t["target"]["pipeline"]
        causes = {v["cause"]: CertCause(v["cause"], v["invariants"], v["programs"],
                                        v["first"]["index"]) for v in t["violations"]}
        by_family[family(lowering, pipeline)] = (pipeline, causes)
    if not by_family:
        raise SystemExit(f"certify_vs_fuzz: {path} has no target on {lowering}")
    return Certificate(path, lowering, cert["bound"]["max_ops"], spaces,
                       cert["enumeration"]["programs"], cert["enumeration"]["digest"], by_family)


@dataclass
class Scope:
    """Whether a fuzz root cause lies in the certificate's scope, and why."""

    inside: bool
    why: list[str]
    program: str | None = None  # the program in the space, when one is
    index: int | None = None  # the certificate's program it is, when one is
    listed: str = ""  # why whether it is listed is not known, when it is not


def _slugs(b: Bucket) -> set[str]:
    return {b.signature.slug(), *(m.signature.slug() for m in b.merged)}


def _candidates(group: list[Bucket], programs: dict[str, Record]) -> list[str]:
    """The programs that show a cause (a bucket of it, or one merged into
    one), the reduced reproducers first."""
    texts: list[str] = []
    for b in group:
        for x in [b, *b.merged]:
            texts += [x.reduced] if x.reduced else []
            texts += [str(rec.get("program") or "") for rec in x.examples]
            texts += [str(programs[p]["program"]) for p in x.programs if p in programs]
    return list(dict.fromkeys(t for t in texts if t))


def scope_of(group: list[Bucket], cert: Certificate, programs: dict[str, Record]) -> Scope:
    fam = group[0].signature.family
    if fam not in cert.by_family:
        return Scope(False, [f"pipeline not certified ({fam})"])
    why: dict[str, int] = {}
    for text in _candidates(group, programs):
        read = read_program(text, cert.spaces)
        if read.steps is not None and len(read.steps) > cert.max_ops:
            why[f"{len(read.steps)} ops (bound {cert.max_ops})"] = 1
            continue
        if read.in_space and read.steps is not None:
            try:
                return Scope(True, [], text, cert.index_of(read.steps))
            except LookupError as e:
                return Scope(True, [], text, None, str(e))
        for w in read.outside:
            why[w] = why.get(w, 0) + 1
    return Scope(False, ["constructs: " + ", ".join(sorted(why, key=lambda w: -why[w]))])


def _first_program(b: Bucket, programs: dict[str, Record], lowering: str
                   ) -> tuple[str, str, list[str]]:
    """(id, pipeline, feature tags) of the first program that showed `b`."""
    pid = b.programs[0] if b.programs else str((b.example or {}).get("program_id") or "")
    rec = programs.get(pid)
    if rec is None:
        ex = b.example or {}
        return pid or "(a shrunk example)", str(ex.get("pipeline") or "?"), []
    result = (rec.get("results") or {}).get(lowering) or {}
    # Swarm tags say which switches the draw had on, not what the program holds.
    tags = [f for f in rec.get("features", []) if not f.startswith("tag.swarm.")]
    return pid, str(result.get("pipeline") or "?"), tags


def compare(results: Path, cert: Certificate, lowering: str) -> tuple[list[str], bool]:
    """The report's lines, and whether fuzz found an in-scope cause the
    certificate lacks."""
    records = read_records(results)
    programs = {str(r["id"]): r for r in records if r.get("kind") == "program"}
    certified = [r for r in programs.values()
                 if family(lowering, str(((r.get("results") or {}).get(lowering) or {})
                                         .get("pipeline") or "")) in cert.by_family]
    reads = [read_program(str(r["program"]), cert.spaces) for r in certified]
    inside = [rd.steps for rd in reads
              if rd.in_space and rd.steps is not None and len(rd.steps) <= cert.max_ops]
    try:
        listed = str(sum(1 for steps in inside if cert.index_of(steps) is not None))
    except LookupError:
        listed = "?"
    triage = triage_file(results, progress=lambda m: print(m, file=sys.stderr, flush=True))
    every = triage.all_buckets()
    # What fuzz saw of each (pipeline, slug), in any role: a root cause, a
    # knock-on, a limitation, a duplicate merged into another.
    seen: dict[tuple[str, str], str] = {}
    for b in every:
        for slug in _slugs(b):
            seen.setdefault((b.signature.family, slug), b.kind)
    # One root cause per (pipeline, slug): triage keeps signatures apart that
    # share a slug (another source pattern for one mechanism).
    groups: dict[tuple[str, str], list[Bucket]] = {}
    for b in triage.buckets:
        if b.kind == DEFECT:
            groups.setdefault((b.signature.family, b.signature.slug()), []).append(b)
    both: list[tuple[list[Bucket], list[str]]] = []
    fuzz_only: list[tuple[list[Bucket], list[str]]] = []
    for (fam, _), group in groups.items():
        causes = cert.by_family.get(fam, ("", {}))[1]
        hit = sorted(set().union(*(_slugs(b) for b in group)) & set(causes))
        (both if hit else fuzz_only).append((group, hit))
    lines = [f"fuzz programs: {len(programs)}; on a certified pipeline: {len(certified)}, of "
             f"which in the certificate's space (its constructs, at most {cert.max_ops} ops): "
             f"{len(inside)}, and among the programs it checked: {listed}",
             f"fuzz root causes: {len(triage.buckets)} ({triage.kind_counts()[DEFECT]} "
             "defects)", "", f"FOUND BY BOTH ({len(both)})"]
    for group, hit in both:
        b = group[0]
        pipe = cert.by_family[b.signature.family][0]
        n = sum(cert.by_family[b.signature.family][1][s].programs for s in hit)
        found = sum(x.program_count for x in group)
        lines.append(f"  {b.signature.slug()}  [{_short(pipe)}]  fuzz {found}, "
                     f"certificate {n} programs" + (f" (as {', '.join(hit)})"
                                                    if hit != [b.signature.slug()] else ""))
    lines += ["", f"ONLY BY FUZZ ({len(fuzz_only)})"]
    missed = False
    for group, _ in fuzz_only:
        b = group[0]
        scope = scope_of(group, cert, programs)
        pid, pipe, tags = _first_program(b, programs, lowering)
        found = sum(x.program_count for x in group)
        lines.append(f"  {b.signature.slug()}  [{b.signature.family}]  {found} program"
                     + ("s" if found != 1 else ""))
        lines.append(f"    first program {pid}: pipeline {pipe}")
        lines.append(f"    features: {' '.join(tags) or '(none recorded)'}")
        if not scope.inside:
            lines.append(f"    outside the certificate: {'; '.join(scope.why)}")
            continue
        missed = True
        where = (f"it is the certificate's program #{scope.index}" if scope.index is not None
                 else f"whether the certificate checked it is not known: {scope.listed}"
                 if scope.listed else "the certificate did NOT check this program")
        lines.append(f"    IN SCOPE, certificate lacks it: {where}")
        if scope.index is not None:
            rec = cert.record(cert.by_family[b.signature.family][0], scope.index)
            if rec is not None:
                got = sorted({c["cause"] for c in rec["causes"]}) or ["no violation"]
                lines.append(f"    the certificate recorded for it: {rec['status']}, "
                             f"{', '.join(got)}")
        lines += ["      " + ln for ln in str(scope.program).strip().splitlines()]
    matched = {(fam, slug) for group, hit in both for fam in [group[0].signature.family]
               for slug in hit}
    only_cert = [(pipe, c, seen.get((fam, c.slug))) for fam, (pipe, causes)
                 in cert.by_family.items() for c in causes.values()
                 if (fam, c.slug) not in matched
                 and (c.kind == DEFECT or (fam, c.slug) not in seen)]
    lines += ["", f"ONLY BY THE CERTIFICATE ({len(only_cert)})"]
    for pipe, c, as_kind in sorted(only_cert, key=lambda x: (x[1].kind != DEFECT, x[0],
                                                              x[1].slug)):
        lines.append(f"  {c.slug}  [{_short(pipe)}]  {c.kind}, {c.programs} programs, "
                     f"first #{c.first}" + (f"; fuzz saw it only as a {as_kind}"
                                            if as_kind else ""))
    return lines, missed


def _short(pipeline: str) -> str:
    return "gpu-async-region" if "gpu-async-region" in pipeline else "gpu-to-llvm"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--certificate", type=Path, default=Path("/tmp/cert3/certificate.json"),
                    help="certificate.json of a `certify` run (default: %(default)s)")
    ap.add_argument("--lowering", default="mlir-opt-19",
                    help="lowering fuzzed and compared (default: %(default)s)")
    ap.add_argument("--seeds", type=int, default=3, help="campaigns, seeds 1..S (default: 3)")
    ap.add_argument("--programs", type=int, default=300,
                    help="--max-examples of each campaign (default: 300)")
    ap.add_argument("--out", type=Path, default=Path("out/certify_vs_fuzz"),
                    help="directory of the fuzz results.jsonl (default: %(default)s)")
    ap.add_argument("--results", type=Path, default=None,
                    help="compare this fuzz results file instead of running fuzz")
    ap.add_argument("--time-budget", type=float, default=None,
                    help="--time-budget of each campaign, to bound its wall time "
                         "(default: none)")
    args = ap.parse_args(argv)
    cert = load_certificate(args.certificate, args.lowering)
    print(f"certificate {args.certificate}: N = {cert.max_ops}, {cert.programs} programs, "
          f"pipelines on {args.lowering}: "
          + ", ".join(_short(p) for p, _ in cert.by_family.values()))
    results = args.results
    if results is None:
        args.out.mkdir(parents=True, exist_ok=True)
        results = args.out / "results.jsonl"
        results.unlink(missing_ok=True)
        seeds = list(range(1, args.seeds + 1))
        print(f"fuzz --lowering {args.lowering} --max-ops {cert.max_ops} --no-shrink "
              f"--max-examples {args.programs}, seeds {seeds}:")
        run_fuzz(args.lowering, seeds, args.programs, cert.max_ops, results, args.time_budget)
    lines, missed = compare(results, cert, args.lowering)
    print("\n".join(lines))
    print("\n" + ("FAIL: fuzz found a root cause in the certificate's scope that it lacks"
                  if missed else "OK: every fuzz defect in the certificate's scope is in it"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
