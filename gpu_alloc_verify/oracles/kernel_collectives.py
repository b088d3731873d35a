"""Ops where the threads of a block meet: `gpu.barrier`, `gpu.all_reduce`
(with an operation attribute), `gpu.subgroup_reduce` and `gpu.shuffle`, for
`oracles.kernel_interp`.

A kernel holding one runs each thread as a generator: at the op the thread
yields a request (`(tag, op id, ...)`) and waits; `run_block` advances every
thread of the block to its next request, resolves them together and sends
each its result.  Every thread of the block must reach the same op (as the
GPU dialect requires: the ops are convergent); one that returns while others
wait, or threads at different ops, is `CollectiveUB`.

Semantics: a reduction combines the values in linear thread order (x
fastest), rounding each float step to its type, so both sides of
`differential` (which run the same kernel object) agree exactly; a GPU may
combine in another order (a native comparison must allow for it).  Subgroups
are 32 consecutive threads (NVIDIA's warp).  `gpu.shuffle`: lane = linear id
mod 32; the source lane is lane ^ offset (xor), lane - offset (up), lane +
offset (down), offset (idx); the result is that lane's value, valid when the
source lies in [0, width), else the thread's own value, not valid; a thread
whose lane is at or past `width` is outside the shuffle (undefined).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Generator, Sequence
from typing import Any

from gpu_alloc_verify.oracles.floats import ROUND

SUBGROUP = 32
Request = tuple[Any, ...]
Thread = Generator[Request, Any, None]


class CollectiveUB(Exception):
    """Threads of a block that do not meet at one op (undefined behaviour)."""


def reduction_kind(attr: object) -> str:
    """`#gpu<all_reduce_op add>` -> "add"."""
    m = re.search(r"(\w+)>?\s*$", str(attr))
    return m.group(1) if m else ""


def _signed(a: int, w: int) -> int:
    return a - (1 << w) if a >> (w - 1) else a


def _negative(x: float) -> bool:
    return math.copysign(1.0, x) < 0


def _fmin(a: float, b: float, nan: bool) -> float:
    """minimumf (`nan`: NaN wins) or minnumf (the number wins); -0 < +0."""
    if a != a or b != b:
        return (a if a != a else b) if nan else (b if a != a else a)
    if a == b:
        return a if _negative(a) else b
    return min(a, b)


def _fmax(a: float, b: float, nan: bool) -> float:
    if a != a or b != b:
        return (a if a != a else b) if nan else (b if a != a else a)
    if a == b:
        return b if _negative(a) else a
    return max(a, b)


# Values of any lane type (ints or floats), combined by a reduction.
Combine = Callable[[Any, Any], Any]


def combiner(kind: str, width: int, ftype: str) -> Combine:
    """The binary operation of reduction `kind` on values of the type."""
    if ftype:
        r = ROUND[ftype]
        floats: dict[str, Callable[[float, float], float]] = {
            "add": lambda a, b: r(a + b), "mul": lambda a, b: r(a * b),
            "minnumf": lambda a, b: _fmin(a, b, False), "maxnumf": lambda a, b: _fmax(a, b, False),
            "minimumf": lambda a, b: _fmin(a, b, True), "maximumf": lambda a, b: _fmax(a, b, True),
            "min": lambda a, b: _fmin(a, b, False), "max": lambda a, b: _fmax(a, b, False),
        }
        if kind not in floats:
            raise ValueError(f"reduction {kind} of {ftype} values")
        return floats[kind]
    mask = (1 << width) - 1
    ints: dict[str, Callable[[int, int], int]] = {
        "add": lambda a, b: (a + b) & mask, "mul": lambda a, b: (a * b) & mask,
        "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
        "minui": min, "maxui": max,
        "minsi": lambda a, b: a if _signed(a, width) <= _signed(b, width) else b,
        "maxsi": lambda a, b: a if _signed(a, width) >= _signed(b, width) else b,
    }
    ints["min"], ints["max"] = ints["minsi"], ints["maxsi"]
    if kind not in ints:
        raise ValueError(f"reduction {kind} of i{width} values")
    return ints[kind]


def _reduce(values: Sequence[Any], combine: Callable[[Any, Any], Any]) -> Any:
    acc = values[0]
    for v in values[1:]:
        acc = combine(acc, v)
    return acc


def _resolve(requests: list[Request]) -> list[Any]:
    tag = requests[0][0]
    if tag == "barrier":
        return [None] * len(requests)
    if tag == "all_reduce":
        _, _, combine, _ = requests[0]
        return [_reduce([q[3] for q in requests], combine)] * len(requests)
    if tag == "subgroup_reduce":
        _, _, combine, _ = requests[0]
        out: list[Any] = []
        for base in range(0, len(requests), SUBGROUP):
            group = requests[base:base + SUBGROUP]
            out += [_reduce([q[3] for q in group], combine)] * len(group)
        return out
    if tag == "shuffle":
        return [_shuffle(requests, i) for i in range(len(requests))]
    raise CollectiveUB(f"unknown collective {tag}")


def _shuffle(requests: list[Request], i: int) -> tuple[Any, int]:
    _, _, mode, value, offset, width = requests[i]
    lane, base = i % SUBGROUP, i - i % SUBGROUP
    if not 0 < width <= SUBGROUP or lane >= width:
        raise CollectiveUB(f"gpu.shuffle of width {width} at lane {lane}")
    src = {"xor": lane ^ offset, "up": lane - offset, "down": lane + offset,
           "idx": offset}[mode]
    if 0 <= src < width and base + src < len(requests):
        return requests[base + src][3], 1
    return value, 0


def run_block(threads: list[Thread]) -> None:
    """Run the threads of one block (a generator each) to the end, meeting at
    each collective op."""
    sends: list[Any] = [None] * len(threads)
    while True:
        requests: list[Request] = []
        for k, thread in enumerate(threads):
            try:
                requests.append(thread.send(sends[k]))
            except StopIteration:
                pass
        if not requests:
            return
        if len(requests) != len(threads):
            raise CollectiveUB(f"{requests[0][0]} reached by {len(requests)} of "
                               f"{len(threads)} threads of the block")
        if len({q[1] for q in requests}) != 1:
            raise CollectiveUB("threads of one block wait at different collective ops")
        sends = _resolve(requests)
