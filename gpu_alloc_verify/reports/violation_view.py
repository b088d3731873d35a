"""One violation as the report's template reads it: the source with the
offending ops marked, the lowered IR in custom form with MLIR syntax
highlighting (the `mlir-pygments` lexer, when installed) and marks on the
calls of the offending handle only, the path, schedule and traces."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from itertools import zip_longest
from typing import Any

from markupsafe import Markup, escape

from gpu_alloc_verify.reports.differential_view import (
    DIFFERENTIAL_KEYS,
    differential_view,
    is_differential,
)
from gpu_alloc_verify.reports.irtext import loc_id, marked_ops
from gpu_alloc_verify.reports.pretty_ir import shown_ir
from gpu_alloc_verify.verify.model.verdicts import rule_of
from gpu_alloc_verify.verify.triage.offending import counterexample

_CEX_SHOWN = ("path", "schedule", "trace_source", "trace_lowered", "observables")
PROGRAM = "program"


@lru_cache(maxsize=1)
def _lexer() -> tuple[Any, Any] | None:
    try:
        from mlir_pygments import MLIRLexer
        from pygments.formatters import HtmlFormatter
    except ImportError:
        return None
    return MLIRLexer(), HtmlFormatter(nowrap=True, classprefix="hl-")


def highlight_css() -> str:
    """The token colours for highlighted lines (empty without the lexer)."""
    found = _lexer()
    if found is None:
        return ""
    return str(found[1].get_style_defs("pre"))


@lru_cache(maxsize=1)
def _styled() -> frozenset[str]:
    """The token classes the colours give a style; whitespace shows none."""
    return frozenset(re.findall(r"\.(hl-[\w-]+)", highlight_css())) - {"hl-w"}


_TOKEN = re.compile(r'<span class="([^"]*)">([^<]*)</span>')


def _unstyled_out(html: str) -> str:
    """Tokens without a style as plain text: a span per space and comma made
    highlighted IR a dozen times the size of its text."""
    styled = _styled()
    return _TOKEN.sub(lambda m: m.group(0) if styled.intersection(m.group(1).split())
                      else m.group(2), html)


def highlight(text: str) -> Markup:
    """One line of MLIR as HTML, highlighted when the lexer is installed."""
    found = _lexer()
    if found is None or not text.strip():
        return escape(text)
    from pygments import highlight as pyg_highlight

    return Markup(_unstyled_out(pyg_highlight(text, found[0], found[1]).rstrip("\n")))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _as_dict(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _as_list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def anchor(value: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in value)


def lowered_view(v: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """Lines of the lowered IR to show (device code and runtime declarations
    folded into one line each); whether it is in custom form."""
    try:
        shown = shown_ir(v, PROGRAM)
    except Exception:  # noqa: BLE001 - one odd record must not cost the whole report
        text = str(v.get("lowered") or "")
        return [{"n": n, "html": escape(t), "mark": "", "where": "", "op": "", "summary": ""}
                for n, t in enumerate(text.splitlines(), 1)], False
    out: list[dict[str, Any]] = []
    folded = {"kernel": 0, "declaration": 0}

    def flush() -> None:
        for what, count in folded.items():
            if count:
                text = (f"... {count} line(s) of device code (gpu.module) not shown"
                        if what == "kernel" else
                        f"... {count} runtime function declaration(s) not shown")
                out.append({"n": "", "html": escape(text), "mark": "fold", "where": "",
                            "op": "", "summary": ""})
                folded[what] = 0

    for line in shown.lines:
        if line.kernel or line.declaration:
            folded["kernel" if line.kernel else "declaration"] += 1
            continue
        flush()
        summary = ""
        if line.mark:
            stripped = line.text.strip()
            # whole: a cut op reads like another one (the cell wraps instead)
            summary = stripped.split(" : ")[0] if "llvm.call" in stripped else stripped
        out.append({"n": line.n, "html": highlight(line.text), "mark": "call" if line.mark
                    else "", "where": line.where, "op": line.op or "", "summary": summary})
    flush()
    return out, shown.custom


def violation_view(v: dict[str, Any], index: int, lit: dict[str, Any] | None = None
                   ) -> dict[str, Any]:
    cex = counterexample(v)
    marked = marked_ops(v)
    path = _as_dict(cex.get("path"))
    trace_src = _as_list(cex.get("trace_source"))
    trace_low = _as_list(cex.get("trace_lowered"))
    traces = [(_text(a) if a is not None else "", _text(b) if b is not None else "")
              for a, b in zip_longest(trace_src, trace_low)]
    invariant = str(v.get("invariant", "?"))
    program = str(v.get("program") or "")
    lowered, custom = lowered_view(v) if v.get("lowered") else ([], False)
    vid = str(v.get("id") or f"violation-{index}")
    differential = differential_view(cex) if is_differential(cex) else None
    shown = _CEX_SHOWN + (DIFFERENTIAL_KEYS if differential else ())
    return {
        "id": vid,
        "anchor": "v-" + anchor(vid),
        "invariant": invariant,
        "description": rule_of(invariant) or "(not an invariant this harness defines)",
        "lowering": str(v.get("lowering", "?")),
        "pipeline": str(v.get("pipeline") or ""),
        "detail": str(v.get("detail", "")),
        "confirmation": str(v.get("confirmation") or ""),
        "program": [{"n": n, "html": highlight(ln),
                     "mark": bool(marked) and loc_id(ln) in marked}
                    for n, ln in enumerate(program.splitlines(), 1)],
        "lowered": lowered,
        "custom": custom,
        "offending": [ln for ln in lowered if ln["mark"] == "call"],
        "marked": sorted(marked),
        "path": [(str(k), _text(val).lower() if isinstance(val, bool) else _text(val))
                 for k, val in path.items()],
        "schedule": [_text(s) for s in _as_list(cex.get("schedule"))],
        "observables": [{k: _text(_as_dict(o).get(k)) for k in ("observable", "source", "lowered")}
                        for o in _as_list(cex.get("observables"))],
        "traces": traces,
        "runs": differential,  # a differential counterexample: the two runs
        "extra": [(str(k), _text(val)) for k, val in cex.items()
                  if k not in shown and val not in (None, "", [], {})],
        "lit": lit,
        "replay": str(v.get("replay") or ""),
    }
