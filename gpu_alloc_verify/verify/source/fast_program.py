"""The generator's model of normalized generic text, read by the fast reader.

`verify.source.to_program.model_of` parses the text with xDSL (about 0.4 ms
an op, and printing each location back costs as much again) before its
`_Reader` walks it.  Here the same `_Reader` walks `verify.ir.fastparse`'s
IR instead (ten times cheaper), adapted where it asks more of an op than
that IR has (a block's last op, a dense array's values, a nested symbol
reference).  Only a complete reading is kept: wherever the fast reader
declines the text, or the walk stops on anything (outside the model, or a
constant the fast IR keeps as text it cannot read), the caller reads the
text with xDSL as before, so the answer is always `model_of`'s (and
`model_gap`'s).  `tests/campaign/test_report_cost.py` checks the two are
equal on every text a real report reads; `check` reads a user's file
this way (`verify.source.user_file`), triage and the lit tests their
recorded programs (`verify.triage.fast_model`).
"""

from __future__ import annotations

from typing import Any

from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.attrs import attr_of, int_tuple
from gpu_alloc_verify.verify.ir.fast_constants import constant
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.parse import parse
from gpu_alloc_verify.verify.model.errors import ReaderDeclined, SourceParseError
from gpu_alloc_verify.verify.model.kernels import KernelRef
from gpu_alloc_verify.verify.model.program import Op, Program
from gpu_alloc_verify.verify.source.to_program import KERNELS_BY_NAME, _parse_generic, _remember
from gpu_alloc_verify.verify.source.to_program import _Reader as _XdslReader


class _FastReader(_XdslReader):
    """`to_program._Reader` on fastparse's ops; differs only where the
    objects do, and declines (`ReaderDeclined`: xDSL reads the text)
    wherever unsure.  A `SourceParseError` is the model reader's own
    answer on the same ops: the text is outside the model."""

    def op(self, op: Any) -> Op | None:
        # A float constant stays text in fastparse's IR: its value as xDSL
        # keeps it (rounded to its type, `verify.ir.fast_constants`); any
        # other text (dense, bf16, ...) is left to xDSL.
        if op_name(op) == "arith.constant":
            attr = attr_of(op, "value")
            if isinstance(attr, fastparse.OpaqueAttr):
                value = constant(attr)  # raises where not a float it reads
                if not isinstance(value, float):
                    raise ReaderDeclined("constant not read")
                self.consts[op.results[0]] = value
                return None
            if not isinstance(attr, fastparse.IntegerAttr):
                raise ReaderDeclined("constant not read")
        return super().op(op)

    def last_op(self, block: Any) -> Any:
        # xDSL's `block.last_op`: fastparse's blocks keep a list of ops.
        return block.ops[-1] if block.ops else None

    def int_values(self, op: Any, attr: Any) -> list[int]:
        # xDSL's `DenseArrayBase.get_values()`; fastparse's `as_tuple()`.
        values = int_tuple(attr)
        if values is None:
            raise ReaderDeclined("operand segments not read")
        return list(values)

    def launched(self, op: Any) -> KernelRef:
        # xDSL's SymbolRefAttr has `nested_references`; fastparse keeps the text.
        sym = attr_of(op, "kernel")
        if not isinstance(sym, fastparse.SymbolRefAttr):
            raise ReaderDeclined("kernel reference not read")
        parts = sym.text.split("::")
        names = [p[1:] for p in parts]
        if any(n.startswith('"') for n in names):  # quoted: left to xDSL
            raise ReaderDeclined("quoted kernel reference")
        if names[0] != "kernels" or len(names) != 2 or names[1] not in self.kernels:
            raise self.fail(op, f"gpu.launch_func of {sym} is not modelled")
        return self.kernels[names[1]]


def fast_model(generic: str, name: str, file_ids: bool = True) -> Program | None:
    """The model of normalized generic text by the fast reader; None where it
    declines the text or the walk stops (then xDSL's reading decides)."""
    try:
        module = parse(generic, reader="fast")
        program = _FastReader(name, file_ids).module(module)
    except Exception:  # declined or outside the model: xDSL decides
        return None
    if KERNELS_BY_NAME in program.tags:
        _remember(program, generic)  # as `to_program._parse_generic` does
    return program


def model_of(generic: str, name: str) -> Program | None:
    """`to_program.model_of(generic, name)`, by the fast reader where it
    reads the whole text.  Where the fast reader reads the ops but the model
    reader stops on one (an op or type outside the model), xDSL's objects
    would stop it at the same op: None without parsing the text again
    (`tests/source/test_fast_program.py` checks the two readers agree)."""
    try:
        module = parse(generic, reader="fast")
        program = _FastReader(name, True).module(module)
    except SourceParseError:
        return None  # outside the model, as xDSL's reading says too
    except Exception:  # declined or unsure: xDSL decides
        try:
            return _parse_generic(generic, name, file_ids=True)
        except Exception:  # outside the model, whatever the reader tripped on
            return None
    if KERNELS_BY_NAME in program.tags:
        _remember(program, generic)
    return program
