"""A `differential` counterexample as the report shows it: the source run and
the lowered run side by side, what each observed (host accesses in order,
errors) and what each left at exit (handles, allocations), the first row
where they differ marked; then the lowered run's runtime calls as calls
(`s0 = mgpuStreamCreate()`), not JSON, the calls behind the difference marked.

The record's shape is `oracles.differential`'s mismatch: `source` and
`lowered` (normalized outcomes), `differences`, `lowered_trace` (`[callee,
[arg or "-> result", ...]]`), `lowered_errors`, `function`, `args`,
`schedule_name`, `profile`, `unawaited_tokens`.  Anything odd in it is shown
as text rather than refused: one odd record must not cost the report."""

from __future__ import annotations

import json
from itertools import zip_longest
from typing import Any

__all__ = ["DIFFERENTIAL_KEYS", "differential_view", "is_differential"]

# The counterexample keys this view shows (the generic table skips them).
DIFFERENTIAL_KEYS = ("args", "differences", "function", "lowered", "lowered_errors",
                     "lowered_trace", "observables", "profile", "schedule", "schedule_name",
                     "source", "unawaited_tokens")

# Runtime calls that make and end a handle: a handle made and never ended is
# what a "live streams/events at exit" difference comes from.
_MAKES = {"mgpuStreamCreate": "live_streams", "mgpuEventCreate": "live_events"}
_ENDS = ("mgpuStreamDestroy", "mgpuEventDestroy")


def is_differential(cex: dict[str, Any]) -> bool:
    return isinstance(cex.get("source"), dict) and isinstance(cex.get("lowered"), dict) and (
        "lowered_trace" in cex or "differences" in cex)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, sort_keys=True)


def _as_dict(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _as_list(x: Any) -> list[Any]:
    return x if isinstance(x, list) else []


def _access(row: Any) -> str:
    """`[loc, access, target, value]` -> `read buf0 at op4: 1,2,3`."""
    if not isinstance(row, list) or len(row) != 4:
        return _text(row)
    loc, access, target, value = row
    at = f" at {loc}" if loc else ""
    return f"{_text(access)} {_text(target)}{at}: {_text(value)}".strip()


def _error(row: Any) -> str:
    """`[kind, loc]` -> `kind at loc`."""
    if isinstance(row, list) and len(row) == 2:
        return f"{_text(row[0])} at {_text(row[1])}"
    return _text(row)


def _allocation(entry: Any) -> str:
    if not isinstance(entry, dict):
        return _text(entry)
    parts = [f"{entry['size']} bytes" if "size" in entry else "",
             _text(entry.get("kind")),
             ("live at exit" if entry.get("live") else "freed") if "live" in entry else "",
             f"contents {_text(entry['contents'])}" if entry.get("contents") else ""]
    return ", ".join(p for p in parts if p)


_NONE = "none"  # the other run has no such event or allocation


def _lowered_error(row: Any) -> str:
    """`[kind, call, loc, detail]` -> `device-race at op4 (memset16): detail`."""
    if not (isinstance(row, list) and len(row) == 4):
        return _text(row)
    kind, call, loc, detail = (_text(p) for p in row)
    where = " ".join(p for p in (f"at {loc}" if loc else "", f"({call})" if call else "") if p)
    return f"{kind} {where}".strip() + (f": {detail}" if detail else "")


def _row(label: str, source: str, lowered: str, key: str) -> dict[str, Any]:
    return {"label": label, "source": source, "lowered": lowered, "key": key,
            "differs": source != lowered, "first": False}


def _rows(source: dict[str, Any], lowered: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs side by side: host accesses in the order they happened, the
    errors, then the state at exit (so the first row that differs is the
    earliest observation that does)."""
    rows: list[dict[str, Any]] = []
    pairs = zip_longest(_as_list(source.get("host_accesses")),
                        _as_list(lowered.get("host_accesses")))
    for k, (a, b) in enumerate(pairs, 1):
        rows.append(_row(f"host access {k}", _NONE if a is None else _access(a),
                         _NONE if b is None else _access(b), "host_accesses"))
    pairs = zip_longest(_as_list(source.get("errors")), _as_list(lowered.get("errors")))
    for k, (a, b) in enumerate(pairs, 1):
        rows.append(_row(f"error {k}", _NONE if a is None else _error(a),
                         _NONE if b is None else _error(b), "errors"))
    for key, label in (("live_streams", "live streams at exit"),
                       ("live_events", "live events at exit")):
        if key in source or key in lowered:
            rows.append(_row(label, _text(source.get(key)), _text(lowered.get(key)), key))
    src_alloc, low_alloc = _as_dict(source.get("allocations")), _as_dict(
        lowered.get("allocations"))
    for name in sorted(set(src_alloc) | set(low_alloc), key=str):
        rows.append(_row(f"allocation {name}",
                         _allocation(src_alloc[name]) if name in src_alloc else _NONE,
                         _allocation(low_alloc[name]) if name in low_alloc else _NONE,
                         "allocations"))
    known = {"host_accesses", "errors", "live_streams", "live_events", "allocations"}
    for key in sorted((set(source) | set(lowered)) - known, key=str):
        rows.append(_row(str(key).replace("_", " "), _text(source.get(key)),
                         _text(lowered.get(key)), str(key)))
    return rows


def _call(entry: Any) -> tuple[str, str, list[str]]:
    """`[callee, args]` -> (callee, shown text, handles it makes)."""
    if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
        return "", _text(entry), []
    callee, args = entry[0], [_text(a) for a in _as_list(entry[1])]
    made = [a[3:] for a in args if a.startswith("-> ")]
    taken = [a for a in args if not a.startswith("-> ")]
    call = f"{callee}({', '.join(taken)})"
    return callee, (f"{', '.join(made)} = {call}" if made else call), made


def _calls(trace: list[Any], differences: set[str], errors: list[Any]
           ) -> list[dict[str, Any]]:
    """The lowered run's calls; marked: a handle made and never ended when
    live handles differ, and the first call each lowered error names."""
    parsed = [_call(e) for e in trace]
    ended = {_text(a) for e in trace if isinstance(e, list) and len(e) == 2
             and e[0] in _ENDS for a in _as_list(e[1])}
    named = {str(e[1]) for e in errors if isinstance(e, list) and len(e) > 1 and e[1]}
    out: list[dict[str, Any]] = []
    for n, (callee, text, made) in enumerate(parsed, 1):
        leak = _MAKES.get(callee) in differences and any(h not in ended for h in made)
        why = "never destroyed" if leak else ""
        if callee in named:
            named.discard(callee)
            why = "the lowered run's error"
        out.append({"n": n, "text": text, "mark": bool(why), "why": why})
    return out


def differential_view(cex: dict[str, Any]) -> dict[str, Any]:
    """What the template shows of a differential counterexample."""
    source, lowered = _as_dict(cex.get("source")), _as_dict(cex.get("lowered"))
    rows = _rows(source, lowered)
    first = next((r for r in rows if r["differs"]), None)
    if first is not None:
        first["first"] = True
    args = _as_dict(cex.get("args"))
    call = f"@{cex['function']}" if cex.get("function") else "the function"
    with_args = ", ".join(f"{k} = {_text(v)}" for k, v in args.items()) or "no arguments"
    run = ", ".join(p for p in (f"{call} with {with_args}", _text(cex.get("schedule_name")),
                                f"{_text(cex.get('profile'))} runtime"
                                if cex.get("profile") else "") if p)
    differences = {str(d) for d in _as_list(cex.get("differences"))}
    return {
        "run": run,
        "rows": rows,
        "first": first["label"] if first else "",
        "calls": _calls(_as_list(cex.get("lowered_trace")), differences,
                        _as_list(cex.get("lowered_errors"))),
        "errors": [_lowered_error(e) for e in _as_list(cex.get("lowered_errors"))],
        "unawaited": [_text(t) for t in _as_list(cex.get("unawaited_tokens"))],
    }
