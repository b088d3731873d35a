"""`math` ops in kernels, for `oracles.kernel_interp`'s compiler.

Each op is computed on Python floats (doubles) and rounded to its type
once, like the other float ops there.  For the exact ops (`absf`,
`copysign`, `floor`, `ceil`, `trunc`, `round`, `roundeven`, `sqrt`, `fma`)
that is the IEEE result (`fma` rounds an exact `Fraction`, through round-to-
odd for narrower types, so only one rounding counts).  For the
transcendental ones (`exp`, `log`, `sin`, ...) it is libm's double result
rounded to the type: within an ulp of a GPU library's, not bit-equal to
it.  `differential` runs the same kernel on both sides, so that choice
never decides a verdict; a native comparison must allow for it.  IEEE edge
cases Python's `math` raises on (log of 0, overflow, ...) give IEEE's
results.  Integer ops (`absi`, `ctpop`, `ctlz`, `cttz`) are exact.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

_INF = math.inf


def _guard(f: Callable[[float], float], overflow: float = _INF) -> Callable[[float], float]:
    """`f`, with NaN for a domain error and `overflow` for a result past a double."""
    def g(x: float) -> float:
        if x != x:
            return math.nan
        try:
            return f(x)
        except ValueError:
            return math.nan
        except OverflowError:
            return overflow
    return g


def _log(base: Callable[[float], float]) -> Callable[[float], float]:
    def g(x: float) -> float:
        if x == 0.0:
            return -_INF  # IEEE: log(±0) = -inf; Python raises
        return _guard(base)(x)
    return g


def _rsqrt(x: float) -> float:
    if x == 0.0:
        return math.copysign(_INF, x)
    if x != x or x < 0:
        return math.nan
    return 1.0 / math.sqrt(x)


def _integral(f: Callable[[float], int]) -> Callable[[float], float]:
    """A rounding to an integral value; keeps infinities, NaN and zero's sign."""
    def g(x: float) -> float:
        if x != x or x in (_INF, -_INF):
            return x
        return math.copysign(float(f(x)), x)
    return g


def _round_away(x: float) -> int:
    a = abs(x)
    whole = math.floor(a)
    return whole + 1 if a - whole >= 0.5 else whole  # a - whole is exact


def _powf(x: float, y: float) -> float:
    if y == 0.0:
        return 1.0
    if x != x or y != y:
        return 1.0 if x == 1.0 else math.nan
    odd = y == math.floor(y) and abs(y) < 2**53 and int(y) % 2 == 1
    if x == 0.0:
        if y < 0:
            return math.copysign(_INF, x) if odd else _INF
        return x if odd else 0.0
    try:
        return math.pow(x, y)
    except ValueError:
        return math.nan  # a negative base, a non-integral exponent
    except OverflowError:
        return -_INF if x < 0 and odd else _INF


def fma(a: float, b: float, c: float, ftype: str) -> float:
    """a * b + c rounded once.  For a type narrower than a double the double
    is rounded to odd (a sticky last bit), which makes the later rounding to
    the type the correct one (53 >= 2 * 24 + 2)."""
    if any(v != v or v in (_INF, -_INF) for v in (a, b, c)):
        return a * b + c  # Python's IEEE double arithmetic: inf - inf is NaN
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:  # IEEE: +0, unless both terms are zeros (then as their sum)
        return a * b + c if (a == 0.0 or b == 0.0) and c == 0.0 else 0.0
    try:
        d = float(exact)  # correctly rounded to a double
    except OverflowError:
        return _INF if exact > 0 else -_INF
    if ftype != "f64" and Fraction(d) != exact and int(math.frexp(d)[0] * (1 << 53)) % 2 == 0:
        d = math.nextafter(d, _INF if exact > Fraction(d) else -_INF)  # round to odd
    return d


UNARY: dict[str, Callable[[float], float]] = {
    "math.exp": _guard(math.exp),
    "math.exp2": _guard(lambda x: math.pow(2.0, x)),
    "math.expm1": _guard(math.expm1),
    "math.log": _log(math.log),
    "math.log2": _log(math.log2),
    "math.log10": _log(math.log10),
    "math.log1p": lambda x: -_INF if x == -1.0 else _guard(math.log1p)(x),
    "math.sqrt": _guard(math.sqrt),
    "math.rsqrt": _rsqrt,
    "math.sin": _guard(math.sin),
    "math.cos": _guard(math.cos),
    "math.tan": _guard(math.tan),
    "math.tanh": _guard(math.tanh),
    "math.atan": _guard(math.atan),
    "math.erf": _guard(math.erf),
    "math.absf": abs,
    "math.floor": _integral(math.floor),
    "math.ceil": _integral(math.ceil),
    "math.trunc": _integral(math.trunc),
    "math.round": _integral(_round_away),
    "math.roundeven": _integral(round),
}
BINARY: dict[str, Callable[[float, float], float]] = {
    "math.powf": _powf,
    "math.atan2": math.atan2,
    "math.copysign": math.copysign,
}


def _absi(a: int, w: int) -> int:
    return (-a if a >> (w - 1) else a) & ((1 << w) - 1)


def _ctlz(a: int, w: int) -> int:
    return w - a.bit_length()


def _cttz(a: int, w: int) -> int:
    return w if a == 0 else (a & -a).bit_length() - 1


INTEGER: dict[str, Callable[[int, int], int]] = {
    "math.absi": _absi,
    "math.ctpop": lambda a, w: bin(a).count("1"),
    "math.ctlz": _ctlz,
    "math.cttz": _cttz,
}
