"""Odd inputs for `check`: MLIR that is valid but large in one direction or
spelled unusually, and damaged text (issue 46's fuzz lane).

`odd_input(rng, scale)` draws one `OddInput`: a file name (itself odd at
times: spaces, a newline, non-ASCII), its bytes and the family it comes
from.  `scale` (0 to 1) sizes the large families, from a few ops to the
sizes issue 46 measured (10^9-element memrefs, 1,000-wide waits, 5 MB
functions).  Every family is plain text written here; no program of the
generator's model is needed.  `verify.cli.odd_lane` runs `check` on
them and counts what must never happen: a traceback, an internal error,
a run past its time limit.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class OddInput:
    name: str  # the file name to write it under
    data: bytes
    family: str  # the generator below that made it
    valid: bool  # valid MLIR as far as the generator knows


_PAIR = """  %t{0} = gpu.wait async{loc}
  %b{0}, %a{0} = gpu.alloc async [%t{0}] () : memref<{n}x{elem}>
  %d{0} = gpu.dealloc async [%a{0}] %b{0} : memref<{n}x{elem}>
  gpu.wait [%d{0}]{loc}
"""


def _sized(rng: random.Random, scale: float, full: int, low: int = 1) -> int:
    """A size from `low` up to `full` times `scale` (log-uniform)."""
    top = max(low, int(full * scale))
    return int(round(low * (top / low) ** rng.random()))


def huge_memref(rng: random.Random, scale: float) -> str:
    n = rng.choice([_sized(rng, scale, 10**9, 16), 2**32, 10**9, 1 << 31])
    elem = rng.choice(["i8", "f32", "f64"])
    host = rng.random() < 0.5
    body = ["func.func @main() {"]
    if host:
        body += ["  %c0 = arith.constant 0 : index",
                 f"  %h = memref.alloc() : memref<{n}x{elem}>",
                 f"  memref.dealloc %h : memref<{n}x{elem}>"]
    body.append(_PAIR.format(0, n=n, elem=elem, loc="").rstrip("\n"))
    return "\n".join(body + ["  return", "}"]) + "\n"


def long_loop(rng: random.Random, scale: float) -> str:
    trips = _sized(rng, scale, 1_000_000, 2)
    return f"""func.func @main() -> index {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {trips} : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {{
    %x = arith.addi %a, %i : index
    scf.yield %x : index
  }}
{_PAIR.format(0, n=16, elem="f32", loc="")}  return %s : index
}}
"""


def deep_nesting(rng: random.Random, scale: float) -> str:
    depth = _sized(rng, scale, 12 if rng.random() < 0.7 else 150, 1)
    use_if = rng.random() < 0.5
    out = ["func.func @main(%c: i1, %b: memref<16xf32>) {", "  %c0 = arith.constant 0 : index",
           "  %c1 = arith.constant 1 : index", "  %c2 = arith.constant 2 : index",
           "  %f = arith.constant 1.0 : f32"]
    for d in range(depth):
        out.append("  " * (d + 1) + ("scf.if %c {" if use_if else
                                     f"scf.for %i{d} = %c0 to %c2 step %c1 {{"))
    pad = "  " * (depth + 1)
    out += [pad + "%t0 = gpu.wait async",
            pad + "%t1 = gpu.memset async [%t0] %b, %f : memref<16xf32>, f32",
            pad + "gpu.wait [%t1]"]
    out += ["  " * (d + 1) + "}" for d in reversed(range(depth))]
    return "\n".join(out + ["  return", "}"]) + "\n"


def wide_wait(rng: random.Random, scale: float) -> str:
    deps = _sized(rng, scale, 1000, 2)
    out = ["func.func @main() {"] + [f"  %t{i} = gpu.wait async" for i in range(deps)]
    out.append(f"  %all = gpu.wait async [{', '.join(f'%t{i}' for i in range(deps))}]")
    return "\n".join(out + ["  gpu.wait [%all]", "  return", "}"]) + "\n"


def long_function(rng: random.Random, scale: float) -> str:
    pairs = _sized(rng, scale, 60_000, 1)
    body = "".join(f"  %w{i} = gpu.wait async\n  gpu.wait [%w{i}]\n" for i in range(pairs))
    return "func.func @main() {\n" + body + "  return\n}\n"


def many_functions(rng: random.Random, scale: float) -> str:
    count = _sized(rng, scale, 10_000, 1)
    return "".join(f"func.func @f{k}() {{\n{_PAIR.format(0, n=16, elem='f32', loc='')}"
                   "  return\n}\n" for k in range(count))


_NAMES = ["main", '"ƒünç"', '"with space"', '"quote\\"d"', '"日本"', "_x.y$z", '"\\0A"']
_LOCS = ['loc("a\\nb":1:2)', 'loc(unknown)', 'loc("ƒ.mlir":7:1)', 'loc(fused["k.mlir":3:5, "x"])',
         'loc(fused<"meta">["k.mlir":3:5])', 'loc(callsite("f" at "k.mlir":9:1))',
         'loc("n"("k.mlir":1:1))', 'loc("k.mlir":1:1)']


def odd_spelling(rng: random.Random, scale: float) -> str:
    """Quoted symbol names and locations of every form, shared or not."""
    name = rng.choice(_NAMES)
    out = []
    for k in range(rng.randint(1, 4)):
        loc = " " + rng.choice(_LOCS) if rng.random() < 0.8 else ""
        out.append(_PAIR.format(k, n=16, elem="f32", loc=loc))
    callee = f"func.func @main() {{\n  call @{name}() : () -> ()\n  return\n}}\n" \
        if name != "main" else ""
    return f"func.func @{name}() {{\n" + "".join(out) + "  return\n}\n" + callee


VALID: dict[str, Callable[[random.Random, float], str]] = {
    "huge-memref": huge_memref, "long-loop": long_loop, "deep-nesting": deep_nesting,
    "wide-wait": wide_wait, "long-function": long_function, "many-functions": many_functions,
    "odd-spelling": odd_spelling,
}


def damaged(rng: random.Random, text: str) -> tuple[str, bytes]:
    """`text` broken one way: (how, the bytes)."""
    data = text.encode()
    how = rng.choice(["truncated", "byte-flip", "line-dropped", "line-doubled", "not-utf8",
                      "nul-bytes", "brace-dropped", "empty", "garbage"])
    if how == "truncated":
        return how, data[:rng.randrange(max(1, len(data)))]
    if how == "byte-flip":
        out = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            k = rng.randrange(len(out))
            out[k] = rng.choice(b"{}()[]<>%@\"\\:,=#^ \n0")
        return how, bytes(out)
    lines = text.split("\n")
    if how in ("line-dropped", "line-doubled") and len(lines) > 2:
        k = rng.randrange(1, len(lines) - 1)
        lines[k:k + 1] = [] if how == "line-dropped" else [lines[k], lines[k]]
        return how, "\n".join(lines).encode()
    if how == "not-utf8":
        k = rng.randrange(len(data))
        return how, data[:k] + b"\xff\xfe" + data[k:]
    if how == "nul-bytes":
        return how, data.replace(b" ", b"\x00", rng.randint(1, 3))
    if how == "brace-dropped":
        return how, data.replace(b"}", b"", 1)
    if how == "empty":
        return how, rng.choice([b"", b"\n\n", b"   "])
    return "garbage", bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))


_FILE_NAMES = ["k.mlir", "with space.mlir", "new\nline.mlir", "ƒünç.mlir", "quote\".mlir",
               "-dash.mlir", "back\\slash.mlir", "colon:1:2.mlir"]


def odd_input(rng: random.Random, scale: float = 0.01, damaged_share: float = 0.3) -> OddInput:
    """One input: a valid family at `scale`, damaged `damaged_share` of the time."""
    family = rng.choice(sorted(VALID))
    text = VALID[family](rng, scale)
    name = rng.choice(_FILE_NAMES) if rng.random() < 0.3 else "k.mlir"
    if rng.random() < damaged_share:
        how, data = damaged(rng, text)
        return OddInput(name, data, f"{family}/{how}", False)
    return OddInput(name, text.encode(), family, True)
