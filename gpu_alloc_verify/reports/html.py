"""The HTML report of a results file: self-contained pages, one per campaign.

`render_report(results, out_dir, triage=..., lit=...)` writes
`out_dir/index.html` (the latest campaign), `out_dir/campaign-ID.html` for
every other campaign of the file, `out_dir/triage.json` (the root causes,
`verify/schema/triage.schema.json`) and, under `out_dir/lit/`, the lit test
per root cause with its `lit.cfg.py`.  It only renders: the triage and the
lit tests (made and proven by `repro` in a `staging_dir`) are its caller's
(`verify.campaign.report` makes the whole report).  Each page (inline CSS,
no script, no network) leads with the root causes of the results file
(triage), then shows, for its campaign, the lowering x invariant matrix of
verdict counts, every violation with its evidence (shrunk source, lowered IR
in custom form with the calls on the offending handle marked, path or
schedule, runtime traces, a differential counterexample as the two runs
side by side with the first difference marked, a link to the lit test of its
root cause), the unknown verdicts (each example program once, as plain
text), the generator's feature coverage, and the trend over every campaign
as an inline SVG chart.  Nothing is cut (cells wrap), and what grows with
the campaign stays small: a 1,000-program campaign's page is about 1 MB.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup

from gpu_alloc_verify.reports.atomic_dir import atomic_dir, link_tree
from gpu_alloc_verify.reports.history import Campaign, History, load_history, load_results
from gpu_alloc_verify.reports.overview import overview
from gpu_alloc_verify.reports.report_progress import ReportProgress
from gpu_alloc_verify.reports.trend_svg import Point, trend_svg
from gpu_alloc_verify.reports.triage_view import bucket_views
from gpu_alloc_verify.reports.violation_view import anchor, highlight, highlight_css, violation_view
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.verdicts import INVARIANTS, VERDICTS, Verdict
from gpu_alloc_verify.verify.triage.buckets import Triage

if TYPE_CHECKING:  # the tests are made and proven by `repro`; this only renders them
    from gpu_alloc_verify.repro.export import LitTest

__all__ = ["LitResults", "check_results", "load_results", "page_name", "render_html",
           "render_report", "staging_dir"]

TEMPLATES = Path(__file__).parent / "templates"


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


def _invariant_columns(by_lowering: dict[str, Any]) -> list[str]:
    cols: list[str] = list(INVARIANTS)
    for row in by_lowering.values():
        if isinstance(row, dict):
            cols.extend(inv for inv in row if inv not in cols)
    return cols


def _unknown_from_programs(camp: Campaign, first: dict[tuple[str, str, str], str] | None = None
                           ) -> dict[tuple[str, str, str], int]:
    """(lowering, invariant, reason) -> programs, from the program lines'
    reasons; `first` gets each key's first program text."""
    seen: dict[tuple[str, str, str], int] = {}
    for prog in camp.programs:
        for spec, result in _as_dict(prog.get("results")).items():
            for inv, reason in _as_dict(_as_dict(result).get("reasons")).items():
                key = (str(spec), str(inv), _first_line(reason))
                seen[key] = seen.get(key, 0) + 1
                if first is not None and isinstance(prog.get("program"), str):
                    first.setdefault(key, prog["program"])
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
    # whole: a reason cut short reads like another one (the cell wraps)
    return text.splitlines()[0] if text else "solver gave up"


def _unknown(camp: Campaign) -> list[dict[str, Any]]:
    """Every distinct reason a verdict of the campaign was unknown, most frequent first."""
    programs: dict[tuple[str, str, str], str] = {}
    seen = _unknown_from_programs(camp, programs) or _unknown_from_summary(camp)
    rows: list[dict[str, Any]] = [{"lowering": spec, "invariant": inv, "reason": reason, "count": n,
             "program": programs.get((spec, inv, reason), "")}
            for (spec, inv, reason), n in seen.items()]
    rows.sort(key=lambda r: (-r["count"], r["lowering"], r["invariant"]))
    anchors: dict[str, str] = {}
    for r in rows:  # each row links to its first program, each program shown once
        if r["program"]:
            r["anchor"] = anchors.setdefault(r["program"], f"u-{len(anchors)}")
        else:
            r["anchor"] = ""
    return rows


def _unknown_programs(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The distinct example programs of the unknown reasons, in the rows'
    order, as plain text: a program is often the first of several reasons,
    and highlighting would make each several times its size (the report of
    a large campaign must stay small)."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["anchor"]:
            entry = out.setdefault(r["anchor"], {
                "anchor": r["anchor"], "lines": str(r["program"]).splitlines(),
                "invariants": [], "count": 0})
            if r["invariant"] not in entry["invariants"]:
                entry["invariants"].append(r["invariant"])
            entry["count"] += 1
    return list(out.values())


def _setting_value(value: Any) -> str:
    """A setting as its config file writes it: true/false, a, b, c."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(_setting_value(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k} = {_setting_value(v)}" for k, v in sorted(value.items()))
    return str(value)


def _settings_rows(config: Any) -> list[tuple[str, str]]:
    """Generator settings as (name, value) rows of a table, not a repr."""
    if not isinstance(config, dict):
        return [("config", str(config))] if config else []
    return [(str(k), _setting_value(v)) for k, v in sorted(config.items(), key=lambda kv:
                                                           str(kv[0])) if v not in (None, "")]


def _unknown_count(summary: dict[str, Any]) -> int:
    return sum(_int(_as_dict(c).get(Verdict.UNKNOWN))
               for c in _as_dict(summary.get("by_invariant")).values())


def _cell_reasons(unknown: list[dict[str, Any]]) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], list[str]] = {}
    for u in unknown:
        out.setdefault((u["lowering"], u["invariant"]), []).append(u["reason"])
    # a tooltip names the most frequent few, whole; the table below has them all
    return {k: "; ".join(v[:_TITLE_REASONS]) + (
        f"; and {len(v) - _TITLE_REASONS} more" if len(v) > _TITLE_REASONS else "")
        for k, v in out.items()}


_TITLE_REASONS = 3


def _oracle_coverage(camp: Campaign) -> dict[tuple[str, str], list[tuple[str, int]]]:
    """(lowering, invariant) -> [("exhaustive", n), ("sampled", m)]: how much
    the holds verdicts of a testing oracle covered, from the program lines."""
    seen: dict[tuple[str, str], dict[str, int]] = {}
    for prog in camp.programs:
        for spec, result in _as_dict(prog.get("results")).items():
            for inv, cov in _as_dict(_as_dict(result).get("coverage")).items():
                kind = str(cov).split(":")[0].split(" ")[0]
                per = seen.setdefault((str(spec), str(inv)), {})
                per[kind] = per.get(kind, 0) + 1
    return {k: sorted(v.items()) for k, v in seen.items()}


def _matrix(camp: Campaign, first_violation: dict[tuple[str, str], str],
            reasons: dict[tuple[str, str], str]) -> dict[str, Any]:
    summary = camp.summary()
    coverage = _oracle_coverage(camp)
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
                              "css": "empty", "link": "", "reason": "", "coverage": []})
                continue
            shown: list[tuple[str, int]] = [
                (v, _int(counts.get(v))) for v in VERDICTS if _int(counts.get(v))]
            shown += [(str(v), _int(n)) for v, n in counts.items()
                      if v not in VERDICTS and _int(n)]
            violated = _int(counts.get(Verdict.VIOLATED))
            unknown = _int(counts.get(Verdict.UNKNOWN))
            # the cell's class: its worst verdict
            css = Verdict.VIOLATED if violated else (Verdict.UNKNOWN if unknown else "clean")
            cells.append({"invariant": inv, "empty": False, "counts": shown,
                          "violated": violated, "css": css,
                          "link": first_violation.get((spec, inv), ""),
                          "reason": reasons.get((spec, inv), "") if unknown else "",
                          "coverage": coverage.get((spec, inv), [])})
        status: dict[str, int] = statuses.get(spec, {})
        rows.append({"lowering": spec, "cells": cells,
                     "status": sorted(status.items(), key=lambda kv: (-kv[1], kv[0]))})
    return {"columns": columns, "rows": rows}


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


def _coverage_pct(camp: Campaign, known: Sequence[str] | None) -> float | None:
    cov = camp.coverage()
    names = set(known or []) | set(cov)
    if not names:
        return None
    return 100.0 * sum(1 for f in names if cov.get(f, 0) > 0) / len(names)


def _trend(campaigns: Iterable[Campaign], shown: Campaign, pages: dict[str, str],
           known: Sequence[str] | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for c in campaigns:
        summary = c.summary()
        rows.append({
            "id": c.id, "time": _fmt_time(c.time), "duration": _fmt_duration(c.duration),
            "complete": c.complete, "examples": summary["examples"],
            "violations": len(c.violations()), "violated_verdicts": c.violated_count(),
            "unknown_verdicts": _unknown_count(summary),
            "lowerings": ", ".join(c.lowerings), "seed": c.setting("seed"),
            "latest": c is shown, "href": pages.get(c.id, ""),
            "coverage": _coverage_pct(c, known),
        })
    return rows


def _chart(trend: list[dict[str, Any]]) -> Markup:
    points = [Point(t["id"], t["time"][5:16] if t["time"] != "?" else str(k + 1),
                    _int(t["violated_verdicts"]), t["coverage"], t["href"])
              for k, t in enumerate(trend)]
    return Markup(trend_svg(points))


def _violation_links(triage: Triage | None, shown: Campaign, pages: dict[str, str]
                     ) -> dict[str, str]:
    """Violation id -> its evidence: an anchor on this page or on its campaign's page."""
    out: dict[str, str] = {}
    for b in triage.buckets if triage else []:
        for vid in b.violation_ids:
            camp = vid.rsplit("-v", 1)[0]
            page = "" if camp == shown.id else pages.get(camp, "")
            if page or camp == shown.id:
                out[vid] = f"{page}#v-{anchor(vid)}"
    return out


def page_name(history: History, campaign_id: str) -> str:
    """index.html for the latest campaign, campaign-ID.html for the others."""
    latest = history.latest
    return "index.html" if latest is not None and latest.id == campaign_id else \
        f"campaign-{anchor(campaign_id)}.html"


def render_html(history: History, *, source_name: str = "",
                known_features: Sequence[str] | None = None,
                campaign: str | None = None,
                triage: Triage | None = None,
                lit_tests: dict[str, dict[str, Any]] | None = None,
                results_path: str = "", notes: Sequence[str] = ()) -> str:
    """The page of one campaign (default: the latest) as a string (see render_report).

    `lit_tests`: bucket key -> {"href", "summary", "text", "written", "reason"}."""
    camp = history.get(campaign) if campaign else history.latest
    if campaign and camp is None:
        raise UsageError(f"no campaign '{campaign}' in {source_name or 'the results'}; "
                         f"campaigns: {', '.join(c.id for c in history.campaigns) or 'none'}")
    pages = {c.id: page_name(history, c.id) for c in history.campaigns}
    context: dict[str, Any] = {"source_name": source_name, "skipped": history.skipped_lines,
                               "campaign": None, "trend": [], "unknown": [],
                               "unknown_verdicts": 0, "buckets": [], "triage": None,
                               "notes": list(notes), "chart": Markup(""),
                               "overview": None,
                               "highlight_css": Markup(highlight_css())}
    if camp is not None:
        by_violation = {vid: b.key for b in (triage.buckets if triage else [])
                        for vid in b.violation_ids}
        views = []
        for k, v in enumerate(camp.violations()):
            key = by_violation.get(str(v.get("id")), "")
            lit = (lit_tests or {}).get(key)
            lit = dict(lit, key=key) if lit else None  # its text is shown once, by its key
            vid = str(v.get("id") or "")
            replay = f"gpu-alloc-verify replay {results_path} --id {vid}" \
                if results_path and vid else ""
            views.append(violation_view(dict(v, replay=replay), k, lit))
        first: dict[tuple[str, str], str] = {}
        for view in views:
            first.setdefault((view["lowering"], view["invariant"]), view["anchor"])
        unknown = _unknown(camp)
        trend = _trend(history.campaigns, camp, pages, known_features)
        hrefs = {key: t.get("href", "") for key, t in (lit_tests or {}).items()}
        context.update(
            campaign={
                "id": camp.id, "time": _fmt_time(camp.time),
                "duration": _fmt_duration(camp.duration), "complete": camp.complete,
                "examples": camp.summary()["examples"], "lowerings": camp.lowerings,
                "seed": camp.setting("seed"), "runtime": camp.setting("runtime"),
                "pipeline": camp.setting("pipeline"),
                "config": _settings_rows(camp.setting("config")),
                "latest": camp is history.latest,
            },
            matrix=_matrix(camp, first, _cell_reasons(unknown)),
            violations=views,
            unknown=unknown,
            unknown_programs=_unknown_programs(unknown),
            unknown_verdicts=_unknown_count(camp.summary()),
            coverage=_coverage(camp, known_features),
            trend=trend,
            chart=_chart(trend),
            triage=triage,
            buckets=bucket_views(triage, camp.id, hrefs, _violation_links(triage, camp, pages)),
            lit_tests=lit_tests or {},
            overview=overview(triage, views, unknown, _unknown_count(camp.summary()),
                              results_path),
        )
    return _env().get_template("report.html").render(**context)


def _generator_features() -> Sequence[str]:
    try:
        from gpu_alloc_verify.generators.features import KNOWN_FEATURES
    except Exception:  # noqa: BLE001 - a report without the list still renders
        return ()
    return list(KNOWN_FEATURES)


@dataclass(frozen=True)
class LitResults:
    """The lit tests `repro` made and proved for a report: `tests`, one per
    root cause in the buckets' order, those written lying under `directory`
    with its lit.cfg.py and README.md (`repro.parallel.export_buckets_parallel`'s
    output).  The report links that directory in as its `lit/`."""

    directory: Path
    tests: Sequence[LitTest] = ()


def _lit_views(lit: LitResults, out: Path) -> dict[str, dict[str, Any]]:
    """Link the made tests into `out/lit` and describe each for the pages."""
    directory = Path(lit.directory)
    if directory.is_dir():
        link_tree(directory, out / "lit")
    views: dict[str, dict[str, Any]] = {}
    for test in lit.tests:
        views[test.key] = {
            "written": test.written, "slug": test.slug,
            "href": (Path("lit") / test.path.relative_to(directory)).as_posix()
            if test.path else "",
            "summary": test.proof.summary() if test.written and test.proof else "",
            "text": test.text, "reason": " ".join(test.reason.split()),
            "html": Markup("\n").join(highlight(ln) for ln in test.text.splitlines()),
        }
    return views


# What the report writes into its directory; anything else there (the
# campaign's results.jsonl) is kept on a rewrite.
def _owned(name: str) -> bool:
    return name in ("index.html", "triage.json", "lit") or (
        name.startswith("campaign-") and name.endswith(".html"))


def _in_place(out: Path) -> bool:
    """A directory that cannot be swapped: the working directory or one above it."""
    here = Path.cwd().resolve()
    target = out.resolve()
    return target == here or target in here.parents or not out.name


@contextlib.contextmanager
def staging_dir(out_dir: str | Path) -> Iterator[Path]:
    """An empty directory on the report's filesystem (beside `out_dir`, or
    inside it where the report is written in place) to make what the report
    renders in before `render_report` runs (the lit tests: then it links
    them in, not copies); deleted on leaving, interrupted or not, so an
    interrupted report leaves nothing behind."""
    out = Path(out_dir)
    where = out if _in_place(out) else out.parent
    where.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name or 'report'}.stage-", dir=where))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def check_results(results_path: str | Path, campaign: str | None = None) -> Path:
    """The results file a report is made of: UsageError when it does not
    exist or (`campaign` given) holds no such campaign, before any work."""
    results = _existing(results_path)
    if campaign:
        _check_campaign(load_history(results), results, campaign)
    return results


def _existing(results_path: str | Path) -> Path:
    results = Path(results_path)
    if not results.is_file():
        raise UsageError(f"results file '{results}' does not exist; "
                         "run `gpu-alloc-verify fuzz --report DIR` first")
    return results


def _check_campaign(history: History, results: Path, campaign: str | None) -> None:
    if campaign and history.get(campaign) is None:
        render_html(history, source_name=results.name, campaign=campaign)  # raises UsageError


def render_report(results_path: str | Path, out_dir: str | Path, *,
                  known_features: Sequence[str] | None = None,
                  campaign: str | None = None,
                  triage: Triage | None = None,
                  lit: LitResults | None = None,
                  notes: Sequence[str] = (),
                  progress: ReportProgress | None = None) -> Path:
    """Write the report pages, triage.json and the lit tests; return index.html's path
    (or, with `campaign`, that campaign's page).

    It renders what it is given: `triage` (the root causes, None for none:
    no triage.json), `lit` (the lit tests already made and proven, linked
    in as `lit/`), `notes` (what the making skipped, shown on every page).
    `known_features`: the generator's feature list, so features no program
    reached show as 0 (default: `generators.features.KNOWN_FEATURES` when
    importable; pass `()` for none).  The directory is written whole or not
    at all (`reports.atomic_dir`); `progress` hears each page."""
    results = _existing(results_path)
    out = Path(out_dir)
    if _in_place(out):
        out.mkdir(parents=True, exist_ok=True)
        return _write_report(results, out, out, known_features, campaign, triage, lit,
                             notes, progress)
    with atomic_dir(out, _owned) as tmp:
        _write_report(results, tmp, out, known_features, campaign, triage, lit, notes,
                      progress)
    return out / (page_name(load_history(results), campaign) if campaign else "index.html")


def _write_report(results: Path, out: Path, final: Path,
                  known_features: Sequence[str] | None, campaign: str | None,
                  triage: Triage | None, lit: LitResults | None, notes: Sequence[str],
                  progress: ReportProgress | None) -> Path:
    if known_features is None:
        known_features = _generator_features()
    history = load_history(results)
    _check_campaign(history, results, campaign)
    if triage is not None:
        (out / "triage.json").write_text(json.dumps(triage.to_json(), indent=2) + "\n",
                                         encoding="utf-8")
    lit_tests = _lit_views(lit, out) if lit is not None else {}
    shown: list[str | None] = [campaign] if campaign else \
        [c.id for c in history.campaigns] or [None]
    result = out / "index.html"
    for k, cid in enumerate(shown):
        if progress is not None:
            progress.step("pages", k, len(shown))
        page = out / (page_name(history, cid) if cid else "index.html")
        page.write_text(render_html(history, source_name=results.name,
                                    known_features=known_features, campaign=cid,
                                    triage=triage, lit_tests=lit_tests,
                                    results_path=str(results), notes=list(notes)),
                        encoding="utf-8")
        if cid == campaign:
            result = page
    if progress is not None:
        progress.step("pages", len(shown), len(shown))
    return final / result.name
