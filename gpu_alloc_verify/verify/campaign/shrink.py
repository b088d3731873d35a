"""The Hypothesis side of a campaign: the property both phases share, its
example-database key and settings, and the shrink phase.

Both phases build their property with `campaign_property`, so the database
key Hypothesis derives from the property is the same in both, and differs
between campaign configurations (`campaign_key`).  The shrink phase reads and
writes the database; the search phase gets it read-only (see `verify.campaign.fuzz`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    InMemoryExampleDatabase,
)

from gpu_alloc_verify.generators.hypothesis_private import (
    choices_to_bytes,
    salt_database_key,
    secondary_database_key,
)
from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.verify.invariants.options import DEFAULT_TRUTH
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, judge
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.model.verdicts import InvariantId, Verdict

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions

Key = tuple[str, str]  # (lowering spec, invariant)


@dataclass
class Found:
    spec: str
    invariant: InvariantId
    program: Program
    judgement: Judgement
    shrunk: bool = True  # False: the search's first program (shrinking did not reproduce it)

    def to_json(self) -> dict[str, Any]:
        viol = next((v for v in self.judgement.violations() if v.invariant == self.invariant),
                    None)
        return {
            "invariant": self.invariant,
            "lowering": self.spec,
            "program": self.program.to_mlir(),
            "ops": self.program.op_count(),
            "lowered": self.judgement.lowered,
            "detail": viol.detail if viol else "(did not reproduce when re-judged)",
            "counterexample": viol.counterexample if viol else {},
            "marked_calls": viol.marked_calls if viol else [],
            "confirmation": viol.confirmation if viol else "",
            "shrunk": self.shrunk,
        }


def campaign_key(opts: FuzzOptions) -> bytes:
    """The example-database key of a campaign configuration."""
    gen = {k: list(v) if isinstance(v, tuple) else v for k, v in vars(opts.gen).items()}
    blob = json.dumps({
        "lowerings": sorted(lw.spec for lw in opts.lowerings),
        "baseline": opts.baseline.spec if opts.baseline else None,
        "gen": gen, "invariants": sorted(opts.check.invariants),
        "runtime": opts.check.runtime, "pipeline": opts.pipeline,
    }, sort_keys=True)
    return hashlib.sha256(blob.encode()).digest()


def campaign_property(gen: GenConfig, body: Callable[[Program], None], key: bytes) -> Any:
    # Both phases build their property here, so that the source Hypothesis
    # hashes into the database key is the same; `key` tells configurations
    # apart (the digest pytest's parametrize uses the same way).
    def campaign_property(program: Program) -> None:
        body(program)

    salt_database_key(campaign_property, key)
    return given(programs(gen))(campaign_property)


def hypothesis_settings(opts: FuzzOptions, phases: list[Phase], db: ExampleDatabase | None,
                        max_examples: int, multiple_bugs: bool) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=db,
        derandomize=opts.seed is None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        report_multiple_bugs=multiple_bugs,
    )


def seeded(opts: FuzzOptions, test: Any) -> Any:
    # The seed decorator goes inside the settings one: it sets database=None
    # on the test's settings, which the outer settings then replace.
    return hypothesis_seed(opts.seed)(test) if opts.seed is not None else test


def database(opts: FuzzOptions) -> ExampleDatabase | None:
    return DirectoryBasedExampleDatabase(str(Path(opts.db))) if opts.db else None


class _KeepOthers(ExampleDatabase):
    """Saves through; deletes and moves only what it saved itself: for a
    shrink round that chases one bug, in which Hypothesis would clear the
    stored examples of the others as "no longer failing".

    The round's own superseded steps must leave the primary corpus (the
    move Hypothesis makes on each improvement): kept there, every step of
    the shrink would be replayed by tomorrow's search, shortest first, and
    that replay ends at its max_examples, before a longer counterexample.
    A swarm program's shrink takes a step per coin, so it leaves dozens."""

    def __init__(self, db: ExampleDatabase) -> None:
        super().__init__()
        self.db = db
        self.before: dict[bytes, set[bytes]] = {}  # each key's corpus when first touched
        self.mine: set[tuple[bytes, bytes]] = set()  # (key, value) this round added

    def _note(self, key: bytes) -> None:
        if key not in self.before:
            self.before[key] = set(self.db.fetch(key))

    def save(self, key: bytes, value: bytes) -> None:
        self._note(key)
        if value not in self.before[key]:
            self.mine.add((key, value))
        self.db.save(key, value)

    def fetch(self, key: bytes) -> Any:
        return self.db.fetch(key)

    def delete(self, key: bytes, value: bytes) -> None:
        if (key, value) in self.mine:
            self.mine.discard((key, value))
            self.db.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if (src, value) in self.mine:
            self.mine.discard((src, value))
            self.db.delete(src, value)
        self.save(dest, value)


def in_baseline(base_row: dict[str, Judgement], invariant: InvariantId) -> bool:
    return any(j.results.get(invariant) is not None
               and j.results[invariant].verdict == Verdict.VIOLATED for j in base_row.values())


def _violation_class(spec: str, invariant: str) -> type[Exception]:
    # A class per (lowering, invariant): Hypothesis tells bugs apart by
    # exception type, so each one is shrunk and reported on its own.
    name = f"Violation[{spec}|{invariant}]"
    return type(name, (AssertionError,), {})


def _seed_database(db: ExampleDatabase, test: Any, wanted: list[Key],
                   seeds: dict[Key, tuple[Any, ...]]) -> None:
    """Store the search's failing examples where the shrink round's reuse
    phase reads first: Hypothesis then shrinks from them, instead of hoping
    to generate them again."""
    try:
        # The secondary corpus: an example in the primary one that fails
        # again is taken as already shrunk, and Hypothesis would not shrink it.
        key = secondary_database_key(test)
        for k in wanted:
            if k in seeds:
                db.save(key, choices_to_bytes(seeds[k]))
    except Exception:  # noqa: BLE001 - internal API; replaying the search still works
        return


def shrink(opts: FuzzOptions, keys: set[Key], db_key: bytes, db: ExampleDatabase | None,
           max_examples: int, on_progress: Callable[[int, int], None],
           seeds: dict[Key, tuple[Any, ...]] | None = None) -> dict[Key, Found]:
    """Each key's minimal program: Hypothesis shrinks from the example the
    search found (`seeds`), else replays the seeded search (at most
    `max_examples` programs) one program at a time.  `on_progress(judged,
    unshrunk)`: at each round's start and after each program judged (what
    the campaign's ETA counts, `verify.campaign.eta`)."""
    seeds = seeds or {}
    if db is None and seeds:
        db = InMemoryExampleDatabase()
    by_spec = {lw.spec: lw for lw in opts.lowerings}
    if opts.baseline is not None:
        by_spec.setdefault(opts.baseline.spec, opts.baseline)
    classes = {k: _violation_class(*k) for k in keys}
    cache: dict[Key, Judgement] = {}
    found: dict[Key, Found] = {}
    # Each candidate's violations confirmed by their witness runs; no cross-checks.
    check = opts.check.replace(truth=DEFAULT_TRUTH)

    def judge_one(spec: str, program: Program) -> Judgement:
        text = program.to_mlir()
        if (spec, text) not in cache:
            outcome = by_spec[spec].lower_batch([program])[0]
            cache[(spec, text)] = judge(program, outcome, spec, check)
            on_progress(len(cache), len(remaining))
        return cache[(spec, text)]

    remaining = set(keys)
    # First all bugs at once (Hypothesis shrinks each distinct one it meets);
    # then each bug another one masked, on its own.
    rounds: list[list[tuple[str, str]] | None] = [sorted(keys)]
    while rounds:
        wanted = rounds.pop(0)
        if wanted is None:
            rounds = [[k] for k in sorted(remaining)]
            continue
        if not remaining.intersection(wanted):
            continue

        on_progress(len(cache), len(remaining))

        def prop(program: Program, wanted: list[Key] = wanted) -> None:
            for spec, named in wanted:
                j = judge_one(spec, program)
                inv = InvariantId(named)  # a key names a violation found: a known ID
                if j.results.get(inv) is not None and j.results[inv].verdict == Verdict.VIOLATED:
                    if opts.baseline is not None and in_baseline(
                            {"b": judge_one(opts.baseline.spec, program)}, inv):
                        continue
                    err = classes[(spec, inv)](f"{inv} on {spec}")
                    err.found = Found(spec, inv, program, j)  # type: ignore[attr-defined]
                    raise err

        # The round that chases every bug found keeps Hypothesis's database
        # semantics (stored examples that fail no more are cleared); a round
        # that chases one bug must not clear the others'.
        round_db = db if db is None or len(wanted) == len(keys) else _KeepOthers(db)
        test = hypothesis_settings(
            opts, [Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink], round_db,
            max_examples, multiple_bugs=True,
        )(seeded(opts, campaign_property(opts.gen, prop, db_key)))
        if db is not None:
            _seed_database(db, test, wanted, seeds)
        try:
            test()
        except BaseException as e:  # noqa: BLE001 - Hypothesis raises our errors or a group
            errors = list(e.exceptions) if isinstance(e, BaseExceptionGroup) else [e]
            if any(isinstance(err, KeyboardInterrupt) for err in errors):
                raise KeyboardInterrupt from e
            for err in errors:
                f = getattr(err, "found", None)
                if f is None:
                    print(f"shrink round failed: {err!r}", file=sys.stderr)
                    continue
                key = (f.spec, f.invariant)
                if key not in found or f.program.op_count() < found[key].program.op_count():
                    found[key] = f
                remaining.discard(key)
        if len(wanted) > 1:
            rounds.append(None)  # then chase what is left, one bug at a time
    return found
