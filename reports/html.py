"""The HTML report of a results file: one self-contained page.

`render_report(results, out_dir)` writes `out_dir/index.html` (inline CSS,
no script, no network) and the violations' lit reproducers under
`out_dir/lit/`.  The page shows, for the latest campaign of the file, the
lowering x invariant matrix of verdict counts, every violation with its
evidence (shrunk source, lowered IR with the offending calls marked, path or
schedule, runtime traces, the lit test), the generator's feature coverage,
and a trend table over every campaign the file holds.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from itertools import zip_longest
from pathlib import Path
from typing import Any

import jinja2

from reports.history import Campaign, History, load_history, load_results
from reports.lit_export import export_lit, loc_id, reproducer_text, write_lit_config
from verify.errors import UsageError
from verify.verdicts import INVARIANTS, VERDICTS

__all__ = ["load_results", "render_report", "render_html"]

TEMPLATES = Path(__file__).parent / "templates"
_CEX_SHOWN = ("path", "schedule", "trace_source", "trace_lowered")


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _fmt_time(t: float | None) -> str:
    if t is None:
        return "?"
    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _fmt_duration(s: float | None) -> str:
    if s is None:
        return ""
    s = int(round(s))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _anchor(value: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in value)


def _invariant_columns(by_lowering: dict[str, Any]) -> list[str]:
    cols = list(INVARIANTS)
    for row in by_lowering.values():
        if isinstance(row, dict):
            cols.extend(inv for inv in row if inv not in cols)
    return cols


def _matrix(camp: Campaign, first_violation: dict[tuple[str, str], str]) -> dict[str, Any]:
    summary = camp.summary()
    by_lowering = summary["by_lowering"]
    columns = _invariant_columns(by_lowering)
    statuses = camp.statuses()
    rows = []
    for spec in camp.lowerings or list(by_lowering):
        row = by_lowering.get(spec) if isinstance(by_lowering.get(spec), dict) else {}
        cells = []
        for inv in columns:
            counts = row.get(inv) if isinstance(row.get(inv), dict) else None
            if not counts or not any(counts.values()):
                cells.append({"invariant": inv, "empty": True, "counts": [], "violated": 0,
                              "css": "empty", "link": ""})
                continue
            shown = [(v, int(counts.get(v, 0))) for v in VERDICTS if counts.get(v)]
            shown += [(str(v), int(n)) for v, n in counts.items() if v not in VERDICTS and n]
            violated = int(counts.get("violated", 0))
            css = "violated" if violated else ("unknown" if counts.get("unknown") else "clean")
            cells.append({"invariant": inv, "empty": False, "counts": shown,
                          "violated": violated, "css": css,
                          "link": first_violation.get((spec, inv), "")})
        status = statuses.get(spec, {})
        rows.append({"lowering": spec, "cells": cells,
                     "status": sorted(status.items(), key=lambda kv: -kv[1])})
    return {"columns": columns, "rows": rows}


def _lowered_lines(lowered: str, marked: set[str]) -> list[dict[str, Any]]:
    lines = []
    for n, text in enumerate(lowered.splitlines(), 1):
        mark = ""
        if marked and loc_id(text) in marked and not text.lstrip().startswith("}"):
            strong = ("llvm.call" in text or "gpu." in text
                      or "unrealized_conversion_cast" in text)
            mark = "call" if strong else "op"
        lines.append({"n": n, "text": text, "mark": mark})
    return lines


def _violation_view(v: dict[str, Any], index: int, lit_href: str) -> dict[str, Any]:
    cex = v.get("counterexample") if isinstance(v.get("counterexample"), dict) else {}
    marked = {str(m) for m in v.get("marked_calls") or [] if m}
    if not marked and cex.get("source_op"):
        marked = {str(cex["source_op"])}
    path = cex.get("path") if isinstance(cex.get("path"), dict) else {}
    schedule = cex.get("schedule") if isinstance(cex.get("schedule"), list) else []
    trace_src = cex.get("trace_source") if isinstance(cex.get("trace_source"), list) else []
    trace_low = cex.get("trace_lowered") if isinstance(cex.get("trace_lowered"), list) else []
    traces = [(_text(a) if a is not None else "", _text(b) if b is not None else "")
              for a, b in zip_longest(trace_src, trace_low)]
    try:
        repro, repro_error = reproducer_text(v), ""
    except Exception as e:  # one odd record must not cost the whole report
        repro, repro_error = "", f"{type(e).__name__}: {e}"
    invariant = str(v.get("invariant", "?"))
    program = str(v.get("program") or "")
    return {
        "id": str(v.get("id") or f"violation-{index}"),
        "anchor": "v-" + _anchor(str(v.get("id") or f"violation-{index}")),
        "invariant": invariant,
        "description": INVARIANTS.get(invariant, "(not an invariant this harness defines)"),
        "lowering": str(v.get("lowering", "?")),
        "pipeline": str(v.get("pipeline") or ""),
        "detail": str(v.get("detail", "")),
        "program": [{"text": ln, "mark": bool(marked) and loc_id(ln) in marked}
                    for ln in program.splitlines()],
        "lowered": _lowered_lines(str(v.get("lowered") or ""), marked),
        "marked": sorted(marked),
        "path": [(str(k), _text(val).lower() if isinstance(val, bool) else _text(val))
                 for k, val in path.items()],
        "schedule": [_text(s) for s in schedule],
        "traces": traces,
        "extra": [(str(k), _text(val)) for k, val in cex.items()
                  if k not in _CEX_SHOWN and val not in (None, "", [], {})],
        "reproducer": repro,
        "reproducer_error": repro_error,
        "lit_href": lit_href,
    }


def _coverage(camp: Campaign, known: Sequence[str] | None) -> dict[str, Any]:
    cov = camp.coverage()
    names = list(known or [])
    names += sorted(f for f in cov if f not in names)
    examples = camp.summary()["examples"] or 0
    top = max([*cov.values(), 1])
    rows = [{"feature": f, "count": cov.get(f, 0), "known": f in (known or ()),
             "pct": (100.0 * cov.get(f, 0) / examples) if examples else 0.0,
             "bar": round(100.0 * cov.get(f, 0) / top)} for f in names]
    return {"rows": rows, "unreached": sum(1 for r in rows if r["count"] == 0)}


def _trend(campaigns: Iterable[Campaign], latest: Campaign) -> list[dict[str, Any]]:
    rows = []
    for c in campaigns:
        summary = c.summary()
        rows.append({
            "id": c.id, "time": _fmt_time(c.time), "duration": _fmt_duration(c.duration),
            "complete": c.complete, "examples": summary["examples"],
            "violations": len(c.violations()), "violated_verdicts": c.violated_count(),
            "lowerings": ", ".join(c.lowerings), "seed": c.setting("seed"),
            "latest": c is latest,
        })
    return rows


def render_html(history: History, *, source_name: str = "",
                known_features: Sequence[str] | None = None,
                campaign: str | None = None,
                lit_hrefs: dict[str, str] | None = None) -> str:
    """The report page as a string (see render_report)."""
    camp = history.get(campaign) if campaign else history.latest
    if campaign and camp is None:
        raise UsageError(f"no campaign '{campaign}' in {source_name or 'the results'}; "
                         f"campaigns: {', '.join(c.id for c in history.campaigns) or 'none'}")
    context: dict[str, Any] = {"source_name": source_name, "skipped": history.skipped_lines,
                               "campaign": None, "trend": []}
    if camp is not None:
        views = [_violation_view(v, k, (lit_hrefs or {}).get(str(v.get("id")), ""))
                 for k, v in enumerate(camp.violations())]
        first: dict[tuple[str, str], str] = {}
        for view in views:
            first.setdefault((view["lowering"], view["invariant"]), view["anchor"])
        context.update(
            campaign={
                "id": camp.id, "time": _fmt_time(camp.time),
                "duration": _fmt_duration(camp.duration), "complete": camp.complete,
                "examples": camp.summary()["examples"], "lowerings": camp.lowerings,
                "seed": camp.setting("seed"), "runtime": camp.setting("runtime"),
                "pipeline": camp.setting("pipeline"),
                "config": json.dumps(camp.setting("config"), sort_keys=True)
                if camp.setting("config") else "",
            },
            matrix=_matrix(camp, first),
            violations=views,
            coverage=_coverage(camp, known_features),
            trend=_trend(history.campaigns, camp),
        )
    return _env().get_template("report.html").render(**context)


def render_report(results_path: str | Path, out_dir: str | Path, *,
                  known_features: Sequence[str] | None = None,
                  campaign: str | None = None,
                  mlir_opt: str | None = None) -> Path:
    """Write out_dir/index.html (and out_dir/lit/*.mlir); return the page's path.

    `known_features`: the generator's feature list, so features no program
    reached show as 0.  `mlir_opt`: when given, out_dir/lit/lit.cfg.py is
    written too, so `lit out_dir/lit` reruns every reproducer with that tool.
    """
    results = Path(results_path)
    if not results.is_file():
        raise UsageError(f"results file '{results}' does not exist; "
                         "run `gpu-alloc-verify fuzz --report DIR` first")
    history = load_history(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    camp = history.get(campaign) if campaign else history.latest
    hrefs: dict[str, str] = {}
    if camp is not None:
        for v in camp.violations():
            try:
                path = export_lit(v, out / "lit")
            except Exception:  # noqa: BLE001 - the page shows the error instead
                continue
            hrefs[str(v.get("id"))] = f"lit/{path.name}"
        if hrefs and mlir_opt:
            write_lit_config(out / "lit", mlir_opt)
    page = out / "index.html"
    page.write_text(render_html(history, source_name=results.name,
                                known_features=known_features, campaign=campaign,
                                lit_hrefs=hrefs), encoding="utf-8")
    return page
