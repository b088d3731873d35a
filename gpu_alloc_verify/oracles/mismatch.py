"""What differs between a source outcome and a lowered one, observable by
observable, as Alive2 shows a counterexample: the buffer and byte range, the
host read, the error, the handle count, each with its source and lowered value.

Outcomes are the normalized dicts of `oracles.differential.normalize`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from gpu_alloc_verify.oracles.runtime import chunk_width

if TYPE_CHECKING:  # `differential` builds what is read here, and imports this module
    from gpu_alloc_verify.oracles.differential import (
        ErrorRow,
        HostAccessRow,
        Mismatch,
        Normalized,
        NormalizedAllocation,
    )

MAX_SHOWN = 8  # observables listed per mismatch


def expand_contents(contents: str | None) -> list[str] | None:
    """Run-length hex ("05000000*2,????") to one two-character string per byte."""
    if contents is None:
        return None
    if contents == "empty":
        return []
    out: list[str] = []
    for run in contents.split(","):
        chunk, _, count = run.partition("*")
        pairs = [chunk[i : i + 2] for i in range(0, len(chunk), 2)]
        out += pairs * (int(count) if count else 1)
    return out


def _byte_ranges(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """[start, end) ranges of bytes that differ, in whole chunks of the width
    `encode_contents` uses (4 bytes where the size allows), so an element that
    differs in one byte shows whole and neighbours merge into one range."""
    n = max(len(a), len(b))
    width = chunk_width(n)
    ranges: list[tuple[int, int]] = []
    for i in range(0, n, width):
        if a[i : i + width] == b[i : i + width]:
            continue
        if ranges and ranges[-1][1] == i:
            ranges[-1] = (ranges[-1][0], i + width)
        else:
            ranges.append((i, i + width))
    return ranges


def _show_bytes(data: list[str], lo: int, hi: int) -> str:
    shown = "".join(data[lo:hi]) if lo < len(data) else ""
    if not shown:
        return "(none)"
    return "never written" if set(data[lo:hi]) == {"??"} else shown


def _allocation(label: str, s: NormalizedAllocation | None, lo: NormalizedAllocation | None
                ) -> list[dict[str, str]]:
    if s is None or lo is None:
        present = "made" if s is not None else "not made"
        absent = "not made" if s is not None else "made"
        return [{"observable": f"allocation {label}", "source": present, "lowered": absent}]
    out: list[dict[str, str]] = []
    keys: tuple[Literal["size", "kind", "live"], ...] = ("size", "kind", "live")
    for key in keys:
        if s[key] != lo[key]:
            out.append({"observable": f"allocation {label} {key}",
                        "source": str(s[key]), "lowered": str(lo[key])})
    a, b = expand_contents(s["contents"]), expand_contents(lo["contents"])
    if a is not None and b is not None:
        for start, end in _byte_ranges(a, b):
            out.append({"observable": f"allocation {label} bytes {start}..{end - 1}",
                        "source": _show_bytes(a, start, end),
                        "lowered": _show_bytes(b, start, end)})
    return out


def _accesses(s: Sequence[HostAccessRow], lo: Sequence[HostAccessRow]
              ) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for i in range(max(len(s), len(lo))):
        a = s[i] if i < len(s) else None
        b = lo[i] if i < len(lo) else None
        if a == b:
            continue
        where = (a or b or ["?"])[0]
        kind = (a or b or ["", "access"])[1]
        out.append({"observable": f"host {kind} #{i} at {where}",
                    "source": _show_access(a), "lowered": _show_access(b)})
    return out


def _show_access(access: HostAccessRow | None) -> str:
    if access is None:
        return "(none)"
    _, _, target, value = access
    if value is None:
        return f"{target} refused"
    return f"{target} = never written" if set(value) <= {"?"} else f"{target} = {value}"


def _errors(s: Sequence[ErrorRow], lo: Sequence[ErrorRow]) -> list[dict[str, str]]:
    a = [f"{kind} at {loc}" for kind, loc in s]
    b = [f"{kind} at {loc}" for kind, loc in lo]
    out = [{"observable": "runtime error", "source": "(none)", "lowered": e}
           for e in b if e not in a]
    out += [{"observable": "runtime error", "source": e, "lowered": "(none)"}
            for e in a if e not in b]
    return out


def observables(source: Normalized, lowered: Normalized,
                differences: Sequence[str]) -> list[dict[str, str]]:
    """Each differing observable: {"observable", "source", "lowered"}."""
    out: list[dict[str, str]] = []
    s_fields: Mapping[str, object] = source  # by a key not spelled out (the counts)
    l_fields: Mapping[str, object] = lowered
    for key in differences:
        if key.startswith("allocations[") and key.endswith("]"):
            label = key[len("allocations["):-1]
            out += _allocation(label, source["allocations"].get(label),
                               lowered["allocations"].get(label))
        elif key == "host_accesses":
            out += _accesses(source["host_accesses"], lowered["host_accesses"])
        elif key == "errors":
            out += _errors(source["errors"], lowered["errors"])
        else:
            what = key.replace("_", " ") + " at exit"
            out.append({"observable": what, "source": str(s_fields[key]),
                        "lowered": str(l_fields[key])})
    return out[:MAX_SHOWN]


def render(found: Mismatch) -> list[str]:
    """The mismatch as aligned lines for a terminal or a report."""
    lines = [f"@{found['function']} with {found.get('args') or 'no args'}, "
             f"{found.get('schedule_name', 'schedule ' + str(found.get('schedule')))}:"]
    for o in found.get("observables") or []:
        lines.append(f"  {o['observable']}")
        lines.append(f"    source:  {o['source']}")
        lines.append(f"    lowered: {o['lowered']}")
    return lines
