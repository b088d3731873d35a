"""The triage buckets as the report's template reads them."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from gpu_alloc_verify.verify.triage.buckets import Triage


def _fmt_time(t: float | None) -> str:
    if t is None:
        return ""
    try:
        when = datetime.fromtimestamp(t, tz=timezone.utc)  # noqa: UP017
    except (ValueError, OverflowError, OSError):
        return ""
    return when.strftime("%Y-%m-%d %H:%M UTC")


def bucket_views(triage: Triage | None, campaign: str | None,
                 lit_hrefs: dict[str, str] | None = None,
                 links: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per root cause, defects first (knock-ons in their parent's row);
    `campaign`'s count alongside
    the file's; `lit_hrefs`: bucket key -> lit test; `links`: violation id ->
    the link to its evidence."""
    if triage is None:
        return []
    rows = []
    for k, b in enumerate(triage.buckets, 1):
        sig = b.signature
        example = b.example or {}
        rows.append({
            "n": k, "key": b.key, "slug": sig.slug(), "invariant": sig.invariant,
            "source": sig.source, "calls": sig.calls, "family": sig.family,
            "lowerings": ", ".join(b.lowerings), "count": b.count,
            "here": b.per_campaign.get(campaign or "", 0),
            "first_seen": b.first_seen, "last_seen": b.last_seen,
            "first_time": _fmt_time(b.first_time), "last_time": _fmt_time(b.last_time),
            "new": b.new, "lit_href": (lit_hrefs or {}).get(b.key, ""),
            "violations": [(vid, (links or {}).get(vid, "")) for vid in b.violation_ids],
            "example_program": str(example.get("program") or "").rstrip(),
            "example_id": str(example.get("id") or example.get("program_id") or ""),
            "kind": b.kind, "pass": b.pass_name, "upstream": list(b.upstream),
            "knock_ons": [(k.signature.slug(), k.key, k.count) for k in b.knock_ons],
        })
    return rows
