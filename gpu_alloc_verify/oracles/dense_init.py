"""The bytes a global's `dense<...>` initializer gives its buffer.

Both interpreters read a global's initial value from its printed form (the
source's `memref.global` and the lowered `llvm.mlir.global` print the same
`dense<...> : tensor<...>` text, in xDSL's and the fast reader's models
alike), so one reader serves both sides: a difference between them is then
the lowering's, never two readers'.
"""

from __future__ import annotations

import re
from math import prod

from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES
from gpu_alloc_verify.oracles.kernel_interp import FLOAT_BITS, encode_element
from gpu_alloc_verify.verify.ir.text import dense_literal
from gpu_alloc_verify.verify.model.errors import InterpreterDeclined

_NUMBER = re.compile(r"true|false|[-+]?0x[0-9a-fA-F]+|[-+]?(?:inf|nan)"
                     r"|[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?")


def shape_of(tensor: str) -> tuple[tuple[int, ...], str]:
    """(`4x5`, `f32`) of the body of `tensor<4x5xf32>`."""
    *dims, elem = [p.strip() for p in tensor.split("x")]
    if not all(d.isdigit() for d in dims):
        raise InterpreterDeclined(f"a global of shape tensor<{tensor}>")
    return tuple(int(d) for d in dims), elem


def _element(token: str, elem: str) -> bytes:
    width = ELEM_BYTES[elem]
    if token in ("true", "false"):
        return int(token == "true").to_bytes(width, "little")
    if token.lower().lstrip("+-").startswith("0x"):
        # A float printed by its bit pattern (NaN payloads, infinities): the
        # bits as they are, never through a float (which would canonicalize NaN).
        return (int(token, 16) & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
    if elem in FLOAT_BITS:
        return encode_element(float(token), elem)
    if not re.fullmatch(r"[-+]?[0-9]+", token):
        raise InterpreterDeclined(f"integer element {token!r}")
    return encode_element(int(token), elem)


def dense_bytes(text: str) -> bytes:
    """The buffer bytes of a `dense<...> : tensor<...>` attribute's text
    (a splat, nested lists, or a hex string of the raw bytes)."""
    parts = dense_literal(text)
    if parts is None:
        raise InterpreterDeclined(f"a global initialized with {text[:80]}")
    body, (shape, elem) = parts[0].strip(), shape_of(parts[1])
    if elem not in ELEM_BYTES:
        raise InterpreterDeclined(f"a global of element type {elem}")
    n, width = prod(shape), ELEM_BYTES[elem]
    if body.startswith('"0x'):  # MLIR's hex form: the raw little-endian bytes
        raw = bytes.fromhex(body[3:-1])
        if len(raw) == width:
            return raw * n
        if len(raw) != n * width:
            raise InterpreterDeclined(f"a hex initializer of {len(raw)} bytes for {n} elements")
        return raw
    tokens = _NUMBER.findall(body)
    if body.startswith("(") or len(tokens) not in (1, n) or (len(tokens) == 1 and n != 1
                                                              and body.startswith("[")):
        raise InterpreterDeclined(f"a global initialized with {text[:80]}")
    values = [_element(t, elem) for t in tokens]
    return values[0] * n if len(values) == 1 else b"".join(values)  # a splat, or each
