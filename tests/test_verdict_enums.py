"""Invariant IDs and verdicts are enums (issue 30), not strings spelled out
all over the library: `verify.model.verdicts.InvariantId` and `Verdict` are
`StrEnum`s whose values are the IDs and words every output prints, and no
library module spells one as a string literal of its own."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.model.verdicts import (
    INVARIANTS,
    VERDICTS,
    InvariantId,
    Verdict,
    known_invariant,
    rule_of,
)
from tests.cli.test_corpus import INVARIANTS as CORPUS_INVARIANTS
from tests.cli.test_corpus import VERDICTS as CORPUS_VERDICTS

ROOT = Path(__file__).resolve().parents[1]
# The library: what the scan reads (verdicts.py, the one place that spells
# them, is left out).
LIBRARY = ("verify", "oracles", "reports", "repro", "generators")
VERDICTS_PY = Path("verify/model/verdicts.py")

# String literals equal to an ID or a verdict that are something else, each
# (file, enclosing def/class or <module>, literal) with how many times it
# occurs there and why it is not the member.  Docstrings are not scanned.
SUMMARY_FIELD = "the summary's `unknown` field (a list of records), a key of the JSON schema"
LOWERING_STATUS = "a lowering's status (`verify.lowerings.base.Status`), not a verdict"
ALLOWED: dict[tuple[str, str, str], tuple[int, str]] = {
    # The summary's `unknown` list (verify/schema/summary.schema.json).
    ("verify/campaign/fuzz.py", "FuzzReport.summary", "unknown"): (1, SUMMARY_FIELD),
    ("verify/cli/check_text.py", "check_summary", "unknown"): (1, SUMMARY_FIELD),
    ("verify/cli/check_text.py", "print_check", "unknown"): (1, SUMMARY_FIELD),
    ("verify/cli/check_text.py", "apply_baseline", "unknown"): (2, SUMMARY_FIELD),
    ("verify/cli/summary.py", "print_summary", "unknown"): (2, SUMMARY_FIELD),
    ("reports/junit.py", "_cases", "unknown"): (1, SUMMARY_FIELD),
    ("reports/junit.py", "build_junit", "unknown"): (1, SUMMARY_FIELD),
    ("reports/html.py", "_unknown_from_summary", "unknown"): (1, SUMMARY_FIELD),
    # The HTML templates' own variable names.
    ("reports/html.py", "render_html", "unknown"): (
        1, "the page's context key (templates read `unknown`), not a verdict"),
    ("reports/html.py", "_matrix", "violated"): (
        2, "a matrix cell's count field (templates read `cell.violated`), not a verdict"),
    # Prose.
    ("verify/cli/check.py", "<module>", "violated"): (
        1, "the word for an exit status in `check`'s last line (_CHECK_SAID)"),
    # A lowering's status: Judgement.status, LoweringOutcome.status.
    ("verify/lowerings/base.py", "<module>", "rejected"): (1, LOWERING_STATUS),
    ("verify/lowerings/failure_kind.py", "failure_outcome", "rejected"): (2, LOWERING_STATUS),
    ("verify/lowerings/mlir_opt.py", "MlirOptLowering.lower_batch", "rejected"): (
        1, LOWERING_STATUS),
    ("verify/lowerings/xdsl_lowering.py", "XdslLowering._lower", "rejected"): (
        1, LOWERING_STATUS),
    ("verify/lowerings/portfolio.py", "PortfolioLowering.lower_batch", "rejected"): (
        1, LOWERING_STATUS),
    ("verify/lowerings/xdsl_lowering.py", "XdslLowering.lower", "rejected"): (
        3, LOWERING_STATUS),
    ("verify/invariants/pipeline.py", "judge", "rejected"): (2, LOWERING_STATUS),
    ("verify/campaign/check_file.py", "_unreadable", "rejected"): (1, LOWERING_STATUS),
    ("verify/campaign/nothing_checked.py", "lowering_unchecked", "rejected"): (
        1, LOWERING_STATUS),
    # Z3's answer (`verify.invariants.solver.SatResult.status`).
    ("verify/invariants/solver.py", "SatResult", "unknown"): (1, "Z3's sat/unsat/unknown"),
    ("verify/invariants/solver.py", "_outcome", "unknown"): (1, "Z3's sat/unsat/unknown"),
    ("verify/invariants/common.py", "Findings.query", "unknown"): (1, "Z3's answer"),
    ("verify/invariants/common.py", "Findings._unknown_if", "unknown"): (1, "Z3's answer"),
    ("verify/invariants/ordering.py", "_decide", "unknown"): (1, "Z3's answer"),
    # The name of Z3's `unknown` answer, re-exported by verify.smt (`__all__`).
    ("verify/smt/__init__.py", "<module>", "unknown"): (1, "Z3's answer's name"),
    ("verify/smt/solving.py", "<module>", "unknown"): (1, "Z3's answer's name"),
    # A run of an interpreter that did not get to the end.
    ("oracles/source_interp.py", "<module>", "unknown"): (1, "SourceRun.status"),
    ("oracles/source_interp.py", "run_function", "unknown"): (1, "SourceRun.status"),
    ("oracles/source_xdsl/machine.py", "<module>", "unknown"): (1, "XRun.status"),
    ("oracles/source_xdsl/machine.py", "failed", "unknown"): (5, "XRun.status"),
    # MLIR's `loc(unknown)` and a memory cell the extractor does not track.
    ("verify/ir/fastparse.py", "_Reader.loc_inner", "unknown"): (2, "MLIR's loc(unknown)"),
    ("verify/ir/locations.py", "<module>", "unknown"): (1, "Location.kind: loc(unknown)"),
    ("verify/ir/locations.py", "_Reader.inner", "unknown"): (2, "MLIR's loc(unknown)"),
    ("verify/ir/locations.py", "tag_locations", "unknown"): (1, "Location.kind: loc(unknown)"),
    ("verify/extract/memory.py", "<module>", "unknown"): (1, "an untracked memory cell"),
    ("verify/extract/memory.py", "Memory.extract_value", "unknown"): (
        1, "an untracked memory cell"),
}


def _readme_catalogue() -> tuple[list[str], list[str]]:
    """The IDs of README.md's table of invariants and the verdicts it names."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Invariants\n", 1)[1].split("\n## ", 1)[0]
    ids = re.findall(r"^\| `([a-z-]+)` \|", section, re.M)
    words = section.split("\nVerdicts:", 1)[1].split("\n\n", 1)[0]  # its paragraph
    verdicts = re.findall(r"`([a-z-]+)` \(", words) + re.findall(r", `([a-z-]+)`\.", words)
    return ids, verdicts


def test_every_invariant_of_the_catalogue_is_a_member() -> None:
    ids, verdicts = _readme_catalogue()
    assert len(ids) == 10 and len(verdicts) == 5
    assert [i.value for i in InvariantId] == ids  # the catalogue's order too
    assert set(CORPUS_INVARIANTS) <= set(InvariantId)
    assert [v.value for v in Verdict] == verdicts == list(CORPUS_VERDICTS)
    assert VERDICTS == tuple(Verdict)
    assert list(INVARIANTS) == list(InvariantId)
    assert all(isinstance(i, InvariantId) and INVARIANTS[i] for i in INVARIANTS)


def test_members_are_their_strings() -> None:
    for member in (*InvariantId, *Verdict):
        assert isinstance(member, str) and member == member.value
        assert str(member) == f"{member}" == f"{member:1}" == member.value
        assert hash(member) == hash(member.value)  # a str key finds a member's entry
    assert {InvariantId.STREAM_NO_LEAK: Verdict.VIOLATED} == {"stream-no-leak": "violated"}
    assert INVARIANTS["async-order"] == INVARIANTS[InvariantId.ASYNC_ORDER]  # type: ignore[index]


@pytest.mark.parametrize("member", [*InvariantId, *Verdict], ids=str)
def test_members_round_trip_through_json(member: InvariantId | Verdict) -> None:
    text = json.dumps({member: [member]})
    assert text == json.dumps({member.value: [member.value]})
    [(key, [value])] = json.loads(text).items()
    assert type(member)(key) is member and type(member)(value) is member


def test_ids_read_back_from_records() -> None:
    assert known_invariant("stream-no-leak") is InvariantId.STREAM_NO_LEAK
    assert known_invariant("?") is None and known_invariant("holds") is None
    assert rule_of("event-no-leak") == INVARIANTS[InvariantId.EVENT_NO_LEAK]
    assert rule_of("no-such") is None
    with pytest.raises(ValueError):
        InvariantId("no-such")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


class _Literals(ast.NodeVisitor):
    """String literals equal to an ID or a verdict, by enclosing def/class."""

    WORDS = {m.value for m in (*InvariantId, *Verdict)}

    def __init__(self, skip: set[int]) -> None:
        self.skip = skip
        self.scope: list[str] = []
        self.found: list[tuple[str, str, int]] = []  # (scope, literal, line)

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _enter

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and node.value in self.WORDS and id(node) not in self.skip:
            self.found.append((".".join(self.scope) or "<module>", node.value, node.lineno))


def spelled_out(root: Path = ROOT / "gpu_alloc_verify") -> dict[tuple[str, str, str], list[int]]:
    """(file, scope, literal) -> lines, for every such literal of the library."""
    out: dict[tuple[str, str, str], list[int]] = {}
    for folder in LIBRARY:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root)
            if rel == VERDICTS_PY:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), str(rel))
            visitor = _Literals(_docstrings(tree))
            visitor.visit(tree)
            for scope, literal, line in visitor.found:
                out.setdefault((rel.as_posix(), scope, literal), []).append(line)
    return out


def unexplained(found: dict[tuple[str, str, str], list[int]]) -> list[str]:
    bad = []
    for key, lines in sorted(found.items()):
        allowed = ALLOWED.get(key, (0, ""))[0]
        if len(lines) != allowed:
            file, scope, literal = key
            bad.append(f"{file}:{','.join(map(str, lines))} ({scope}): {literal!r} "
                       f"{len(lines)} time(s), {allowed} allowed")
    return bad


def test_the_library_spells_no_id_or_verdict_as_a_string() -> None:
    found = spelled_out()
    assert not unexplained(found), (
        "use the InvariantId / Verdict member (or list the literal in ALLOWED with a "
        "reason):\n" + "\n".join(unexplained(found)))
    stale = [k for k in ALLOWED if k not in found]
    assert not stale, f"ALLOWED entries that match nothing any more: {stale}"


def test_the_scan_sees_a_literal_put_back(tmp_path: Path) -> None:
    for folder in LIBRARY:
        (tmp_path / folder).mkdir()
    (tmp_path / "verify" / "m.py").write_text(
        '"""`holds`, `async-order` in a docstring are fine."""\n'
        "def f(r):\n"
        '    return r.verdict == "violated" and r.invariant in ("async-order", X)\n')
    found = spelled_out(tmp_path)
    assert found == {("verify/m.py", "f", "violated"): [3],
                     ("verify/m.py", "f", "async-order"): [3]}
    assert len(unexplained(found)) == 2
