"""What the analysis knows of a term lives in `fold.Tags`, on fold's own term
classes, never as attributes set on a Z3 term (issue 30).

Before, the tags (`_taint`, `_choosable`, `_parts`, ...) were attributes
bolted onto Z3 terms: a term built by Z3 from tagged ones silently had none,
and read as "untainted" wherever a reader used `getattr(term, "_taint",
False)`.  Now a term without tags is recognisably one (`tags_of` is None),
and every reader takes that as "not known": its unknowns are read from its
text, and it is never choosable.
"""

from __future__ import annotations

import ast
from pathlib import Path

import z3

from gpu_alloc_verify.verify.model import fold, values

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "gpu_alloc_verify"
OLD_TAGS = {"_lit", "_width", "_taint", "_kids", "_choosable", "_cond", "_then", "_else",
            "_unknown_leaves", "_atoms", "_parts", "_branch", "_unknown", "_unknown_vars",
            "_may_be_handle"}


def test_fold_terms_are_tagged_and_raw_operands_are_left_alone() -> None:
    raw_a, raw_b = z3.Bool("raw_a"), z3.Bool("raw_b")
    before = dict(vars(raw_a)), dict(vars(raw_b))
    both = fold.conj(raw_a, fold.neg(raw_b))
    either = fold.disj([raw_a, raw_b])
    choice = fold.ite(raw_a, fold.lit(1), fold.lit(2))
    for term in (both, either, choice, fold.eq(values.unknown_int("?9"), 5), fold.lit(7),
                 fold.bv(3, 8), fold.TRUE, fold.branch("b"), values.unknown_int("?1"),
                 values.escape_flag("!d1")):
        assert isinstance(term, fold.Tagged), term  # type: ignore[arg-type]
        assert fold.tags_of(term) is not None
    # Folding may hand back an operand as it is (`If(a, 1, 2) == 1` is `a`),
    # but nothing was written onto the Z3 terms fold was given.
    assert fold.eq(choice, 1) is raw_a
    assert (dict(vars(raw_a)), dict(vars(raw_b))) == before
    # Untagged operands make an untagged-taint result: not known, not False.
    assert fold.taint(both) is None


def test_a_term_z3_builds_from_tagged_ones_has_no_tags_and_reads_as_unknown() -> None:
    unknown = values.unknown_int("?4")
    flag = values.escape_flag("!d4")
    chosen = fold.disj([fold.eq(unknown, fold.lit(fold_handle := 1 << 64)), flag])
    assert fold.choosable(chosen) and fold.taint(chosen) is True
    rebuilt = z3.Or(chosen, z3.BoolVal(False))  # Z3's own term: no tags
    assert fold.tags_of(rebuilt) is None
    assert fold.taint(rebuilt) is None  # not known, never "untainted"
    assert not fold.choosable(rebuilt)  # never dropped from a counterexample
    assert fold.conjuncts(rebuilt) == (rebuilt,)
    assert fold.ite_parts(z3.If(flag, unknown, fold.lit(fold_handle))) is None
    # Its unknowns are still found, from its text.
    assert {str(v) for v in values.unknown_vars(rebuilt)} == {"?4", "!d4"}
    assert values.may_be_handle(z3.If(flag, unknown, fold.lit(0)))


def test_tags_follow_folding() -> None:
    c = fold.branch("c")
    x = fold.ite(c, values.unknown_int("?2"), values.unknown_int("?3"))
    tags = fold.tags_of(x)
    assert tags is not None and tags.ite is not None and tags.unknown_leaves and tags.taint
    assert fold.path_of(fold.conj(c, fold.neg(fold.branch("d")))) == {"c": True, "d": False}
    w = fold.binop("add", fold.bits_var("n", 8), fold.bv(1, 8))
    assert w is not None and fold.width_of(w) == 8 and fold.taint(w) is False
    marked = fold.with_taint(w, True)
    assert fold.taint(marked) is True and fold.width_of(marked) == 8
    assert fold.taint(w) is False  # the original keeps its own tags


def old_tags_in(source: str) -> list[tuple[int, str]]:
    """(line, name) of each old attribute tag read or set in `source`: an
    attribute of that name on anything but `self`, or a getattr/setattr/
    hasattr of it by name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        name = None
        if isinstance(node, ast.Attribute) and node.attr in OLD_TAGS \
                and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            name = node.attr
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in OLD_TAGS:
            name = node.args[1].value
        if name:
            found.append((node.lineno, name))
    return found


def test_no_module_sets_or_reads_the_old_attribute_tags() -> None:
    found = [f"{path.relative_to(PKG)}:{line} {name}"
             for path in sorted([*PKG.glob("verify/**/*.py"), *PKG.glob("oracles/**/*.py")])
             for line, name in old_tags_in(path.read_text())]
    assert found == []


def test_the_scan_sees_an_attribute_tag() -> None:
    source = ("t._taint = True\n"
              "x = getattr(t, '_choosable', False)\n"
              "self._width = 0\n"
              "y = t.tags.taint\n")
    assert old_tags_in(source) == [(1, "_taint"), (2, "_choosable")]
