"""The one module that uses Hypothesis's unpublished API.

Verified on hypothesis 6.170.17 (`hypothesis.__version__`); pyproject.toml
asks for `>=6.100`.  What each part relies on:

- `HandOffStrategy`: a `SearchStrategy` subclass whose `do_draw(data)`
  receives the `ConjectureData` (`data.draw` draws a strategy), and each
  draw of which is one span labelled from its class's `__qualname__` (what
  the shrinker deletes whole; a subclass's name is part of the draws'
  labels, so renaming one changes how Hypothesis explores and shrinks);
- `draw_seeded`: `ConjectureData(random=..., max_choices=...)` under a
  `hypothesis.control.BuildContext` draws from the `random.Random` alone
  (the same value for the same seed, in any process), raising
  `hypothesis.errors.StopTest` when it gives up;
- `salt_database_key`: the example-database key of an `@given` test is
  `hypothesis.internal.reflection.function_digest` of the inner test, which
  hashes its source, signature and `_hypothesis_internal_add_digest` (set
  here, as pytest's parametrize does it);
- `secondary_database_key`: that key plus `b".secondary"` is the corpus the
  reuse phase replays, and shrinks from, when the primary one is short;
- `choices_to_bytes` (`hypothesis.database`) is how an example is stored
  there, and `current_choices` reads the running example's choices from
  `hypothesis.control.current_build_context().data.choices`.

The fragile imports are made where used, so that an upgrade that removes
one breaks only what uses it; `tests/test_dependency_pins.py` checks each
point above against the installed Hypothesis and says which one changed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

__all__ = [
    "HandOffStrategy", "choices_to_bytes", "current_choices", "database_key", "draw_seeded",
    "salt_database_key", "secondary_database_key",
]

T = TypeVar("T")


class HandOffStrategy(st.SearchStrategy[None]):
    """Draws what `next` draws (set just before each draw, taken by it): one
    object for many different draws, each one span.  Subclass it: the
    subclass's name labels the spans."""

    def __init__(self) -> None:
        super().__init__()
        self.next: Callable[[Any], None] | None = None

    def do_draw(self, data: Any) -> None:
        fn, self.next = self.next, None  # taken first: hand-offs nest
        assert fn is not None, f"{type(self).__name__} drawn without a draw handed to it"
        fn(data.draw)


def draw_seeded(strategy: st.SearchStrategy[T], seed: str,
                max_choices: int = 100_000) -> T | None:
    """One value of `strategy` drawn from `random.Random(seed)`, without a
    test around it; None when Hypothesis gave up on the draw."""
    from hypothesis.control import BuildContext
    from hypothesis.errors import StopTest
    from hypothesis.internal.conjecture.data import ConjectureData

    data = ConjectureData(random=random.Random(seed), max_choices=max_choices)
    try:
        with BuildContext(data, wrapped_test=draw_seeded):
            return data.draw(strategy)  # type: ignore[no-any-return]
    except StopTest:
        return None


def salt_database_key(test: Callable[..., Any], salt: bytes) -> None:
    """Make `salt` part of the example-database key of `test` (a function
    `@given` is then applied to): two tests of the same source get keys of
    their own."""
    test._hypothesis_internal_add_digest = salt  # type: ignore[attr-defined]


def database_key(given_test: Any) -> bytes:
    """The example-database key of an `@given` test."""
    from hypothesis.internal.reflection import function_digest

    return function_digest(given_test.hypothesis.inner_test)  # type: ignore[no-any-return]


def secondary_database_key(given_test: Any) -> bytes:
    """The key of the corpus the reuse phase tries, and shrinks from, after
    the primary one: an example there that fails is not taken as shrunk."""
    return database_key(given_test) + b".secondary"


def choices_to_bytes(choices: Sequence[Any]) -> bytes:
    """An example's choices as Hypothesis stores them in a database."""
    from hypothesis.database import choices_to_bytes as to_bytes

    return to_bytes(choices)


def current_choices() -> tuple[Any, ...] | None:
    """The choices Hypothesis made for the example being run, if it says."""
    try:
        from hypothesis.control import current_build_context

        return tuple(current_build_context().data.choices)
    except Exception:  # noqa: BLE001 - an internal API: without it, replay alone
        return None
