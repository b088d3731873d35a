"""What `check` says about one file: its JSON summary (the shape of fuzz's,
verify/schema/summary.schema.json), what --baseline leaves of it, its text
(each violation first as a compiler's diagnostic, `reports.diagnostics`),
the command that reproduces a violation."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

from gpu_alloc_verify.reports.console import columns
from gpu_alloc_verify.reports.counts import run_counts
from gpu_alloc_verify.reports.diagnostics import diagnostic_lines, position
from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.verify.campaign.summary_text import baseline_lines, wrap
from gpu_alloc_verify.verify.cli.status import SCHEMA_VERSION
from gpu_alloc_verify.verify.cli.summary import print_unknown
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, Tally
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.model.baseline import Counts, worse
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.verdicts import Verdict


def check_violation_id(file: str, lowering: str, invariant: str) -> str:
    """Stable id of a `check` violation: the same file path (as given),
    lowering and invariant give the same id on every run and machine."""
    key = "\0".join((Path(file).as_posix(), lowering, invariant)).encode("utf-8")
    return "k" + hashlib.sha256(key).hexdigest()[:12]


def check_summary(text: str, row: dict[str, Judgement], file: str = "") -> dict[str, Any]:
    tally = Tally()
    tally.add(row)
    violations: list[dict[str, Any]] = [
        {"id": "", "invariant": v.invariant, "lowering": spec, "program": text,
         "lowered": j.lowered, "detail": v.detail,
         "counterexample": v.counterexample, "marked_calls": v.marked_calls,
         "confirmation": v.confirmation}
        for spec, j in row.items() for v in j.violations()]
    defects = [{"lowering": spec, **d.to_json()} for spec, j in row.items()
               for d in j.disagreements]
    unknown = [{"lowering": spec, "invariant": inv, "reason": r.reason or "solver gave up"}
               for spec, j in row.items() for inv, r in j.results.items()
               if r.verdict == Verdict.UNKNOWN]
    coverage = [{"lowering": spec, "invariant": inv, "coverage": r.coverage, "count": 1}
                for spec, j in row.items() for inv, r in j.results.items()
                if r.verdict == Verdict.HOLDS and r.coverage]
    seen: dict[str, int] = {}
    for v in violations:  # a second violation of one (lowering, invariant): id-2, id-3...
        base = check_violation_id(file, str(v["lowering"]), str(v["invariant"]))
        seen[base] = seen.get(base, 0) + 1
        v["id"] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    summary = {"schema_version": SCHEMA_VERSION, "command": "check", "seed": None,
               "examples": 1, "lowerings": list(row), "by_invariant": tally.by_invariant,
               "by_lowering": tally.by_lowering, "violations": violations, "unknown": unknown,
               "analysis_defects": defects, "oracle_coverage": coverage}
    summary["counts"] = run_counts(summary).to_json()  # as fuzz's (reports.counts)
    return summary


def apply_baseline(summary: dict[str, Any], row: dict[str, Judgement], spec: str,
                   base: Judgement | None) -> list[dict[str, Any]]:
    """`check --baseline SPEC`: what the lowering under test adds over the
    baseline on this file.  A violation is the baseline's too when the
    baseline breaks the same invariant at the same source op (or, with no op,
    in the same words); an unknown when the baseline's verdict is as bad
    (`verify.model.baseline.worse`, as fuzz's).  `violations` and `unknown`
    keep what is added; `baseline` counts added and shared verdicts in fuzz's
    shape (`base` None: the baseline could not read the file, every one is
    added).  Returns the violations the baseline shares."""
    theirs = {str(i): str(v) for i, v in base.verdicts().items()} if base is not None else {}
    seen = {(str(v.invariant), _identity(v.detail, v.counterexample))
            for v in (base.violations() if base is not None else [])}
    mine = summary["violations"]
    summary["violations"] = [
        v for v in mine
        if (str(v["invariant"]), _identity(v["detail"], v["counterexample"])) not in seen]
    summary["unknown"] = [u for u in summary["unknown"]
                          if worse(Verdict.UNKNOWN, theirs.get(str(u["invariant"])))]
    new = {(str(v["lowering"]), str(v["invariant"])) for v in summary["violations"]}
    added: Counts = {}
    shared: Counts = {}
    for lowering, j in row.items():
        for inv, r in j.results.items():
            if r.verdict == Verdict.VIOLATED:
                side = added if (lowering, str(inv)) in new else shared
            elif r.verdict == Verdict.UNKNOWN:
                side = added if worse(r.verdict, theirs.get(str(inv))) else shared
            else:
                continue
            side.setdefault(lowering, {})[str(inv)] = {str(r.verdict): 1}
    summary["baseline"] = {"lowering": spec, "programs": 1, "added": added, "shared": shared}
    summary["counts"] = run_counts(summary).to_json()
    return [v for v in mine if v not in summary["violations"]]


def _identity(detail: object, counterexample: object) -> str:
    """What a violation is about: its source op, else its words."""
    roles = Roles.from_counterexample(counterexample if isinstance(counterexample, dict) else {})
    return roles.source_op or " ".join(str(detail).split())


def _shared(summary: dict[str, Any], spec: str, inv: str, verdict: str) -> bool:
    """Whether the baseline shares this verdict (then it is not counted)."""
    shared = ((summary.get("baseline") or {}).get("shared") or {}).get(spec) or {}
    return bool((shared.get(inv) or {}).get(verdict))


def print_check(row: dict[str, Judgement], summary: dict[str, Any],
                args: argparse.Namespace | None = None,
                shared: list[dict[str, Any]] | None = None) -> None:
    """Each violation first, as a compiler's diagnostic (file:line:col:
    error: ..., then notes) followed by its listings; then the verdict table
    per lowering, the --baseline line (`shared`: the violations the baseline
    has too, named there), and the verdict line last (scripts read it)."""
    base = summary.get("baseline")
    name = args.file if args is not None else "program"
    for k, record in enumerate(summary["violations"]):
        repro = _check_repro(args, record) if args is not None else None
        print(("\n" if k else "") + render(record, repro=repro, program_name=name,
                                           head=diagnostic_lines(record, name, repro)),
              end="")
    if summary["violations"]:
        print()
    for spec, j in row.items():
        print(f"{spec}: lowering {j.status}")
        for note in j.notes:
            print(f"  ({note})")
        for inv, r in j.results.items():
            # After a colon, whole: a tool's own `file:line:col: error:` quoted
            # here reads as no diagnostic of ours to a problem matcher.
            extra = f": {r.reason.splitlines()[0]}" if r.reason and r.verdict in (
                Verdict.UNKNOWN, Verdict.REJECTED, Verdict.NOT_APPLICABLE) else ""
            if r.verdict == Verdict.HOLDS and r.coverage:
                extra = f" ({r.coverage})"
            if base and _shared(summary, spec, inv, r.verdict):
                extra = f"  (baseline {base['lowering']} too: not counted)"
            print(f"  {inv:28} {r.verdict}{extra}")
            for v in r.violations:
                print(f"    {v.detail}")
                if v.confirmation:
                    print(f"    ({v.confirmation})")
    counts = run_counts(summary)
    if counts.baseline is not None:  # the baseline's own, one line apart
        width = columns(sys.stdout)
        lines = baseline_lines(counts, width)
        if shared:  # at the places a user looks them up
            where = ", ".join(f"{v['invariant']} at {position(v, name) or name}"
                              for v in shared)
            lines += wrap(f"  its violations here too, not counted: {where}", width, 4)
        print("\n" + "\n".join(lines))
    for d in summary["analysis_defects"]:
        print(f"\nANALYSIS DEFECT ({d['kind']}) on {d['lowering']}, {d['invariant']}: the "
              f"analysis said {d['analysis']}; execution: {d['execution']}")
    print_unknown(summary["unknown"])
    from gpu_alloc_verify.verify.campaign.nothing_checked import nothing_checked

    unchecked = nothing_checked(row)  # then a "holds" total would read as green
    against = f" (over baseline {counts.baseline})" if counts.baseline else ""
    print(f"\n{len(row)} lowering(s): " + (f"nothing checked: {unchecked}" if unchecked
                                          else counts.verdict_text() + against))


def _check_repro(args: argparse.Namespace, record: dict[str, Any]) -> str:
    """The one command that reproduces a `check` violation."""
    import shlex

    from gpu_alloc_verify.verify.source.user_file import STDIN_NAME

    file = "-" if args.file == STDIN_NAME else args.file  # as typed: `check -`
    cmd = ["gpu-alloc-verify", "check", file, "--lowering", str(record["lowering"]),
           "--invariant", str(record["invariant"])]
    if args.pipeline != DEFAULT_PIPELINE:
        cmd += ["--pipeline", args.pipeline]
    if args.runtime != "cuda":
        cmd += ["--runtime", args.runtime]
    return shlex.join(cmd)
