"""The mutation operators' shared moves over generic-form lowered text: which
handle to route and how (`verify.ir.generic_lines` reads the lines and
makes the edits).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from gpu_alloc_verify.verify.ir.generic_lines import Line, fresh, func_end, read_lines, replace_uses

HANDLE_MAKERS = ("mgpuStreamCreate", "mgpuEventCreate", "mgpuMemAlloc")
PTR = "!llvm.ptr"


def handles(infos: list[Line]) -> list[Line]:
    """Calls that make a runtime handle, inside a function body."""
    return [x for x in infos if x.callee in HANDLE_MAKERS and x.result and x.func >= 0
            and x.result_type == PTR]


def pick(rng: random.Random, items: list[Line]) -> Line | None:
    return rng.choice(items) if items else None


def route(text: str, rng: random.Random,
          build: Callable[[Line, str, list[str]], tuple[list[str], str] | None]) -> str | None:
    """Route one handle through new ops: `build(def line, prefix, lines)` gives
    the lines to insert after the def and the value that replaces its uses."""
    infos = read_lines(text)
    h = pick(rng, handles(infos))
    if h is None:
        return None
    lines = text.split("\n")
    made = build(h, fresh(text), lines)
    if made is None:
        return None
    new_lines, value = made
    end = func_end(infos, h.func)
    if not replace_uses(lines, h.result, value, h.index + 1, end):
        return None  # an unused handle: nothing to route
    lines[h.index + 1:h.index + 1] = new_lines
    return "\n".join(lines)
