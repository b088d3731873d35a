"""What `check` says about one file: its JSON summary (the shape of fuzz's,
verify/schema/summary.schema.json), its text, the command that reproduces a
violation."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any

from gpu_alloc_verify.reports.diagnostics import diagnostic_lines
from gpu_alloc_verify.reports.explain import render
from gpu_alloc_verify.verify.cli.status import SCHEMA_VERSION, verdict_line
from gpu_alloc_verify.verify.cli.summary import print_unknown
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, Tally
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
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
    return {"schema_version": SCHEMA_VERSION, "command": "check", "seed": None,
            "examples": 1, "lowerings": list(row), "by_invariant": tally.by_invariant,
            "by_lowering": tally.by_lowering, "violations": violations, "unknown": unknown,
            "analysis_defects": defects, "oracle_coverage": coverage}


def print_check(row: dict[str, Judgement], summary: dict[str, Any],
                args: argparse.Namespace | None = None) -> None:
    for spec, j in row.items():
        print(f"{spec}: lowering {j.status}")
        for note in j.notes:
            print(f"  ({note})")
        for inv, r in j.results.items():
            extra = f"  ({r.reason.splitlines()[0][:100]})" if r.reason and r.verdict in (
                Verdict.UNKNOWN, Verdict.REJECTED, Verdict.NOT_APPLICABLE) else ""
            if r.verdict == Verdict.HOLDS and r.coverage:
                extra = f" ({r.coverage})"
            print(f"  {inv:28} {r.verdict}{extra}")
            for v in r.violations:
                print(f"    {v.detail}")
                if v.confirmation:
                    print(f"    ({v.confirmation})")
    for d in summary["analysis_defects"]:
        print(f"\nANALYSIS DEFECT ({d['kind']}) on {d['lowering']}, {d['invariant']}: the "
              f"analysis said {d['analysis']}; execution: {d['execution']}")
    name = args.file if args is not None else "program"
    for record in summary["violations"]:
        repro = _check_repro(args, record) if args is not None else None
        # First as a compiler's diagnostic (file:line:col: error: ...), then the listings.
        print("\n" + render(record, repro=repro, program_name=name,
                            head=diagnostic_lines(record, name, repro)), end="")
    print_unknown(summary["unknown"])
    from gpu_alloc_verify.verify.campaign.nothing_checked import nothing_checked

    unchecked = nothing_checked(row)  # then a "holds" total would read as green
    print(f"\n{len(row)} lowering(s): " + (f"nothing checked: {unchecked}" if unchecked
                                          else verdict_line(summary["by_invariant"])))


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
