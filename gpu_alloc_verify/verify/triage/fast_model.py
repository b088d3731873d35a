"""The generator's model of normalized generic text, read by the fast reader.

`verify.source.to_program.model_of` parses the text with xDSL (10-40 ms a
module) before its `_Reader` walks it; triage and the lit tests of a report
read hundreds of recorded and reduced programs that way.  Here the same
`_Reader` walks `verify.ir.fastparse`'s IR instead (about 1 ms), adapted
where it asks more of an op than that IR has (a block's last op, a dense
array's values, a nested symbol reference).  Only a complete reading is
kept: wherever the fast reader declines the text, or the walk stops on
anything (outside the model, or a constant the fast IR keeps as text, such
as a float), the text is read by `model_of` as before, so the answer is
always `model_of`'s (and `model_gap`'s).  `tests/campaign/test_report_cost.py`
checks the two are equal on every text a real report reads.
"""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.oracles.fast_ir import constant as fast_constant
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.attrs import attr_of, int_tuple
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.parse import parse
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.kernels import KernelRef
from gpu_alloc_verify.verify.model.program import Op, Program
from gpu_alloc_verify.verify.source.text import normalize
from gpu_alloc_verify.verify.source.to_program import (
    KERNELS_BY_NAME,
    _parse_generic,
    _remember,
)
from gpu_alloc_verify.verify.source.to_program import _Reader as _XdslReader
from gpu_alloc_verify.verify.tools.commands import default_reader

# How many texts each reader read (what `tests/campaign/test_report_cost.py` counts).
READS = {"fast": 0, "xdsl": 0}


class _FastReader(_XdslReader):
    """`to_program._Reader` on fastparse's ops; differs only where the
    objects do, and fails (so xDSL reads the text) wherever unsure."""

    def op(self, op: Any) -> Op | None:
        # A float constant stays text in fastparse's IR: its value as xDSL
        # keeps it (rounded to its type, `oracles.fast_ir.constant`); any
        # other text (dense, bf16, ...) is left to xDSL.
        if op_name(op) == "arith.constant":
            attr = attr_of(op, "value")
            if isinstance(attr, fastparse.OpaqueAttr):
                value = fast_constant(attr)  # raises where not a float it reads
                if not isinstance(value, float):
                    raise self.fail(op, "constant not read")
                self.consts[op.results[0]] = value
                return None
            if not isinstance(attr, fastparse.IntegerAttr):
                raise self.fail(op, "constant not read")
        return super().op(op)

    def last_op(self, block: Any) -> Any:
        # xDSL's `block.last_op`: fastparse's blocks keep a list of ops.
        return block.ops[-1] if block.ops else None

    def int_values(self, op: Any, attr: Any) -> list[int]:
        # xDSL's `DenseArrayBase.get_values()`; fastparse's `as_tuple()`.
        values = int_tuple(attr)
        if values is None:
            raise self.fail(op, "operand segments not read")
        return list(values)

    def launched(self, op: Any) -> KernelRef:
        # xDSL's SymbolRefAttr has `nested_references`; fastparse keeps the text.
        sym = attr_of(op, "kernel")
        if not isinstance(sym, fastparse.SymbolRefAttr):
            raise self.fail(op, "kernel reference not read")
        parts = sym.text.split("::")
        names = [p[1:] for p in parts]
        if any(n.startswith('"') for n in names):  # quoted: left to xDSL
            raise self.fail(op, "quoted kernel reference")
        if names[0] != "kernels" or len(names) != 2 or names[1] not in self.kernels:
            raise self.fail(op, f"gpu.launch_func of {sym} is not modelled")
        return self.kernels[names[1]]


def _fast(generic: str, name: str, file_ids: bool = True) -> Program | None:
    try:
        module = parse(generic, reader="fast")
        program = _FastReader(name, file_ids).module(module)
    except Exception:  # declined or outside the model: xDSL decides
        return None
    if KERNELS_BY_NAME in program.tags:
        _remember(program, generic)  # as `to_program._parse_generic` does
    return program


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
