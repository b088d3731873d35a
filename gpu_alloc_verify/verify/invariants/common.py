"""Helpers shared by the checkers: turning a solver answer into a verdict."""

from __future__ import annotations

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.calls import Call, LoweredFacts
from gpu_alloc_verify.verify.extract.facts import words
from gpu_alloc_verify.verify.invariants import solver
from gpu_alloc_verify.verify.invariants.context import CheckContext
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.values import source_unknown_why, unknown_name, unknown_vars
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict, Violation

SHOWN_REASONS = 4  # reasons an `unknown` verdict gives in full


class Findings:
    """Collects the queries of one invariant; any `unknown` taints `holds`."""

    def __init__(self, invariant: InvariantId, ctx: CheckContext) -> None:
        self.invariant = invariant
        self.ctx = ctx
        self.violations: list[Violation] = []
        self.unknown: list[str] = []
        # Violations that hinge on unfollowed values: (detail, formula, the
        # values), put in words only when the verdict is `unknown` (`result`).
        self.hidden: list[tuple[str, smt.BoolRef, list[smt.ExprRef] | None]] = []
        self.last_model: smt.ModelRef | None = None

    def query(self, bad: smt.BoolRef, detail: str, marked: list[str | None],
              extra: dict[str, object] | None = None) -> bool:
        """Record a violation if `bad` is satisfiable on an explored path
        whatever the values the analysis could not follow; an `unknown` if
        it is satisfiable only for some of them.  True when violated."""
        bad = fold.conj(bad, self.ctx.lowered.explored)
        if bad is fold.FALSE:  # decided while building it: no solver call
            return False
        rest = _without_choosable(bad)
        if rest is not None and self.settled:
            return False  # another unknown reason adds nothing
        if rest is not None:
            # Some conjuncts only ask an unknown value to equal something (or
            # an escape to act): satisfiable, but never for every value.  So
            # the answer is unknown if the rest is satisfiable, without ForAll.
            self._unknown_if(rest, detail, bad, None)
            return False
        if len(self.hidden) > SHOWN_REASONS and (values := unknown_vars(bad)) \
                and solver.instance_refutes(bad, values):
            # No value of what is not followed shows it (an instance is
            # false): at most one more hidden reason, and the verdict already
            # says "and more".  The satisfiability query would add nothing.
            return False
        answer = solver.check(bad, self.ctx.timeout_ms)
        if answer.status == "unknown":
            self.unknown.append(f"{detail}: {answer.reason}")
            return False
        if answer.status == "unsat":
            return False
        hidden = unknown_vars(bad)
        if hidden:
            answer = solver.check_forall(bad, hidden, self.ctx.timeout_ms)
            if answer.status != "sat":
                self.hidden.append((detail, bad, None))
                return False
        self.last_model = answer.model
        if answer.path is not None:
            path = answer.path
        else:
            assert answer.model is not None
            path = solver.bool_assignment(answer.model, bad)
        cex: dict[str, object] = {"path": path}
        if extra:
            cex.update(extra)
        self.violations.append(
            Violation(self.invariant, detail, cex, sorted({m for m in marked if m}))
        )
        return True

    @property
    def settled(self) -> bool:
        """Enough reasons for `unknown` are known: only a violation can change
        the verdict now."""
        return len(self.hidden) >= SHOWN_REASONS

    def possible(self, formula: smt.BoolRef, detail: str,
                 about: list[smt.ExprRef] | None = None) -> None:
        """`formula` is a violation that hinges on values the analysis could
        not follow, so it can never be shown: `unknown` if it is satisfiable
        on an explored path."""
        if self.settled:
            return
        formula = fold.conj(formula, self.ctx.lowered.explored)
        if formula is fold.FALSE:
            return
        rest = _without_choosable(formula)
        self._unknown_if(rest if rest is not None else formula, detail, formula, about)

    def _unknown_if(self, satisfiable: smt.BoolRef, detail: str, formula: smt.BoolRef,
                    about: list[smt.ExprRef] | None) -> None:
        """An `unknown` (for `detail`, hinging on `formula`) if `satisfiable` is."""
        answer = solver.check(satisfiable, self.ctx.timeout_ms)
        if answer.status == "sat":
            self.hidden.append((detail, formula, about))
        elif answer.status == "unknown":
            self.unknown.append(f"{detail}: {answer.reason}")

    def result(self) -> CheckResult:
        if self.violations:
            return CheckResult(self.invariant, Verdict.VIOLATED, self.violations)
        cuts = reachable_cuts(self.ctx)
        if self.unknown or self.hidden or cuts:
            return CheckResult(self.invariant, Verdict.UNKNOWN, reason=self._reason(cuts))
        return CheckResult(self.invariant, Verdict.HOLDS)

    def _reason(self, cuts: list[str]) -> str:
        """The distinct reasons, the first few in full."""
        fixed = list(dict.fromkeys(self.unknown + cuts))
        # Hidden ones are put in words only as far as they are shown.
        room = max(0, SHOWN_REASONS - len(fixed))
        worded = [f"{detail}, depending on "
                  f"{unfollowed(self.ctx.lowered, about if about is not None else unknown_vars(f))}"
                  for detail, f, about in self.hidden[:room]]
        reasons = list(dict.fromkeys(fixed + worded))
        more = len(fixed) + len(self.hidden) > SHOWN_REASONS
        return "; ".join(reasons[:SHOWN_REASONS]) + ("; and more" if more else "")


def _without_choosable(bad: smt.BoolRef) -> smt.BoolRef | None:
    """`bad` without its conjuncts that are disjunctions of `?n == x` and
    escape flags (values a counterexample cannot fix), or None when it has
    no such conjunct or an unknown value occurs elsewhere."""
    kept: list[smt.BoolRef] = []
    dropped = False
    for part in fold.conjuncts(bad):
        if fold.choosable(part):
            dropped = True
        elif not unknown_vars(part):
            kept.append(part)
        else:
            return None
    return fold.conj(*kept) if dropped else None


SHOWN_VALUES = 3  # unfollowed values a reason names; the rest are counted


def unfollowed(facts: LoweredFacts, hidden: list[smt.ExprRef]) -> str:
    """What the values a verdict depends on are, in words: the first few
    named, the rest counted (a formula may hang on hundreds of values, and
    putting each in words costs more than the proof)."""
    parts: dict[str, None] = {}
    seen: set[str] = set()
    rest = 0
    for v in hidden:
        name = unknown_name(v) or str(v)
        if name in seen:
            continue
        seen.add(name)
        if len(parts) >= SHOWN_VALUES:
            rest += 1
            continue
        if name[:2] == "!s":
            parts[f"the source's {source_unknown_why(name) or 'unread condition'}"] = None
        elif name[:2] in ("!d", "!u"):
            call = facts.calls[int(name[2:])]
            parts[f"what is done with a handle {call.note}"] = None
        else:
            parts[f"the value of the {words(facts.unknowns.get(name, name))}"] = None
    text = "; ".join(parts) or "values the analysis cannot follow"
    return text + (f"; and {rest} more value(s)" if rest else "")


def hidden_creates(f: Findings, what: str) -> None:
    """`unknown` where a call the analysis could not resolve runs: it may
    create `what` (streams, events) that no check sees."""
    for cut in f.ctx.lowered.hidden_creates:
        answer = solver.check(fold.conj(cut.guard, f.ctx.lowered.explored), f.ctx.timeout_ms)
        if answer.status != "unsat":
            f.unknown.append(cut.reason.replace("streams and events", what))


def reachable_cuts(ctx: CheckContext) -> list[str]:
    """Reasons of the unexplored paths that are reachable (computed once per context)."""
    if ctx.cut_reasons is None:
        ctx.cut_reasons = [f"not explored: {cut.reason}" for cut in ctx.lowered.cuts
                           if solver.check(cut.guard, ctx.timeout_ms).status != "unsat"]
    return ctx.cut_reasons


def model_of(f: Findings) -> smt.ModelRef:
    assert f.last_model is not None, "a symbolic count is only decided by Z3, with a model"
    return f.last_model


def destroy_count(destroys: list[Call], handle: int) -> int | smt.ArithRef:
    """How many of `destroys` free `handle`: a Python int when every guard
    and argument folds, else a Z3 sum.  An escape frees it when its
    "destroys" flag is set."""
    known = 0
    terms: list[smt.ArithRef] = []
    for d in destroys:
        if not d.args:
            continue
        hit = fold.conj(d.guard, fold.eq(d.args[0], handle))
        if d.flags is not None and hit is not fold.FALSE:
            hit = fold.conj(hit, d.flags[0])
        t = fold.truth(hit)
        if t is None:
            terms.append(fold.tag(smt.If(hit, fold.lit(1), fold.lit(0)), hit))
        elif t:
            known += 1
    if not terms:
        return known
    return fold.tag(smt.Sum(fold.lit(known), *terms), *terms)


def _unfollowed_in(d: Call) -> list[smt.ExprRef]:
    """What makes destroy `d` uncertain: its escape flag or unknown argument."""
    return [d.flags[0]] if d.flags is not None else unknown_vars(d.args[0])


# The destroys of the last list `_may_destroy` indexed: (the list, its length,
# literal handle -> positions, positions of the others).
_INDEXED: tuple[list[Call], int, dict[int, list[int]], list[int]] | None = None


def sole_value(term: smt.ExprRef) -> int | None:
    """The one value `term` can take, where `solver.cannot_equal` is exactly
    `!= that value`; None otherwise."""
    known = fold.value_of(term)
    w = fold.width_of(term)
    if known is not None:
        return known if w is None or 0 <= known < 1 << w else None
    if w is None and smt.is_int_value(term):
        return int(term.as_long())
    return None


def _may_destroy(destroys: list[Call], handle: int) -> list[Call]:
    """The destroys, in order, but those whose argument is a literal other
    than `handle`: the same list is asked about every handle a function
    makes, so it is indexed once (asking each destroy about each handle is
    quadratic in a long function)."""
    global _INDEXED
    if _INDEXED is None or _INDEXED[0] is not destroys or _INDEXED[1] != len(destroys):
        by_value: dict[int, list[int]] = {}
        others: list[int] = []
        for k, d in enumerate(destroys):
            lit = sole_value(d.args[0]) if d.args else None
            if lit is None:
                others.append(k)
            else:
                by_value.setdefault(lit, []).append(k)
        _INDEXED = (destroys, len(destroys), by_value, others)
    _, _, by_value, others = _INDEXED
    return [destroys[k] for k in sorted(others + by_value.get(handle, []))]


def _split_destroys(destroys: list[Call], handle: int
                    ) -> tuple[list[Call], list[smt.BoolRef]] | None:
    """The destroys that surely free `handle` when they run, and for the
    others (a value the analysis could not follow, an escape) the condition
    under which they run and could; None if a destroy is neither."""
    sure: list[Call] = []
    maybe: list[smt.BoolRef] = []
    for d in _may_destroy(destroys, handle):
        if not d.args or solver.cannot_equal(d.args[0], handle):
            continue
        arg = d.args[0]
        if fold.unknown_only(arg) or (d.flags is not None and fold.value_of(arg) == handle):
            maybe.append(d.guard)  # whether it is `handle` (or acts) is the unknown part
            continue
        hit = fold.conj(d.guard, fold.eq(arg, handle))
        if hit is fold.FALSE:
            continue
        if d.flags is None and not unknown_vars(hit):
            sure.append(d)
            continue
        rest = _without_choosable(fold.conj(hit, d.flags[0]) if d.flags is not None else hit)
        if rest is None:
            return None
        maybe.append(rest)
    return sure, maybe


def check_destroyed_once(f: Findings, handle: int, when: smt.BoolRef, destroys: list[Call],
                         detail: str, marked: list[str | None]) -> int | None:
    """Is `handle` destroyed exactly once on every path where `when` holds?
    Records a violation (returning the count it found) or an `unknown`.
    Destroys the analysis could not follow can only add to the count: a
    count of 2 or more, or of 0 where none of them runs, is shown for every
    value they could take."""
    split = _split_destroys(destroys, handle)
    if split is None:  # an unfollowed value in another shape: ask Z3 with ForAll
        count = destroy_count(destroys, handle)
        if not f.query(fold.conj(when, not_once(count)), detail, marked):
            return None
        return count if isinstance(count, int) else count_in(model_of(f), count)
    sure, maybe = split
    count = destroy_count(sure, handle)
    may_run = fold.disj(maybe)
    if isinstance(count, int):
        shown = fold.boolean(count >= 2) if count else fold.neg(may_run)
        doubt = fold.disj((not_once(count), may_run))
    else:
        shown = fold.tag(smt.Or(count >= 2, smt.And(count == 0, fold.neg(may_run))),
                         count, may_run)
        doubt = fold.tag(smt.Or(count != 1, may_run), count, may_run)
    if f.query(fold.conj(when, shown), detail, marked):
        return count if isinstance(count, int) else count_in(model_of(f), count)
    if maybe:
        about = [v for d in destroys if d.args and (d.flags is not None or fold.taint(d.args[0]))
                 for v in _unfollowed_in(d)]
        f.possible(fold.conj(when, doubt), detail, about=about)
    return None


def word_destroy_count(f: Findings, kind: str, create: Call, times: int,
                       unnamed: str = "?") -> Violation:
    """Put the count `check_destroyed_once` found into its violation's
    words and counterexample: the `kind` handle `create` made is destroyed
    `times` time(s), on the path the counterexample takes."""
    v = f.violations[-1]
    v.counterexample.update(Roles(destroy_count=times, source_op=create.source_op).entries())
    path = v.counterexample.get("path")
    v.detail = (f"{kind} created by {create.source_op or unnamed} ({create.callee}) is "
                f"destroyed {times} time(s), not exactly once, "
                + describe_path(path if isinstance(path, dict) else {}))
    return v


def not_once(count: int | smt.ArithRef) -> smt.BoolRef:
    if isinstance(count, int):
        return fold.boolean(count != 1)
    return count != 1


def count_in(model: smt.ModelRef, count: smt.ArithRef) -> int:
    return smt.int_in(model, count)


def describe_path(path: dict[str, bool] | dict[str, bool | int]) -> str:
    if not path:
        return "on every path"
    return "when " + ", ".join(
        f"{k.split(':', 1)[-1]}={str(v).lower() if isinstance(v, bool) else v}"
        for k, v in path.items())
