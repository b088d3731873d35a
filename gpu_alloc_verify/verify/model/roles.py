"""The roles of a violation: which source ops (and handle kinds) play which
part in it, as the checker that found it knows them.

A violation's `detail` is for people; triage, `repro/` and reports read the
roles instead, so a reworded sentence changes nothing they decide.  The
roles travel inside the violation's counterexample (the `--json` shape and
results files keep one flat dict), each under its field's name; a record
written before a role existed simply lacks it (the field is None).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Roles:
    """Source op ids (`op3`, `k.mlir:3:5`) and kinds a checker names."""

    # the op a violation is about: the creator of a leaked handle, a sync
    # alloc given a stream, the op left unconverted, the call given a bad handle
    source_op: str | None = None
    kind: str | None = None  # the handle's kind: "stream" or "event"
    handle_from: str | None = None  # the op that created the handle
    destroy_from: str | None = None  # the op whose call destroyed it
    use_from: str | None = None  # the op whose call used it afterwards
    destroy_count: int | None = None  # how often a leaked handle is destroyed
    left: str | None = None  # the op name left in lowered code (`gpu.wait`)
    given: str | None = None  # the handle kind a runtime call is given...
    expected: str | None = None  # ...and the one it expects
    # async-order: the op whose work must end first, the one that may start
    # before it ends, why they are ordered ("token", "wait", "host") and the
    # host wait making the order (for "wait")
    earlier: str | None = None
    later: str | None = None
    edge_kind: str | None = None
    awaited_by: str | None = None
    # lowering-no-crash on invalid IR: the verifier's complaint and the
    # source location it names
    error: str | None = None
    error_at: str | None = None

    def entries(self) -> dict[str, object]:
        """The roles set, for a counterexample (names as the fields)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Roles:
        """The roles of a violation record (`--json` shape); a role absent
        or of the wrong type (an older results file) is None."""
        cex = record.get("counterexample")
        return cls.from_counterexample(cex if isinstance(cex, Mapping) else {})

    @classmethod
    def from_counterexample(cls, cex: Mapping[str, Any]) -> Roles:
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = cex.get(f.name)
            if f.name == "destroy_count":
                ok = isinstance(value, int) and not isinstance(value, bool)
            else:
                ok = isinstance(value, str) and value != ""
            values[f.name] = value if ok else None
        return cls(**values)
