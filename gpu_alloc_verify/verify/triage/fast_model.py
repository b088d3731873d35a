"""The generator's model of recorded programs, read by the fast reader.

Triage and the lit tests of a report read hundreds of recorded and reduced
programs; each is read by `verify.source.fast_program` (fastparse's IR
walked by the model reader) where it reads the whole text, else by xDSL as
`verify.source.to_program` does, so the answer is always `model_of`'s (and
`model_gap`'s).  `READS` counts which reader read each text
(`tests/campaign/test_report_cost.py` checks the two agree and counts).
"""

from __future__ import annotations

from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.source.fast_program import fast_model
from gpu_alloc_verify.verify.source.text import normalize
from gpu_alloc_verify.verify.source.to_program import _parse_generic
from gpu_alloc_verify.verify.tools.commands import default_reader

# How many texts each reader read (what `tests/campaign/test_report_cost.py` counts).
READS = {"fast": 0, "xdsl": 0}


def _fast(generic: str, name: str, file_ids: bool = True) -> Program | None:
    return fast_model(generic, name, file_ids)


def read_model(generic: str, name: str) -> tuple[Program | None, str | None]:
    """`to_program.model_of(generic, name)`, by the fast reader where it
    reads the whole text; and, where it is None, `model_gap`'s answer (from
    the same xDSL reading)."""
    program = _fast(generic, name)
    if program is not None:
        READS["fast"] += 1
        return program, None
    READS["xdsl"] += 1
    try:  # as `model_of` and `model_gap` do, in one parse
        return _parse_generic(generic, name, file_ids=True), None
    except SourceParseError as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 - any reason is the answer asked for
        return None, f"{name}: {type(e).__name__}: {e}"


def read_program(text: str, name: str = "<input>") -> Program:
    """`to_program.program_from_text(text, name)` (the same normalization
    by the newest mlir-opt, the same errors), by the fast reader where it
    reads the whole text."""
    tool = default_reader()
    generic = normalize(text, name, tool) if tool else text
    program = _fast(generic, name, file_ids=False)
    if program is not None:
        READS["fast"] += 1
        return program
    READS["xdsl"] += 1
    return _parse_generic(generic, name)
