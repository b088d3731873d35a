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
import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from itertools import zip_longest
from pathlib import Path
from typing import Any

import jinja2

from reports.history import Campaign, History, load_history, load_results
from reports.irtext import counterexample, loc_id, marked_ops
from reports.lit_export import export_lit, reproducer_text, write_lit_config
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
    try:
        when = datetime.fromtimestamp(t, tz=timezone.utc)  # type: ignore[arg-type] # noqa: UP017
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"
    return when.strftime("%Y-%m-%d %H:%M:%S UTC")


def _as_dict(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _as_list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def _int(n: Any) -> int:
    try:
        return int(n)
    except (TypeError, ValueError, OverflowError):
        return 0


def _fmt_duration(s: float | None) -> str:
    if s is None or not 0 <= s < 1e9:
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


def _unknown_from_programs(camp: Campaign) -> dict[tuple[str, str, str], int]:
    """(lowering, invariant, reason) -> programs, from the program lines' reasons."""
    seen: dict[tuple[str, str, str], int] = {}
    for prog in camp.programs:
        for spec, result in _as_dict(prog.get("results")).items():
            for inv, reason in _as_dict(_as_dict(result).get("reasons")).items():
                key = (str(spec), str(inv), _first_line(reason))
                seen[key] = seen.get(key, 0) + 1
    return seen


def _unknown_from_summary(camp: Campaign) -> dict[tuple[str, str, str], int]:
    """The same, from the campaign-end summary's `unknown` list (no program lines)."""
    end = _as_dict(_as_dict(camp.end).get("summary"))
    seen: dict[tuple[str, str, str], int] = {}
    for u in _as_list(end.get("unknown")):
        u = _as_dict(u)
        key = (str(u.get("lowering", "?")), str(u.get("invariant", "?")),
               _first_line(u.get("reason")))
        seen[key] = seen.get(key, 0) + max(1, _int(u.get("count")))
    return seen


def _first_line(reason: Any) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    return text.splitlines()[0][:300] if text else "solver gave up"


def _unknown(camp: Campaign) -> list[dict[str, Any]]:
    """Every distinct reason a verdict of the campaign was unknown, most frequent first."""
    seen = _unknown_from_programs(camp) or _unknown_from_summary(camp)
    rows = [{"lowering": spec, "invariant": inv, "reason": reason, "count": n}
            for (spec, inv, reason), n in seen.items()]
    return sorted(rows, key=lambda r: (-r["count"], r["lowering"], r["invariant"]))


def _unknown_count(summary: dict[str, Any]) -> int:
    return sum(_int(_as_dict(c).get("unknown"))
               for c in _as_dict(summary.get("by_invariant")).values())


def _cell_reasons(unknown: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], list[str]] = {}
    for u in unknown:
        out.setdefault((u["lowering"], u["invariant"]), []).append(u["reason"])
    return {k: "; ".join(v) for k, v in out.items()}


def _matrix(camp: Campaign, first_violation: dict[tuple[str, str], str],
            reasons: dict[tuple[str, str], str]) -> dict[str, Any]:
    summary = camp.summary()
    by_lowering = summary["by_lowering"]
    columns = _invariant_columns(by_lowering)
    statuses = camp.statuses()
    rows: list[dict[str, Any]] = []
    for spec in camp.lowerings or list(by_lowering):
        row = by_lowering.get(spec) if isinstance(by_lowering.get(spec), dict) else {}
        cells: list[dict[str, Any]] = []
        for inv in columns:
            counts = row.get(inv) if isinstance(row.get(inv), dict) else None
            if not counts or not any(_int(n) for n in counts.values()):
                cells.append({"invariant": inv, "empty": True, "counts": [], "violated": 0,
                              "css": "empty", "link": "", "reason": ""})
                continue
            shown: list[tuple[str, int]] = [
                (v, _int(counts.get(v))) for v in VERDICTS if _int(counts.get(v))]
            shown += [(str(v), _int(n)) for v, n in counts.items()
                      if v not in VERDICTS and _int(n)]
            violated = _int(counts.get("violated"))
            unknown = _int(counts.get("unknown"))
            css = "violated" if violated else ("unknown" if unknown else "clean")
            cells.append({"invariant": inv, "empty": False, "counts": shown,
                          "violated": violated, "css": css,
                          "link": first_violation.get((spec, inv), ""),
                          "reason": reasons.get((spec, inv), "") if unknown else ""})
        status: dict[str, int] = statuses.get(spec, {})
        rows.append({"lowering": spec, "cells": cells,
                     "status": sorted(status.items(), key=lambda kv: (-kv[1], kv[0]))})
    return {"columns": columns, "rows": rows}


_OP_NAME = re.compile(r'(?:^\s*|= )"?([a-z_]+\.[\w.]+)"?[ (]')
_CALLEE = re.compile(r"(?:callee = |llvm\.call )@([\w$.]+)")


def _lowered_lines(lowered: str, marked: set[str]) -> list[dict[str, Any]]:
    """Lines of the lowered IR; those of a marked source op carry a mark and a summary.

    "call": a runtime call, an unconverted gpu op or cast of a marked op (the
    offending code); "op": other IR from the same op (sizes, descriptors).
    """
    lines = []
    for n, text in enumerate(lowered.splitlines(), 1):
        mark, summary = "", ""
        op_id = loc_id(text)
        if marked and op_id in marked and not text.lstrip().startswith("}"):
            strong = ("llvm.call" in text or "gpu." in text
                      or "unrealized_conversion_cast" in text)
            mark = "call" if strong else "op"
            callee, name = _CALLEE.search(text), _OP_NAME.search(text)
            summary = (f"llvm.call @{callee.group(1)}" if callee
                       else name.group(1) if name else text.strip()[:60])
        lines.append({"n": n, "text": text, "mark": mark, "op": op_id or "",
                      "summary": summary})
    return lines


def _violation_view(v: dict[str, Any], index: int, lit_href: str) -> dict[str, Any]:
    cex = counterexample(v)
    marked = marked_ops(v)
    path = _as_dict(cex.get("path"))
    schedule = _as_list(cex.get("schedule"))
    trace_src = _as_list(cex.get("trace_source"))
    trace_low = _as_list(cex.get("trace_lowered"))
    traces = [(_text(a) if a is not None else "", _text(b) if b is not None else "")
              for a, b in zip_longest(trace_src, trace_low)]
    try:
        repro, repro_error = reproducer_text(v), ""
    except Exception as e:  # one odd record must not cost the whole report
        repro, repro_error = "", f"{type(e).__name__}: {e}"
    invariant = str(v.get("invariant", "?"))
    program = str(v.get("program") or "")
    lowered = _lowered_lines(str(v.get("lowered") or ""), marked)
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
        "lowered": lowered,
        "offending": [ln for ln in lowered if ln["mark"] == "call"],
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
    rows: list[dict[str, Any]] = []
    for c in campaigns:
        summary = c.summary()
        rows.append({
            "id": c.id, "time": _fmt_time(c.time), "duration": _fmt_duration(c.duration),
            "complete": c.complete, "examples": summary["examples"],
            "violations": len(c.violations()), "violated_verdicts": c.violated_count(),
            "unknown_verdicts": _unknown_count(summary),
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
                               "campaign": None, "trend": [], "unknown": [],
                               "unknown_verdicts": 0}
    if camp is not None:
        views = [_violation_view(v, k, (lit_hrefs or {}).get(str(v.get("id")), ""))
                 for k, v in enumerate(camp.violations())]
        first: dict[tuple[str, str], str] = {}
        for view in views:
            first.setdefault((view["lowering"], view["invariant"]), view["anchor"])
        unknown = _unknown(camp)
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
            matrix=_matrix(camp, first, _cell_reasons(unknown)),
            violations=views,
            unknown=unknown,
            unknown_verdicts=_unknown_count(camp.summary()),
            coverage=_coverage(camp, known_features),
            trend=_trend(history.campaigns, camp),
        )
    return _env().get_template("report.html").render(**context)


def _generator_features() -> Sequence[str]:
    try:
        from generators.features import KNOWN_FEATURES
    except Exception:  # noqa: BLE001 - a report without the list still renders
        return ()
    return list(KNOWN_FEATURES)


def render_report(results_path: str | Path, out_dir: str | Path, *,
                  known_features: Sequence[str] | None = None,
                  campaign: str | None = None,
                  mlir_opt: str | None = None) -> Path:
    """Write out_dir/index.html and out_dir/lit/CAMPAIGN/*.mlir; return the page's path.

    `known_features`: the generator's feature list, so features no program
    reached show as 0 (default: `generators.features.KNOWN_FEATURES` when
    importable; pass `()` for none).  `mlir_opt`: when given,
    out_dir/lit/CAMPAIGN/lit.cfg.py is written too, so `lit` on that folder
    reruns every reproducer with that tool.
    """
    results = Path(results_path)
    if not results.is_file():
        raise UsageError(f"results file '{results}' does not exist; "
                         "run `gpu-alloc-verify fuzz --report DIR` first")
    if known_features is None:
        known_features = _generator_features()
    history = load_history(results)
    camp = history.get(campaign) if campaign else history.latest
    if campaign and camp is None:
        render_html(history, source_name=results.name, campaign=campaign)  # raises UsageError
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    hrefs: dict[str, str] = {}
    if camp is not None:
        lit_dir = out / "lit" / _anchor(camp.id)
        for v in camp.violations():
            try:
                path = export_lit(v, lit_dir)
            except Exception:  # noqa: BLE001 - the page shows the error instead
                continue
            hrefs[str(v.get("id"))] = path.relative_to(out).as_posix()
        if hrefs and mlir_opt:
            write_lit_config(lit_dir, mlir_opt)
    page = out / "index.html"
    page.write_text(render_html(history, source_name=results.name,
                                known_features=known_features, campaign=campaign,
                                lit_hrefs=hrefs), encoding="utf-8")
    return page
