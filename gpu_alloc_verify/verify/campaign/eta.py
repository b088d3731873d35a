"""How long a campaign has left, shrinking included.

The search's rest is timed by its own pace (the share of --max-examples or
--time-budget done so far).  The shrink phase that follows judges programs
one at a time, about `PROGRAMS_PER_VIOLATION` of them for each violated
(lowering, invariant) found (Hypothesis replays the search and shrinks each
failure; measured 25 to 147 per pair, 59 their geometric mean, in seven
campaigns of 100 to 400 programs on mlir-opt-19 and xdsl:pr69969).  Until
the shrink phase has timed its own programs, one costs the search's time
per program times `ALONE`: a batch shares one `mlir-opt` process, a program
alone starts its own (measured 2.7x and 4.4x for mlir-opt-19, 0.85x in
process).  Once it runs, its measured time per program
replaces the guess, and the programs still expected give the rest (at
least `PROGRAMS_LEFT_AT_LEAST` per pair not yet shrunk, when a pair needs
more than its share).

The functions take times, never read a clock: a test scripts them.
"""

from __future__ import annotations

PROGRAMS_PER_VIOLATION = 60
PROGRAMS_LEFT_AT_LEAST = 10
ALONE = {True: 3.0, False: 1.0}  # external tool (a process per program) or in process


def search_left(elapsed: float, fraction: float | None) -> float | None:
    """Seconds of search left at its pace; None until a share is done and a
    second has passed (the first second's pace says nothing yet)."""
    if not fraction or fraction <= 0 or elapsed < 1:
        return None
    return max(0.0, elapsed * (1 - min(1.0, fraction)) / fraction)


def guessed_program_s(search_s: float, judged: int, external: bool) -> float | None:
    """One shrink program's seconds before the shrink phase has timed any:
    the search's time per program, scaled for being judged alone."""
    if judged <= 0 or search_s <= 0:
        return None
    return search_s / judged * ALONE[external]


def shrink_left(pairs: int, unshrunk: int, judged: int, program_s: float | None
                ) -> float | None:
    """Seconds of shrinking left for `pairs` violated (lowering, invariant)
    found, `unshrunk` of them not shrunk yet, `judged` programs judged so
    far in the shrink phase at `program_s` each; None when the cost of a
    program is not known yet."""
    if program_s is None or pairs <= 0:
        return None
    expected = pairs * PROGRAMS_PER_VIOLATION - judged
    return max(expected, unshrunk * PROGRAMS_LEFT_AT_LEAST, 0) * program_s
