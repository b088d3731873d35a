"""The adversarial suite against execution: ground truth checks the cases.

Each bug program and twin of `tests/soundness/cases` is run by
`verify.invariants.ground_truth` (the lowered-IR interpreter on the checking
runtime) on the boundary inputs the `holds` cross-check uses.  A twin must
show none of its targets broken on any run; a bug must show one of its
targets broken on some run, unless no run can decide (an external call the
interpreter does not model, a source that races): then the reason is one
of those the ground truth is known not to see, listed here.  So a case whose
"bug" execution shows to be correct, or whose "twin" is buggy, fails here,
whatever the analysis says.
"""

from __future__ import annotations

from functools import cache

import pytest

from gpu_alloc_verify.verify.invariants.ground_truth import EXECUTION_DECIDED, execute, observe
from gpu_alloc_verify.verify.invariants.truth_inputs import boundary_inputs
from gpu_alloc_verify.verify.source.of_program import source_facts
from gpu_alloc_verify.verify.source.to_program import program_from_text
from tests.builders import decls_for, generic
from tests.soundness.test_adversarial import BUGS, BY_FILE, TWINS, _id, lane, sections

# Why execution may not decide a bug program (each must name one of these).
BLIND = ("@opaque", "external", "too large", "unsupported", "not a function", "races",
         "un-awaited", "does not run")


@cache
def _runs(file: str, name: str) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """(per input: (inputs, [invariant: what it shows]), reasons undecided)."""
    s = sections(file)
    program = program_from_text(s["source"])
    facts = source_facts(program)
    lowered = generic("module {\n" + s[name] + decls_for(s[name]) + "}\n")
    case = BY_FILE[file]
    targets = case.twin_targets if name.startswith("twin") else case.bug_targets
    shown: list[tuple[str, list[str]]] = []
    undecided: list[str] = []
    for fn in program.functions:
        for inputs in boundary_inputs(program, fn.name):
            ex = execute(program, lowered, fn.name, inputs, case.runtime)
            seen = []
            for inv in targets:
                if inv not in EXECUTION_DECIDED:
                    continue
                o = observe(inv, ex, facts)
                if not o.decided:
                    undecided.append(o.why_not)
                seen += [f"{inv}: {w}" for w in o.seen]
            shown.append((ex.show_inputs(facts), seen))
    return shown, undecided


@pytest.mark.parametrize("item", lane(TWINS), ids=_id)
def test_no_twin_is_broken_when_run(item: tuple[str, str]) -> None:
    shown, _ = _runs(*item)
    broken = [(inputs, seen) for inputs, seen in shown if seen]
    assert not broken, broken


# Bugs of what execution decides (a token left in a signature is a fact of
# the module text: no run shows it).
RUN_BUGS = [b for b in BUGS if set(BY_FILE[b[0]].bug_targets) & set(EXECUTION_DECIDED)]


@pytest.mark.parametrize("item", lane(RUN_BUGS), ids=_id)
def test_every_bug_is_broken_when_run_or_blind_for_a_known_reason(
        item: tuple[str, str]) -> None:
    shown, undecided = _runs(*item)
    if any(seen for _, seen in shown):
        return
    assert undecided, f"every run decided and none shows the bug: {shown}"
    unexplained = [w for w in undecided if not any(b in w for b in BLIND)]
    assert not unexplained, unexplained


def test_most_bugs_are_seen_by_execution() -> None:
    seen = [item for item in RUN_BUGS if any(s for _, s in _runs(*item)[0])]
    assert len(seen) >= 0.6 * len(RUN_BUGS), f"{len(seen)} of {len(RUN_BUGS)}"
