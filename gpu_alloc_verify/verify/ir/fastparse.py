"""A fast reader of the generic-form MLIR the lowerings print.

`mlir-opt --mlir-print-op-generic --mlir-print-debuginfo
--mlir-print-local-scope` and the xDSL lowerings print one op per line:

    %r:2 = "d.op"(%a, %b#1) [^bb1] <{props}> ({regions}) {attrs} : (T, T) -> (T, U) loc(L)

Reading that with xDSL's general parser costs ~10 ms per module (every type
and attribute becomes an object and is verified).  `verify.extract.calls` needs
far less: op names, operands, results and their types as text, regions,
blocks with arguments, successors, a few attributes (`callee`, `value`,
`sym_name`, `operandSegmentSizes`, ...) and the location.  This module reads
exactly that into small objects that duck-type the parts of xDSL's
`Operation`, `Region`, `Block` and `SSAValue` that `extract` walks, and reads
attribute dictionaries only when one is asked for.

The rule: a construct is read exactly as xDSL's parser reads it, or the
reader raises `Unsupported` (and `verify.ir.parse.parse` falls back to
xDSL); never a different reading.  It reads token by token, as xDSL's
lexer does: whitespace, newlines and `//` comments may stand between any two
tokens of the op structure.  Types, and attribute values `extract` does not
look into, stay the text printed (a type over several lines is declined).
A location is kept as the text xDSL prints for
it (`str(op.location)`: `loc(unknown)` when the op has none); name, file,
call-site locations and fused ones inside them are read, a fused location
at the top is not (declined since the text readers of locations did not
look inside one; `verify.ir.locations` now does, as for xDSL's object).
Declined: aliases (`#loc`, `#map`), escapes or non-ASCII text in
locations, string escapes that xDSL reads as bytes, `//` inside an
attribute dictionary or a type (xDSL keeps it as text in an unregistered
dialect's attribute), function-typed block arguments, attribute values it
does not model (float or i1 dense arrays, ...: when the dictionary is asked
for), custom-form ops, resources, and text xDSL would reject that this
reader can tell (operand and result counts, duplicate keys, names).
`tests/ir/test_fastparse_equivalence.py` checks that `extract` gives the
same facts on both parses of real lowered text, and
`tests/ir/test_reader_mutations.py` on meaning-preserving rewrites of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TypeAlias

from gpu_alloc_verify.verify.model.errors import ReaderDeclined

# Text outside the subset this reader handles: the caller uses the xDSL parser.
Unsupported = ReaderDeclined


UNKNOWN_LOC = "loc(unknown)"

# -- IR objects ----------------------------------------------------------------


class Value:
    """An SSA value: an op result or a block argument; `type` is its type's text."""

    __slots__ = ("name", "type")

    def __init__(self, name: str, type_: str = "") -> None:
        self.name = name
        self.type = type_

    def __repr__(self) -> str:
        return f"<{self.name}: {self.type}>"


class Block:
    __slots__ = ("label", "args", "ops", "defined")

    def __init__(self, label: str | None) -> None:
        self.label = label
        self.args: list[Value] = []
        self.ops: list[Op] = []
        self.defined = False

    def __repr__(self) -> str:
        return f"<block ^{self.label}, {len(self.ops)} ops>"


class Region:
    __slots__ = ("blocks",)

    def __init__(self) -> None:
        self.blocks: list[Block] = []

    @property
    def block(self) -> Block:
        return self.blocks[0]


# Attribute dictionaries read, by their text: lowered modules repeat the same
# few (`callee = @mgpuStreamCreate, ...`, `value = 0 : i64`) many times.
_DICTS: dict[str, dict[str, FastAttribute]] = {}
_DICTS_MAX = 8192


def _read_dict(text: str | None) -> dict[str, FastAttribute]:
    """The dictionary of `text`: a fresh one for each op, whose attribute
    objects (never changed by their readers) may be shared with other ops."""
    if not text:
        return {}
    read = _DICTS.get(text)
    if read is None:
        try:
            read = parse_attr_dict(text)
        except (ValueError, IndexError, OverflowError) as e:
            raise Unsupported(f"attribute dictionary {text!r}: {type(e).__name__}: {e}") from e
        if len(_DICTS) >= _DICTS_MAX:
            _DICTS.clear()
        _DICTS[text] = read
    return dict(read)


class Op:
    """An operation; `properties` and `attributes` are read when first asked for
    (`Unsupported` then, where one holds a value this reader does not read)."""

    __slots__ = ("name", "operands", "results", "regions", "successors", "location",
                 "_props_text", "_attrs_text", "_props", "_attrs")

    def __init__(self, name: str) -> None:
        self.name = name
        self.operands: list[Value] = []
        self.results: list[Value] = []
        self.regions: list[Region] = []
        self.successors: list[Block] = []
        self.location: str = UNKNOWN_LOC  # as xDSL prints it
        self._props_text: str | None = None
        self._attrs_text: str | None = None
        self._props: dict[str, FastAttribute] | None = None
        self._attrs: dict[str, FastAttribute] | None = None

    @property
    def properties(self) -> dict[str, FastAttribute]:
        if self._props is None:
            self._props = _read_dict(self._props_text)
        return self._props

    @property
    def attributes(self) -> dict[str, FastAttribute]:
        if self._attrs is None:
            self._attrs = _read_dict(self._attrs_text)
        return self._attrs

    @property
    def body(self) -> Region:
        return self.regions[0]

    def walk(self) -> Iterator[Op]:
        yield self
        for region in self.regions:
            for block in region.blocks:
                for op in block.ops:
                    yield from op.walk()

    def __repr__(self) -> str:
        return f"<{self.name}>"


# -- strings, as xDSL's lexer reads and its printer prints them ---------------------

# xDSL's string token (`xdsl.utils.mlir_lexer`): escapes \" \n \t \\ and two hex digits.
_STRING_AT = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
_ESCAPE = re.compile(r'\\(["nt\\]|[0-9A-Fa-f]{2})')
_ESCAPES = {'"': '"', "n": "\n", "t": "\t", "\\": "\\"}
_PLAIN = re.compile(r'[ !#-\[\]-~]*')  # printable ASCII but `"` and `\`: printed as is


def string_value(literal: str) -> str:
    """The text of a string literal (quotes included) as xDSL reads it into a
    `StringAttr`; `Unsupported` where xDSL reads bytes (non-ASCII escapes) or
    rejects it."""
    if _STRING_AT.fullmatch(literal) is None:
        raise Unsupported(f"string {literal}")
    body = literal[1:-1]
    if "\\" not in body:
        return body
    value = _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1)) or chr(int(m.group(1), 16)), body)
    if not value.isascii():
        raise Unsupported(f"string {literal}: xDSL reads bytes")
    return value


def quote(data: str) -> str:
    """`data` as xDSL prints a string literal."""
    if _PLAIN.fullmatch(data) is not None:
        return f'"{data}"'
    out: list[str] = []
    for byte in data.encode():
        if byte == 0x5C:
            out.append("\\\\")
        elif byte < 0x20 or byte > 0x7E or byte == 0x22:
            out.append(f"\\{byte:02X}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'


# -- attributes (only the kinds extract reads; everything else stays text) --------


class StrAttr:
    __slots__ = ("data",)

    def __init__(self, data: str) -> None:
        self.data = data

    def __str__(self) -> str:
        return quote(self.data)

    __repr__ = __str__


class SymbolRefAttr:
    __slots__ = ("root_reference", "text")

    def __init__(self, root: str, text: str) -> None:
        self.root_reference = StrAttr(root)
        self.text = text

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


class IntData:
    __slots__ = ("data",)

    def __init__(self, data: int) -> None:
        self.data = data


class IntegerAttr:
    __slots__ = ("value", "type")

    def __init__(self, value: int, type_: str) -> None:
        self.value = IntData(value)
        self.type = type_

    def __str__(self) -> str:
        return f"{self.value.data} : {self.type}"

    __repr__ = __str__


class DenseArrayAttr:
    __slots__ = ("values", "text")

    def __init__(self, values: tuple[int, ...], text: str) -> None:
        self.values = values
        self.text = text

    def as_tuple(self) -> tuple[int, ...]:
        return self.values

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


class OpaqueAttr:
    """An attribute `extract` never looks into: kept as text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__


# The attribute objects `attribute` gives (`verify.ir.protocols.IRAttribute`:
# either reader's).
FastAttribute: TypeAlias = StrAttr | SymbolRefAttr | IntegerAttr | DenseArrayAttr | OpaqueAttr


# An integer literal (`- 1` too: xDSL's sign is a token of its own) and its type.
_INT_ATTR = re.compile(r"(-?)\s*(0x[0-9a-fA-F]+|[0-9]+)(?:\s*:\s*(index|[su]?i[0-9]+))?", re.A)
# A float, or an integer literal of a type that is not an integer type: xDSL
# reads a float (or rejects it); extract reads no number from either.
_FLOAT_ATTR = re.compile(
    r"-?\s*(?:[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?(?:\s*:\s*[A-Za-z_][\w$.]*)?"
    r"|(?:0x[0-9a-fA-F]+|[0-9]+)\s*:\s*(?:f[0-9]+\w*|bf16|tf32))", re.A)
_SYM = r'(?:[A-Za-z_][\w$.]*|"[^"\\\n\v\f]*")'
_SYMREF = re.compile(rf"@({_SYM})((?:::@{_SYM})*)", re.A)
_ARRAY = re.compile(r"array<\s*([su]?i[0-9]+)\s*(?::([-\d\s,]*))?>", re.A)


def _normalized(value: int, type_: str) -> int:
    """The value as xDSL's IntegerAttr keeps it: signless and signed integers
    in the signed range; out of range is xDSL's to reject."""
    if type_ == "index":
        return value
    if type_.startswith("ui"):
        if not 0 <= value < 1 << int(type_[2:]):
            raise Unsupported(f"{value} out of range for {type_}")
        return value
    width = int(type_.lstrip("si"))
    if width < 1:
        raise Unsupported(f"integer type {type_}")
    high = 1 << (width - 1) if type_.startswith("si") else 1 << width
    if not -(1 << (width - 1)) <= value < high:
        raise Unsupported(f"{value} out of range for {type_}")
    return value - (1 << width) if value >= 1 << (width - 1) else value


def attribute(text: str) -> FastAttribute:
    """One attribute value, as the small object `extract` can read."""
    text = text.strip()
    if not text:
        raise Unsupported("attribute without a value")
    if text in ("true", "false"):
        return IntegerAttr(_normalized(int(text == "true"), "i1"), "i1")
    c = text[:1]
    if c == "@":
        m = _SYMREF.fullmatch(text)
        if m is None:
            raise Unsupported(f"symbol reference {text}")
        root = m.group(1).strip('"')
        return SymbolRefAttr(root, text)
    if c == '"':
        return StrAttr(string_value(text))
    if c == "-" or c.isdigit():
        m = _INT_ATTR.fullmatch(text)
        if m is None:
            if _FLOAT_ATTR.fullmatch(text) is None:
                raise Unsupported(f"number {text}")
            return OpaqueAttr(text)
        type_ = m.group(3) or "i64"
        digits = m.group(2)
        value = int(digits, 16) if digits.startswith("0x") else int(digits, 10)
        return IntegerAttr(_normalized(-value if m.group(1) else value, type_), type_)
    if text.startswith("array<"):
        m = _ARRAY.fullmatch(text)
        if m is None:
            raise Unsupported(f"dense array {text}")  # floats, hex, i1: not modelled
        type_, body = m.group(1), (m.group(2) or "").strip()
        if type_ == "i1":
            raise Unsupported(f"dense array {text}")
        values = tuple(_normalized(int(v, 10), type_) for v in body.split(",")) if body else ()
        return DenseArrayAttr(values, text)
    return OpaqueAttr(text)


_KEY = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_$.]*|"[^"\\\n\v\f]*")\s*(=?)\s*', re.A)


def parse_attr_dict(text: str) -> dict[str, FastAttribute]:
    """`a = 1 : i64, b = @f, unit` (without the braces) to {name: attribute}."""
    out: dict[str, FastAttribute] = {}
    if not text.strip():
        return out
    pos, n = 0, len(text)
    while True:
        m = _KEY.match(text, pos)
        if m is None:
            raise Unsupported(f"attribute dictionary {text!r}")
        key = m.group(1)
        if key[0] == '"':
            key = key[1:-1]
        if key in out:
            raise Unsupported(f"attribute {key} given twice")  # xDSL rejects it
        pos = m.end()
        if m.group(2):
            end = _skip_value(text, pos)
            out[key] = attribute(text[pos:end])
        else:  # a unit attribute
            out[key] = OpaqueAttr("unit")
            end = pos
        if end >= n:
            return out
        if text[end] != ",":
            raise Unsupported(f"attribute dictionary {text!r}")
        pos = end + 1  # past the comma; a trailing comma finds no key


# -- scanning helpers ---------------------------------------------------------

_OPENERS = {"<": ">", "(": ")", "[": "]", "{": "}"}
_BRACKET = re.compile(r'->|[<>()\[\]{}",]')
_BRACE = re.compile(r'[{}"]')


def _skip_value(text: str, pos: int) -> int:
    """End of the attribute value or type starting at pos (a top-level comma or the end)."""
    return _skip_value_from(text, pos, 0)


def _skip_value_from(text: str, pos: int, depth: int) -> int:
    while True:
        m = _BRACKET.search(text, pos)
        if m is None:
            if depth:
                raise Unsupported("unbalanced brackets")
            return len(text)
        tok = m.group(0)
        pos = m.end()
        if tok == "->":
            continue
        if tok == '"':
            s = _STRING_AT.match(text, m.start())
            if s is None:
                raise Unsupported("unterminated string")
            pos = s.end()
        elif tok in _OPENERS:
            depth += 1
        elif tok == ",":
            if depth == 0:
                return m.start()
        else:
            depth -= 1
            if depth < 0:
                raise Unsupported("unbalanced brackets")


def split_top(text: str) -> list[str]:
    """Split a comma-separated list of types at its top-level commas."""
    parts: list[str] = []
    pos, n = 0, len(text)
    while pos <= n:
        end = _skip_value(text, pos)
        parts.append(text[pos:end].strip())
        pos = end + 1
    return parts


def split_list(text: str) -> list[str]:
    """The items of a comma-separated list (types, arguments, passes) at its
    top-level commas: none for blank text, and the whole text as one item
    where its brackets do not balance (the tool that reads it says why)."""
    if not text.strip():
        return []
    try:
        return split_top(text)
    except Unsupported:
        return [text.strip()]


def _match_brace(text: str, pos: int) -> int:
    """Index of the `}` closing the `{` at pos (strings skipped)."""
    depth = 0
    while True:
        m = _BRACE.search(text, pos)
        if m is None:
            raise Unsupported("unbalanced braces")
        c = m.group(0)
        if c == '"':
            s = _STRING_AT.match(text, m.start())
            if s is None:
                raise Unsupported("unterminated string")
            pos = s.end()
            continue
        pos = m.end()
        if c == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.start()


def _no_comment(span: str) -> str:
    """The span of an attribute dictionary or a type, where a `//` that is not
    in a string is declined: xDSL keeps it as text inside an unregistered
    dialect's attribute or type, skips it as a comment elsewhere."""
    if "//" in span and "//" in _STRING_AT.sub(" ", span):
        raise Unsupported(f"'//' inside {span.strip()[:40]!r}")
    return span


# -- the reader ---------------------------------------------------------------

# What xDSL's lexer skips between two tokens: whitespace and `//` comments.
_W = r"\s*+(?://[^\n]*\s*+)*+"
_WS = re.compile(_W, re.A)
_COMMENT = re.compile(r"//[^\n]*")
_ID = r"(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"  # xDSL's suffix-id
_RESULT = rf"%{_ID}(?:{_W}:{_W}[0-9]+)?"
_USE = rf"%{_ID}(?:#[0-9]+)?"
_HEAD = re.compile(
    rf'(?:({_RESULT}(?:{_W},{_W}{_RESULT})*){_W}={_W})?'
    rf'"([^"\\\n\v\f]+)"{_W}\(((?:{_W}{_USE}(?:{_W},{_W}{_USE})*)?{_W})\)', re.A)
_NEXT = re.compile(rf"{_W}(\[|<{_W}\{{|\({_W}\{{|\{{|:)", re.A)
_SUCCS = re.compile(rf"\[{_W}(\^{_ID}(?:{_W},{_W}\^{_ID})*){_W}\]", re.A)
_LABEL_REF = re.compile(rf"\^({_ID})", re.A)
_PROPS_END = re.compile(rf"\}}{_W}>", re.A)
_REGION_SEP = re.compile(rf"{_W}(,{_W}\{{|\))", re.A)
_ARROW = re.compile(rf"{_W}->{_W}", re.A)
_TYPE_ID = re.compile(r"!?[A-Za-z_][A-Za-z0-9_$.]*", re.A)  # a type's name, before any `<...>`
_LABEL = re.compile(rf"\^({_ID})", re.A)
_ARG = re.compile(rf"{_W}(%{_ID}){_W}:{_W}", re.A)
_OPEN_PAREN = re.compile(rf"{_W}\(", re.A)
_CLOSE_PAREN = re.compile(rf"{_W}\)", re.A)
_OPEN_SQUARE = re.compile(rf"{_W}\[", re.A)
_CLOSE_SQUARE = re.compile(rf"{_W}\]", re.A)
_ARG_SEP = re.compile(rf"{_W}([,)])", re.A)
_LIST_SEP = re.compile(rf"{_W}([,\]])", re.A)
_COLON = re.compile(rf"{_W}:", re.A)
_NOT_PLAIN = re.compile(r'[{"/]')
# Locations (xDSL's `_parse_location`); strings in them only printable ASCII
# without escapes, so that the text kept is the text xDSL prints.
_LOC_AT = re.compile(rf"{_W}loc{_W}\(", re.A)
_LOC_NAME = r'"[ !#-\[\]-~]*"'
_LINE_COL = r":(?:0|[1-9][0-9]*):(?:0|[1-9][0-9]*)"
_SIMPLE_LOC_TEXT = (  # the usual ones, as xDSL prints them
    rf"loc\((?:unknown|{_LOC_NAME}(?:{_LINE_COL}|\({_LOC_NAME}(?:{_LINE_COL})?\))?)\)")
_SIMPLE_LOC = re.compile(_SIMPLE_LOC_TEXT)
# An op's function type and location as printed: on one line, one space
# around `->`, types without strings, parentheses only inside `<...>`,
# `<...>` nested at most twice; `_ITEMS` splits its lists at top-level commas.
_ANGLE = r'<[^<>"/\n]*+(?:<[^<>"/\n]*+>[^<>"/\n]*+)*+>'
_LIST = rf'(?:[^()<>"/\n]++|{_ANGLE})*+'
_TAIL = re.compile(
    rf" \(({_LIST})\) -> (?:\(({_LIST})\)|(!?[A-Za-z_][A-Za-z0-9_$.]*(?:{_ANGLE})?)"
    rf"(?![\w$.<>]))(?: ({_SIMPLE_LOC_TEXT}))?", re.A)
_ITEMS = re.compile(rf"(?:[^,<>]++|{_ANGLE})++")
_LOC_ITEM = re.compile(rf'{_W}(?:(unknown|fused|callsite)(?![\w$.])|"([ !#-\[\]-~]*)")', re.A)
_LOC_LINE_COL = re.compile(rf"{_W}:{_W}([0-9]+){_W}:{_W}([0-9]+)", re.A)
_LOC_CALLER = re.compile(rf"{_W}at(?![\w$.])", re.A)


def _items(text: str) -> list[str]:
    """The types of a list `_TAIL` matched, split at top-level commas."""
    if not text or text.isspace():
        return []
    if "<" not in text:
        return text.split(",")
    items = _ITEMS.findall(text)
    if ",".join(items) != text:
        raise Unsupported(f"empty type in ({text})")
    return items


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.scopes: list[dict[str, list[Value]]] = []
        self.pending: dict[str, list[Value]] = {}

    # -- values ----------------------------------------------------------------
    def define(self, name: str, count: int) -> list[Value]:
        pack = self.pending.pop(name, None)
        if pack is None:
            pack = [Value(name if count == 1 else f"{name}#{i}") for i in range(count)]
        elif len(pack) > count:
            raise Unsupported(f"{name} used with more results than it has")
        else:
            pack += [Value(f"{name}#{i}") for i in range(len(pack), count)]
        scope = self.scopes[-1]
        if name in scope:
            raise Unsupported(f"{name} defined twice")
        scope[name] = pack
        return pack

    def use(self, ref: str) -> Value:
        name, _, idx = ref.partition("#")
        index = int(idx) if idx else 0
        for scope in reversed(self.scopes):
            pack = scope.get(name)
            if pack is not None:
                if index >= len(pack):
                    raise Unsupported(f"{ref}: no such result")
                return pack[index]
        # A use before its definition (a block later in the region): bound
        # when the definition comes.
        pack = self.pending.setdefault(name, [])
        while len(pack) <= index:
            pack.append(Value(f"{name}#{len(pack)}"))
        return pack[index]

    def expect(self, token: re.Pattern[str], pos: int, what: str) -> int:
        m = token.match(self.text, pos)
        if m is None:
            raise Unsupported(f"expected {what} at {self.text[pos:pos + 40]!r}")
        return m.end()

    # -- structure -------------------------------------------------------------
    def module(self) -> Op:
        text = self.text
        self.scopes.append({})
        ops: list[Op] = []
        labels: dict[str, Block] = {}
        pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
        while pos < len(text):
            op, pos = self.op(pos, labels)
            ops.append(op)
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if self.pending or labels:
            raise Unsupported(f"undefined: {', '.join(sorted([*self.pending, *labels]))}")
        if len(ops) == 1 and ops[0].name == "builtin.module":
            return ops[0]
        module = Op("builtin.module")
        region = Region()
        block = Block(None)
        block.ops = ops
        region.blocks.append(block)
        module.regions.append(region)
        return module

    def region(self, pos: int) -> tuple[Region, int]:
        """A region from just after its `{` to just after its `}`."""
        text = self.text
        region = Region()
        labels: dict[str, Block] = {}
        block: Block | None = None
        self.scopes.append({})
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if pos >= len(text):
                raise Unsupported("region not closed")
            c = text[pos]
            if c == "}":
                pos += 1
                break
            if c == "^":
                block, pos = self.block_header(pos, labels)
                region.blocks.append(block)
                continue
            if block is None:
                block = Block(None)
                block.defined = True
                region.blocks.append(block)
            op, pos = self.op(pos, labels)
            block.ops.append(op)
        self.scopes.pop()
        for label, b in labels.items():
            if not b.defined:
                raise Unsupported(f"successor ^{label} is not a block of the region")
        return region, pos

    def block_header(self, pos: int, labels: dict[str, Block]) -> tuple[Block, int]:
        text = self.text
        m = _LABEL.match(text, pos)
        if m is None:
            raise Unsupported("bad block label")
        label = m.group(1)
        block = labels.get(label)
        if block is None:
            block = labels[label] = Block(label)
        if block.defined:
            raise Unsupported(f"block ^{label} defined twice")
        block.defined = True
        pos = m.end()
        o = _OPEN_PAREN.match(text, pos)
        if o is not None:
            pos = o.end()
            c = _CLOSE_PAREN.match(text, pos)
            if c is not None:
                pos = c.end()
            else:
                while True:
                    a = _ARG.match(text, pos)
                    if a is None:
                        raise Unsupported("bad block argument")
                    end = self.type_end(a.end())
                    arg = self.define(a.group(1), 1)[0]
                    arg.type = self.type_text(a.end(), end)
                    block.args.append(arg)
                    pos = end
                    loc = self.location_at(pos, top=False)  # xDSL keeps it, extract does not
                    if loc is not None:
                        pos = loc[1]
                    s = _ARG_SEP.match(text, pos)
                    if s is None:
                        raise Unsupported("bad block argument list")
                    pos = s.end()
                    if s.group(1) == ")":
                        break
        return block, self.expect(_COLON, pos, "':' after a block label")

    # -- types -----------------------------------------------------------------
    def type_text(self, start: int, end: int) -> str:
        t = self.text[start:end]
        if "\n" in t or "//" in t:  # kept as text: only as printed on one line
            raise Unsupported(f"type {t.strip()[:40]!r} over lines or with a comment")
        return t

    def type_end(self, pos: int) -> int:
        """End of the (non-function) type at pos: a name and any `<...>` body."""
        m = _TYPE_ID.match(self.text, pos)
        if m is None:
            raise Unsupported(f"type expected at {self.text[pos:pos + 40]!r}")
        end = m.end()
        if self.text.startswith("<", end):
            end = self.angle_end(end)
        return end

    def angle_end(self, pos: int) -> int:
        """Index just after the `>` closing the `<` at pos (strings skipped)."""
        text = self.text
        depth = 0
        while True:
            m = _BRACKET.search(text, pos)
            if m is None:
                raise Unsupported("type not closed")
            tok = m.group(0)
            pos = m.end()
            if tok == "->" or tok == ",":
                continue
            if tok == '"':
                s = _STRING_AT.match(text, m.start())
                if s is None:
                    raise Unsupported("unterminated string")
                pos = s.end()
            elif tok in _OPENERS:
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    if tok != ">":
                        raise Unsupported("unbalanced brackets in a type")
                    return pos
                if depth < 0:
                    raise Unsupported("unbalanced brackets in a type")

    def paren_end(self, pos: int) -> int:
        """Index just after the `)` closing the `(` at pos."""
        text = self.text
        depth = 0
        i = pos
        n = len(text)
        while i < n:
            c = text[i]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return i + 1
            elif c == '"':
                s = _STRING_AT.match(text, i)
                if s is None:
                    raise Unsupported("unterminated string")
                i = s.end()
                continue
            i += 1
        raise Unsupported("parenthesis not closed")

    # -- locations -------------------------------------------------------------
    def location_at(self, pos: int, top: bool = True) -> tuple[str, int] | None:
        """The location at pos, if there is one (see `location`)."""
        text = self.text
        if text.startswith(" loc(", pos):
            s = _SIMPLE_LOC.match(text, pos + 1)
            if s is not None:
                return s.group(0), s.end()
        if _LOC_AT.match(text, pos) is None:
            return None
        return self.location(pos, top)

    def location(self, pos: int, top: bool = True) -> tuple[str, int]:
        """`loc(...)` from pos (whitespace before it included): the text xDSL
        prints for it, and the end."""
        m = _LOC_AT.match(self.text, pos)
        if m is None:
            raise Unsupported("location expected")
        inner, pos = self.loc_inner(m.end())
        pos = self.expect(_CLOSE_PAREN, pos, "')' closing a location")
        if top and inner.startswith("fused"):  # see the module's docstring
            raise Unsupported(f"fused location {inner[:40]}")
        return f"loc({inner})", pos

    def loc_inner(self, pos: int) -> tuple[str, int]:
        text = self.text
        m = _LOC_ITEM.match(text, pos)
        if m is None:
            raise Unsupported(f"location at {text[pos:pos + 40]!r}")
        keyword, name = m.group(1), m.group(2)
        pos = m.end()
        if name is not None:
            lc = _LOC_LINE_COL.match(text, pos)
            if lc is not None:
                return f'"{name}":{int(lc.group(1))}:{int(lc.group(2))}', lc.end()
            p = _OPEN_PAREN.match(text, pos)
            if p is None:
                return f'"{name}"', pos
            child, pos = self.loc_inner(p.end())
            return f'"{name}"({child})', self.expect(_CLOSE_PAREN, pos, "')' in a location")
        if keyword == "unknown":
            return "unknown", pos
        if keyword == "callsite":
            pos = self.expect(_OPEN_PAREN, pos, "'(' after callsite")
            callee, pos = self.loc_inner(pos)
            pos = self.expect(_LOC_CALLER, pos, "'at' in a call-site location")
            caller, pos = self.loc_inner(pos)
            pos = self.expect(_CLOSE_PAREN, pos, "')' in a location")
            return f"callsite({callee} at {caller})", pos
        pos = self.expect(_OPEN_SQUARE, pos, "'[' after fused")
        c = _CLOSE_SQUARE.match(text, pos)
        if c is not None:
            return "fused[]", c.end()
        items: list[str] = []
        while True:
            item, pos = self.loc_inner(pos)
            items.append(item)
            s = _LIST_SEP.match(text, pos)
            if s is None:
                raise Unsupported("bad fused location")
            pos = s.end()
            if s.group(1) == "]":
                return "fused[" + ", ".join(items) + "]", pos

    # -- ops -------------------------------------------------------------------
    def op(self, pos: int, labels: dict[str, Block]) -> tuple[Op, int]:
        text = self.text
        m = _HEAD.match(text, pos)
        if m is None:
            raise Unsupported(f"not a generic op at {text[pos:pos + 40]!r}")
        op = Op(m.group(2))
        results_text, operands_text = m.group(1), m.group(3)
        if "//" in operands_text:
            operands_text = _COMMENT.sub("", operands_text)
        if "%" in operands_text:
            use = self.use
            op.operands = [use(r.strip()) for r in operands_text.split(",")]
        pos = self.op_parts(op, m.end(), labels)
        types, loc, pos = self.signature(op, pos)
        if results_text:
            op.results = self.results(results_text, types)
        elif types:
            raise Unsupported("results without names")  # xDSL makes unnamed results
        # The location, if any: the op ends there.
        if loc is not None:
            op.location = loc
        elif (at := self.location_at(pos)) is not None:
            op.location, pos = at
        return op, pos

    def op_parts(self, op: Op, pos: int, labels: dict[str, Block]) -> int:
        """The op's successors, properties, regions and attributes (each
        optional, in that order) from pos; the end of the `:` after them."""
        text = self.text
        stage = 0
        while True:
            n = _NEXT.match(text, pos)
            if n is None:
                raise Unsupported(f"unexpected text after op at {text[pos:pos + 40]!r}")
            tok = n.group(1)[0]
            pos = n.end()
            if tok == ":":
                return pos
            if tok == "[" and stage < 1:
                pos, stage = self.successors(op, n.start(1), labels), 1
            elif tok == "<" and stage < 2:
                pos, stage = self.properties(op, pos), 2
            elif tok == "(" and stage < 3:
                pos, stage = self.regions(op, pos), 3
            elif tok == "{" and stage < 4:
                end = _match_brace(text, pos - 1)
                attrs = op._attrs_text = _no_comment(text[pos:end])
                if "op_name__" in attrs:  # xDSL keeps an unregistered op's name there
                    raise Unsupported("attribute op_name__")
                pos, stage = end + 1, 4
            else:
                raise Unsupported(f"unexpected {n.group(1)!r} in op {op.name}")

    def successors(self, op: Op, pos: int, labels: dict[str, Block]) -> int:
        """`[^bb1, ...]` at pos: the blocks (made when first named); its end."""
        s = _SUCCS.match(self.text, pos)
        if s is None:
            raise Unsupported("bad successor list")
        for label in _LABEL_REF.findall(_COMMENT.sub("", s.group(1))):
            block = labels.get(label)
            if block is None:
                block = labels[label] = Block(label)
            op.successors.append(block)
        return s.end()

    def properties(self, op: Op, pos: int) -> int:
        """The text of `<{...}>` (pos after its `<{`), kept to be read on demand; its end."""
        text = self.text
        end = text.find("}>", pos)
        if end < 0 or _NOT_PLAIN.search(text, pos, end) is not None:
            end = _match_brace(text, pos - 1)  # nested braces, strings, comments
            after = self.expect(_PROPS_END, end, "'}>' closing properties")
        else:
            after = end + 2
        op._props_text = _no_comment(text[pos:end])
        return after

    def regions(self, op: Op, pos: int) -> int:
        """`({...}, ...)` (pos after its first `({`): the regions; its end."""
        while True:
            region, pos = self.region(pos)
            op.regions.append(region)
            sep = _REGION_SEP.match(self.text, pos)
            if sep is None:
                raise Unsupported("bad region list")
            pos = sep.end()
            if sep.group(1) == ")":
                return pos

    def signature(self, op: Op, pos: int) -> tuple[list[str], str | None, int]:
        """The result types of the function type at pos, checked against the
        operands; the location when `_TAIL` read it with them (else None);
        the end."""
        text = self.text
        f = _TAIL.match(text, pos)
        if f is None:
            types, pos = self.function_type(pos, len(op.operands))
            return types, None, pos
        inputs, listed, single, loc = f.groups()  # the function type (and location) as printed
        if inputs or op.operands:  # as many types as operands, or xDSL rejects it
            count = (inputs.count(",") + 1 if "<" not in inputs and not inputs.isspace()
                     else len(_items(inputs)))
            if count != len(op.operands):
                raise Unsupported(f"{len(op.operands)} operands but types ({inputs})")
        if single is not None:
            types = [single]
        elif listed:
            types = [t.strip() for t in _items(listed)]
            if not all(types):
                raise Unsupported(f"empty result type in ({listed})")
        else:
            types = []
        return types, loc, f.end()

    def results(self, results_text: str, types: list[str]) -> list[Value]:
        """The op's results (`%r`, `%r:2`, `%a, %b`), defined, with their types."""
        if "//" in results_text:
            results_text = _COMMENT.sub("", results_text)
        if len(types) == 1 and "," not in results_text and ":" not in results_text:
            values = self.define(results_text.strip(), 1)
        else:
            values = []
            for group in results_text.split(","):
                name, _, count = group.partition(":")
                values += self.define(name.strip(), int(count) if count else 1)
            if len(types) != len(values):
                raise Unsupported(f"{len(values)} results but {len(types)} types")
        for v, t in zip(values, types, strict=True):
            v.type = t
        return values

    def function_type(self, pos: int, operands: int) -> tuple[list[str], int]:
        """The result types of the function type after an op's `:` (any
        spacing and comments between its tokens), and its end."""
        text = self.text
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith("(", pos):
            raise Unsupported(f"function type expected at {text[pos:pos + 40]!r}")
        end = self.paren_end(pos)
        inputs = text[pos + 1:end - 1]
        if operands or inputs.strip():
            if "//" in inputs:
                raise Unsupported("comment in a function type")
            if len(split_top(inputs)) != operands:  # xDSL rejects it
                raise Unsupported(f"{operands} operands but types ({inputs})")
        pos = self.expect(_ARROW, end, "'->' in a function type")
        if not text.startswith("(", pos):
            end = self.type_end(pos)
            return [self.type_text(pos, end)], end
        end = self.paren_end(pos)
        inner = text[pos + 1:end - 1]
        if "//" in inner:
            raise Unsupported("comment in a function type")
        types = split_top(inner) if inner.strip() else []
        for t in types:
            if not t or "\n" in t:
                raise Unsupported(f"result types ({inner})")
        return types, end


def parse_module(text: str) -> Op:
    """The module of generic-form MLIR text; `Unsupported` when outside the subset."""
    try:
        return _Reader(text).module()
    except Unsupported:
        raise
    except (IndexError, ValueError, AttributeError, RecursionError) as e:
        raise Unsupported(f"{type(e).__name__}: {e}") from e
