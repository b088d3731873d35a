"""A lit test's FileCheck lines before they are written: directives per
function, some marked as the defect, and what must hold on the buggy output
(the witness) for the test to pin a real defect (`repro.proof`)."""

from __future__ import annotations

from dataclasses import dataclass, field

VAR = "[0-9a-zA-Z_]+"  # an SSA name without its '%', as FileCheck captures it


@dataclass
class Directive:
    kind: str  # "" (CHECK), "NOT"
    pattern: str
    defect: bool = False
    comment: str = ""  # a comment line written above it
    # The source op (location id) whose lowering it pins; `^op3`: the branch
    # or loop around op3.
    at: str | None = None

    def negated(self) -> Directive:
        return Directive("" if self.kind == "NOT" else "NOT", self.pattern, self.defect,
                         at=self.at)


@dataclass
class Plan:
    name: str
    lines: dict[str, list[Directive]] = field(default_factory=dict)  # function -> lines
    # What must hold on the buggy output for the defect to be there; None:
    # the plan with each defect line negated.
    witness: dict[str, list[Directive]] | None = None

    def add(self, func: str, *ds: Directive) -> Plan:
        self.lines.setdefault(func, []).extend(ds)
        return self

    def has_defect(self) -> bool:
        return any(d.defect for ds in self.lines.values() for d in ds)
