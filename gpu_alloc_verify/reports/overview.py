"""The summary at the top of a report page: how many defects of the
lowering, how many limitations (ops it declines, when triage says so),
how many unknown verdicts, and what to do next."""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.verify.triage.buckets import Triage


def overview(triage: Triage | None, violations: list[dict[str, Any]],
             unknown: list[dict[str, Any]], unknown_verdicts: int,
             results_path: str) -> dict[str, Any]:
    buckets = triage.buckets if triage is not None else []
    kinds: dict[str, int] = {}
    for b in buckets:
        kind = str(getattr(b, "kind", "") or "defect")
        kinds[kind] = kinds.get(kind, 0) + 1
    defects = kinds.get("defect", 0)
    limitations = kinds.get("limitation", 0)
    known = any(getattr(b, "kind", None) for b in buckets)  # an older triage has no kinds
    steps: list[str] = []
    if defects:
        steps.append("Fix the defects first: each root cause below has a proven lit test "
                     "(run them with lit -v lit/) and links to its shrunk counterexample.")
    if limitations:
        steps.append("Limitations are ops the lowering declines: support them, or generate "
                     "only what it lowers (fuzz --supported VERSION).")
    if unknown_verdicts:
        steps.append("Unknown verdicts are never counted as holds: open the reasons below "
                     "(each links to a program); raise --solver-timeout for solver timeouts.")
    if violations and results_path:
        steps.append(f"Reproduce one: gpu-alloc-verify replay {results_path} --id "
                     f"{violations[0]['id']}")
    if not steps:
        steps.append("Nothing to do: no violation and no unknown verdict. Run a longer "
                     "campaign (--max-examples) for more confidence.")
    return {"defects": defects, "limitations": limitations, "kinds_known": known,
            "other": sum(n for k, n in kinds.items() if k not in ("defect", "limitation")),
            "root_causes": len(buckets), "violations": len(violations),
            "unknown_verdicts": unknown_verdicts, "unknown_reasons": len(unknown),
            "steps": steps}
