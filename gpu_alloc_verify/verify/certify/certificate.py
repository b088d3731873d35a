"""The certificate: what a bounded-exhaustive run proves, as JSON (schema:
`verify/schema/certificate.schema.json`).

It names the bound and the feature set, the enumeration (programs per size,
how many symmetry removed, a digest of the canonical forms so two runs can
be compared), the tool behind each lowering, and per target the verdict
counts per invariant, every violation under its root cause (with the first
program that shows it) and every `unknown` with its reason.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.certify.enumeration import Enumeration
from gpu_alloc_verify.verify.certify.judge import Record, Target

SCHEMA = "certificate.schema.json"


@cache
def tool_of(lowering: str) -> str:
    """The tool and version behind a lowering spec, in words."""
    if lowering.startswith("xdsl:"):
        from importlib.metadata import version

        return f"in-process xDSL re-creation {lowering} (xdsl {version('xdsl')})"
    from gpu_alloc_verify.verify.lowerings.registry import resolve

    path = getattr(resolve(lowering), "path", None)
    if not path:
        return lowering
    from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError
    from gpu_alloc_verify.verify.tools.runner import ToolTimedOut, run_tool

    try:
        out = run_tool([path, "--version"], timeout_s=30)
    except (GpuAllocVerifyError, ToolTimedOut):
        return str(path)
    said = " ".join(line.strip() for line in out.stdout.splitlines()
                    if "version" in line.lower())
    return f"{path}: {said}" if said else str(path)


def _target_section(target: Target, records: list[Record]) -> dict[str, Any]:
    verdicts: dict[str, Counter[str]] = {}
    statuses: Counter[str] = Counter()
    causes: dict[str, dict[str, Any]] = {}
    unknowns: dict[tuple[str, str], dict[str, Any]] = {}
    for rec in records:
        statuses[rec["status"]] += 1
        for inv, v in rec["verdicts"].items():
            verdicts.setdefault(inv, Counter())[v] += 1
        for c in rec["causes"]:
            entry = causes.setdefault(c["cause"], {
                "cause": c["cause"], "invariants": [], "programs": 0,
                "first": {"index": rec["index"], "program": rec["program"]}})
            if c["invariant"] not in entry["invariants"]:
                entry["invariants"].append(c["invariant"])
        for c in {c["cause"] for c in rec["causes"]}:
            causes[c]["programs"] += 1
        for inv, reason in rec["reasons"].items():
            u = unknowns.setdefault((inv, reason), {"invariant": inv, "reason": reason,
                                                    "programs": 0, "first": rec["index"]})
            u["programs"] += 1
    return {
        "target": target.to_json(), "name": target.name, "tool": tool_of(target.lowering),
        "programs": len(records), "statuses": dict(sorted(statuses.items())),
        "verdicts": {inv: dict(sorted(c.items())) for inv, c in sorted(verdicts.items())},
        "violations": sorted(causes.values(), key=lambda c: (-c["programs"], c["cause"])),
        "unknowns": sorted(unknowns.values(), key=lambda u: (-u["programs"], u["reason"])),
    }


def build_certificate(enum: Enumeration, targets: Sequence[Target], records: list[Record],
                      elapsed_s: float | None = None) -> dict[str, Any]:
    by_target: dict[str, list[Record]] = {t.name: [] for t in targets}
    for rec in records:
        by_target.setdefault(Target(**rec["target"]).name, []).append(rec)
    complete = all(len(by_target[t.name]) == len(enum.programs) for t in targets)
    return {
        "certificate": "gpu-alloc-verify bounded-exhaustive",
        "bound": {"max_ops": enum.max_ops},
        "feature_set": enum.feature_set(),
        "enumeration": {
            "programs": len(enum.programs), "raw_sequences": enum.raw,
            "removed_by_symmetry": enum.removed_by_symmetry,
            "per_size": [{"ops": n, "raw": r, "canonical": c} for n, r, c in enum.per_size],
            "digest": enum.digest,
            "symmetry": "values renamed by first use; op order kept (gpu-async-region "
                        "reads the order of independent async ops)",
        },
        "complete": complete,
        "elapsed_s": elapsed_s,
        "targets": [_target_section(t, by_target[t.name]) for t in targets],
    }


def schema() -> dict[str, Any]:
    text = (Path(__file__).resolve().parents[1] / "schema" / SCHEMA).read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def validate(cert: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError when `cert` does not fit the schema."""
    import jsonschema

    jsonschema.validate(cert, schema())


def comparable(cert: dict[str, Any]) -> dict[str, Any]:
    """What two runs of one bound must agree on: the certificate without its
    timing (what a resumed run and an uninterrupted one share)."""
    out = dict(cert)
    out.pop("elapsed_s", None)
    return out
