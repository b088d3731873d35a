"""A fast printer of xDSL IR in the generic form, with locations.

It prints exactly what `xdsl.printer.Printer(print_generic_format=True,
print_debuginfo=True).print_op` prints (SSA names from name hints with the
same `_N` suffixes and numbering, the same scoping at `IsolatedFromAbove`
ops, the same layout), in a fraction of the time: attributes are printed
by xDSL itself, once per distinct attribute, and only the op structure is
printed here.  IR outside what it handles (successors, unregistered ops,
named blocks) raises `Unhandled`; `print_generic` then uses xDSL's printer.
`tests/lowerings/test_xdsl_lowerings.py` checks the two agree on every lowering.
"""

from __future__ import annotations

import io

from xdsl.dialects.builtin import FunctionType, UnitAttr, UnregisteredOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.mlir_lexer import MLIRLexer

from gpu_alloc_verify.verify.lowerings import xdsl_private

__all__ = ["Unhandled", "attribute_text", "print_generic", "xdsl_print_generic"]


class Unhandled(Exception):
    """IR this printer does not print (xDSL's printer does)."""


def xdsl_print_generic(op: Operation) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(op)
    return out.getvalue()


# Attribute text, by identity (the lowerings reuse attribute objects) and
# then by value (attributes are immutable and compare structurally, floats
# bit for bit, so equal attributes print alike).
_BY_ID: dict[int, tuple[Attribute, str]] = {}
_BY_VALUE: dict[Attribute, str] = {}
_MEMO_LIMIT = 100_000


def attribute_text(attr: Attribute) -> str:
    hit = _BY_ID.get(id(attr))
    if hit is not None and hit[0] is attr:
        return hit[1]
    text = _BY_VALUE.get(attr)
    if text is None:
        out = io.StringIO()
        Printer(stream=out).print_attribute(attr)
        text = out.getvalue()
        if len(_BY_VALUE) >= _MEMO_LIMIT:
            _BY_VALUE.clear()
        _BY_VALUE[attr] = text
    if len(_BY_ID) >= _MEMO_LIMIT:
        _BY_ID.clear()
    _BY_ID[id(attr)] = (attr, text)
    return text


_KEYS: dict[str, str] = {}


def _key_text(key: str) -> str:
    text = _KEYS.get(key)
    if text is None:
        if MLIRLexer.bare_identifier_regex.fullmatch(key) is not None:
            text = key
        else:
            out = io.StringIO()
            Printer(stream=out).print_string_literal(key)
            text = out.getvalue()
        _KEYS[key] = text
    return text


def _entries_text(attrs: dict[str, Attribute]) -> str:
    return ", ".join([
        _key_text(k) if isinstance(v, UnitAttr) else f"{_key_text(k)} = {attribute_text(v)}"
        for k, v in attrs.items()
    ])


# Texts keyed by the identities of what they print (kept alive alongside,
# so that an id is never reused while it is a key).
_DICTS: dict[tuple[tuple[str, ...], tuple[int, ...]], tuple[tuple[Attribute, ...], str]] = {}
_SIGNATURES: dict[tuple[int, ...], tuple[tuple[Attribute, ...], str]] = {}


def _dict_text(attrs: dict[str, Attribute]) -> str:
    values = tuple(attrs.values())
    key = (tuple(attrs), tuple(map(id, values)))
    hit = _DICTS.get(key)
    if hit is None:
        if len(_DICTS) >= _MEMO_LIMIT:
            _DICTS.clear()
        hit = _DICTS[key] = (values, _entries_text(attrs))
    return hit[1]


def _signature_text(operand_types: tuple[Attribute, ...],
                    result_types: tuple[Attribute, ...]) -> str:
    """`(operand types) -> results`, as `Printer.print_function_type`."""
    types = (*operand_types, *result_types)
    key = (len(operand_types), *map(id, types))
    hit = _SIGNATURES.get(key)
    if hit is None:
        text = "(" + ", ".join([attribute_text(t) for t in operand_types]) + ") -> "
        if not result_types:
            text += "()"
        elif len(result_types) == 1:
            t = result_types[0]
            text += f"({attribute_text(t)})" if isinstance(t, FunctionType) \
                else attribute_text(t)
        else:
            text += "(" + ", ".join([attribute_text(t) for t in result_types]) + ")"
        if len(_SIGNATURES) >= _MEMO_LIMIT:
            _SIGNATURES.clear()
        hit = _SIGNATURES[key] = (types, text)
    return hit[1]


# Per op class: None (not printed here: unregistered) or whether it opens
# a naming scope (IsolatedFromAbove), as `Printer.print_op` decides.
_SCOPED: dict[type[Operation], bool | None] = {}


def _scoped(op: Operation) -> bool | None:
    cls = type(op)
    try:
        return _SCOPED[cls]
    except KeyError:
        scoped = None if isinstance(op, UnregisteredOp) else \
            bool(op.get_traits_of_type(IsolatedFromAbove))
        _SCOPED[cls] = scoped
        return scoped


class _Printer:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.values: dict[SSAValue, str] = {}
        self.hints: dict[str, int] = {}
        self.next_id = 0

    def name(self, value: SSAValue) -> str:
        """`%name`, assigned on first sight as `Printer.print_ssa_value` does."""
        name = self.values.get(value)
        if name is not None:
            return name
        hint = xdsl_private.name_hint(value)
        if hint:
            n = self.hints.get(hint, 0)
            name = f"%{hint}_{n}" if n else f"%{hint}"
            self.hints[hint] = n + 1
        else:
            name = f"%{self.next_id}"
            self.next_id += 1
        self.values[value] = name
        return name

    def op(self, op: Operation, indent: int) -> None:
        scoped = _scoped(op)
        if scoped is None or xdsl_private.has_successors(op):
            raise Unhandled(op.name)
        out = self.out
        name = self.name
        results = op.results
        if results:
            out.append(", ".join([name(r) for r in results]) + " = ")
        if scoped:
            saved = (self.next_id, self.hints)
            self.hints = dict(self.hints)
        operands = xdsl_private.operand_values(op)
        head = f'"{op.name}"(' + ", ".join([name(v) for v in operands]) + ")"
        if op.properties:
            head += f" <{{{_dict_text(op.properties)}}}>"
        out.append(head)
        if op.regions:
            out.append(" (")
            for i, region in enumerate(op.regions):
                if i:
                    out.append(", ")
                self.region(region, indent)
            out.append(")")
        signature = _signature_text(tuple([v.type for v in operands]),
                                    tuple([r.type for r in results]))
        location = attribute_text(op.location)
        if op.attributes:
            out.append(f" {{{_dict_text(op.attributes)}}} : {signature} {location}")
        else:
            out.append(f" : {signature} {location}")
        if scoped:
            self.next_id, self.hints = saved

    def region(self, region: Region, indent: int) -> None:
        out = self.out
        out.append("{")
        entry = region.first_block
        if entry is None:
            out.append("\n" + "  " * indent + "}")
            return
        block: Block | None = entry
        index = 0
        while block is not None:
            if block.name_hint:
                raise Unhandled("named block")
            self.block(block, index, indent,
                       block is not entry or bool(block.args) or block.first_op is None)
            block = block.next_block
            index += 1
        out.append("\n" + "  " * indent + "}")

    def block(self, block: Block, index: int, indent: int, label: bool) -> None:
        out = self.out
        if label:
            text = f"\n{'  ' * indent}^bb{index}"
            if block.args:
                text += "(" + ", ".join([
                    f"{self.name(a)}: {attribute_text(a.type)} {attribute_text(a.location)}"
                    for a in block.args
                ]) + ")"
            out.append(text + ":")
        newline = "\n" + "  " * (indent + 1)
        op = block.first_op
        while op is not None:
            out.append(newline)
            self.op(op, indent + 1)
            op = op.next_op


def print_generic(op: Operation) -> str:
    """`op` in the generic form with locations, as xDSL prints it."""
    if not xdsl_private.RAW_OPS:
        return xdsl_print_generic(op)
    printer = _Printer()
    try:
        printer.op(op, 0)
    except Unhandled:
        return xdsl_print_generic(op)
    return "".join(printer.out)
