"""The value of a constant attribute as `verify.ir.fastparse` reads it.

Integers are kept modulo their width and floats rounded to their type's
precision, as xDSL keeps them.  Both the model reader of a user's file
(`verify.source.fast_program`) and the interpreters' fast IR
(`oracles.fast_ir`) ask for it, so it sits with the reader.
"""

from __future__ import annotations

import struct

from gpu_alloc_verify.verify.ir.fastparse import FastAttribute, IntegerAttr, OpaqueAttr
from gpu_alloc_verify.verify.ir.fastparse import Unsupported as FastUnsupported

SCALAR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "index": 8,
                "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
FLOAT_FMT = {"f16": "<e", "f32": "<f", "f64": "<d"}


def constant(attr: FastAttribute) -> int | float:
    """The value of a constant attribute; `FastUnsupported` where the text is
    not an integer or a float of a type it knows."""
    if isinstance(attr, IntegerAttr):
        type_ = attr.type
        if type_ == "index" or (type_[:1] == "i" and type_[1:].isdecimal()):
            bits = 64 if type_ == "index" else int(type_[1:])
            return int(attr.value.data) & ((1 << bits) - 1)
    if isinstance(attr, OpaqueAttr):
        value, _, type_ = attr.text.rpartition(":")
        value, type_ = value.strip(), type_.strip()
        fmt = FLOAT_FMT.get(type_)
        if fmt is not None:
            try:
                if value.lower().startswith("0x"):
                    raw = int(value, 16).to_bytes(SCALAR_BYTES[type_], "little")
                    return struct.unpack(fmt, raw)[0]
                return struct.unpack(fmt, struct.pack(fmt, float(value)))[0]
            except (ValueError, OverflowError, struct.error):
                pass
    raise FastUnsupported(f"constant {attr}")
