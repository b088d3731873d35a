"""A fast reader of the generic-form MLIR the lowerings print.

`mlir-opt --mlir-print-op-generic --mlir-print-debuginfo
--mlir-print-local-scope` and the xDSL lowerings print one op per line:

    %r:2 = "d.op"(%a, %b#1) [^bb1] <{props}> ({regions}) {attrs} : (T, T) -> (T, U) loc(L)

Reading that with xDSL's general parser costs ~10 ms per module (every type
and attribute becomes an object and is verified).  `verify.extract` needs
far less: op names, operands, results and their types as text, regions,
blocks with arguments, successors, four attributes (`callee`, `value`,
`sym_name`, `operandSegmentSizes`) and the location.  This module reads
exactly that into small objects that duck-type the parts of xDSL's
`Operation`, `Region`, `Block` and `SSAValue` that `extract` walks, and reads
attribute dictionaries only when one is asked for.

It reads the subset the printers emit; anything else (aliases, fused or
call-site locations, escapes in strings, function-typed results, resources)
raises `Unsupported`, and `verify.lowered_ir.parse_lowered` then falls back
to xDSL.  `tests/perf/test_fastparse_equivalence.py` checks that `extract`
gives the same facts on both parses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any


class Unsupported(Exception):
    """Text outside the subset this reader handles: use the xDSL parser."""


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


class Op:
    """An operation; `properties` and `attributes` are read when first asked for."""

    __slots__ = ("name", "operands", "results", "regions", "successors", "location",
                 "_props_text", "_attrs_text", "_props", "_attrs")

    def __init__(self, name: str) -> None:
        self.name = name
        self.operands: list[Value] = []
        self.results: list[Value] = []
        self.regions: list[Region] = []
        self.successors: list[Block] = []
        self.location: str | None = None
        self._props_text: str | None = None
        self._attrs_text: str | None = None
        self._props: dict[str, Any] | None = None
        self._attrs: dict[str, Any] | None = None

    @property
    def properties(self) -> dict[str, Any]:
        if self._props is None:
            self._props = parse_attr_dict(self._props_text) if self._props_text else {}
        return self._props

    @property
    def attributes(self) -> dict[str, Any]:
        if self._attrs is None:
            self._attrs = parse_attr_dict(self._attrs_text) if self._attrs_text else {}
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


# -- attributes (only the kinds extract reads; everything else stays text) --------


class StrAttr:
    __slots__ = ("data",)

    def __init__(self, data: str) -> None:
        self.data = data

    def __str__(self) -> str:
        return f'"{self.data}"'

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


_INT_ATTR = re.compile(r"(-?)(0x[0-9a-fA-F]+|\d+)(?:\s*:\s*(index|[su]?i\d+))?")
_SYMREF = re.compile(r'@([A-Za-z_$.][\w$.-]*|"[^"\\]*")((?:::@(?:[A-Za-z_$.][\w$.-]*|"[^"\\]*"))*)')
_ARRAY = re.compile(r"array<\s*[su]?i\d+\s*(?::([-\d\s,]*))?>")
_STRING = re.compile(r'"[^"\\]*"')
_KEY = re.compile(r'\s*([A-Za-z_][\w$.-]*|"[^"\\]*")\s*(=?)\s*')


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
    high = 1 << (width - 1) if type_.startswith("si") else 1 << width
    if not -(1 << (width - 1)) <= value < high:
        raise Unsupported(f"{value} out of range for {type_}")
    return value - (1 << width) if value >= 1 << (width - 1) else value


def attribute(text: str) -> Any:
    """One attribute value, as the small object `extract` can read."""
    text = text.strip()
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
        if _STRING.fullmatch(text) is None:
            raise Unsupported(f"string {text}")
        return StrAttr(text[1:-1])
    if c == "-" or c.isdigit():
        m = _INT_ATTR.fullmatch(text)
        if m is None:
            return OpaqueAttr(text)  # a float
        type_ = m.group(3) or "i64"
        value = int(m.group(2), 0)
        return IntegerAttr(_normalized(-value if m.group(1) else value, type_), type_)
    if text.startswith("array<"):
        m = _ARRAY.fullmatch(text)
        if m is None:
            return OpaqueAttr(text)
        body = (m.group(1) or "").strip()
        values = tuple(int(v) for v in body.split(",")) if body else ()
        return DenseArrayAttr(values, text)
    return OpaqueAttr(text)


def parse_attr_dict(text: str) -> dict[str, Any]:
    """`a = 1 : i64, b = @f, unit` (without the braces) to {name: attribute}."""
    out: dict[str, Any] = {}
    text = text.strip()
    pos, n = 0, len(text)
    while pos < n:
        m = _KEY.match(text, pos)
        if m is None:
            raise Unsupported(f"attribute dictionary {text!r}")
        key = m.group(1).strip('"')
        pos = m.end()
        if not m.group(2):  # a unit attribute
            out[key] = OpaqueAttr("unit")
            if pos < n:
                if text[pos] != ",":
                    raise Unsupported(f"attribute dictionary {text!r}")
                pos += 1
            continue
        end = _skip_value(text, pos)
        out[key] = attribute(text[pos:end])
        pos = end + 1  # past the comma
    return out


# -- scanning helpers ---------------------------------------------------------

_OPENERS = {"<": ">", "(": ")", "[": "]", "{": "}"}
_BRACKET = re.compile(r'->|[<>()\[\]{}",]')
_BRACE = re.compile(r'[{}"]')
_STRING_AT = re.compile(r'"(?:[^"\\\n]|\\.)*"')


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


# -- the reader ---------------------------------------------------------------

_WS = re.compile(r"(?:\s+|//[^\n]*)*")
_HEAD = re.compile(
    r'(?:(%[\w$.-]+(?::\d+)?(?:[ \t]*,[ \t]*%[\w$.-]+(?::\d+)?)*)[ \t]*=[ \t]*)?'
    r'"([^"\\\n]+)"\(([^)]*)\)'
)
_NEXT = re.compile(r"[ \t]*(\[|<\{|\(\{|\{|:)")
_LABEL = re.compile(r"\^([\w$.-]+)")
_SUCCS = re.compile(r"\[\s*(\^[\w$.-]+(?:\s*,\s*\^[\w$.-]+)*)\s*\]")
_REGION_SEP = re.compile(r"\s*(,\s*\{|\))")
_ARG = re.compile(r"\s*(%[\w$.-]+)\s*:\s*")
_LOC_AT = re.compile(r"\s*loc\(")
# The locations the printers emit: a name or file:line:col, a name with a
# child location, unknown.  Others (fused, callsite, aliases) go to xDSL.
_SIMPLE_LOC = re.compile(
    r'loc\((?:unknown|"[^"\\]*"(?::\d+:\d+)?(?:\("[^"\\]*"(?::\d+:\d+)?\))?)\)'
)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.scopes: list[dict[str, list[Value]]] = []
        self.pending: dict[str, list[Value]] = {}
        self.locs: set[str] = set()  # locations already checked

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
        if text.startswith("(", pos):
            pos += 1
            while True:
                pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
                if text.startswith(")", pos):
                    pos += 1
                    break
                a = _ARG.match(text, pos)
                if a is None:
                    raise Unsupported("bad block argument")
                end = self.type_end(a.end())
                block.args.append(self.define(a.group(1), 1)[0])
                block.args[-1].type = text[a.end():end].strip()
                pos = end
                lm = _LOC_AT.match(text, pos)
                if lm is not None:
                    end = self.paren_end(lm.end() - 1)
                    loc = text[lm.end() - 4:end]
                    if _SIMPLE_LOC.fullmatch(loc) is None:
                        raise Unsupported(f"location {loc}")
                    pos = end
                pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
                if text.startswith(",", pos):
                    pos += 1
        pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith(":", pos):
            raise Unsupported("block label without ':'")
        return block, pos + 1

    def type_end(self, pos: int) -> int:
        """End of a block argument's type: a top-level `,`, `)` or ` loc(`."""
        text = self.text
        depth = 0
        i = pos
        n = len(text)
        while i < n:
            c = text[i]
            if c in "<([{":
                depth += 1
            elif c in ">)]}":
                if c == ">" and text[i - 1] == "-":
                    pass
                elif depth == 0:
                    return i
                else:
                    depth -= 1
            elif depth == 0 and (c == "," or c == "\n"
                                 or (c == " " and text.startswith(" loc(", i))):
                return i
            elif c == '"':
                s = _STRING_AT.match(text, i)
                if s is None:
                    raise Unsupported("unterminated string")
                i = s.end()
                continue
            i += 1
        raise Unsupported("block argument type not closed")

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
        raise Unsupported("location not closed")

    def op(self, pos: int, labels: dict[str, Block]) -> tuple[Op, int]:
        text = self.text
        m = _HEAD.match(text, pos)
        if m is None:
            raise Unsupported(f"not a generic op at {text[pos:pos + 40]!r}")
        op = Op(m.group(2))
        results_text, operands_text = m.group(1), m.group(3)
        if operands_text.strip():
            use = self.use
            op.operands = [use(r.strip()) for r in operands_text.split(",")]
        pos = m.end()
        stage = 0
        while True:
            n = _NEXT.match(text, pos)
            if n is None:
                raise Unsupported(f"unexpected text after op at {text[pos:pos + 40]!r}")
            tok = n.group(1)
            pos = n.end()
            if tok == ":":
                break
            if tok == "[" and stage < 1:
                s = _SUCCS.match(text, n.start(1))
                if s is None:
                    raise Unsupported("bad successor list")
                for ref in s.group(1).split(","):
                    label = ref.strip()[1:]
                    block = labels.get(label)
                    if block is None:
                        block = labels[label] = Block(label)
                    op.successors.append(block)
                pos, stage = s.end(), 1
            elif tok == "<{" and stage < 2:
                end = text.find("}>", pos)
                if end < 0 or text.find("{", pos, end) >= 0 or text.find('"', pos, end) >= 0:
                    end = _match_brace(text, pos - 1)  # nested braces or strings
                    if not text.startswith(">", end + 1):
                        raise Unsupported("properties not closed by '}>'")
                op._props_text = text[pos:end]
                pos, stage = end + 2, 2
            elif tok == "({" and stage < 3:
                while True:
                    region, pos = self.region(pos)
                    op.regions.append(region)
                    sep = _REGION_SEP.match(text, pos)
                    if sep is None:
                        raise Unsupported("bad region list")
                    pos = sep.end()
                    if sep.group(1) == ")":
                        break
                stage = 3
            elif tok == "{" and stage < 4:
                end = _match_brace(text, pos - 1)
                op._attrs_text = text[pos:end]
                pos, stage = end + 1, 4
            else:
                raise Unsupported(f"unexpected {tok!r} in op {op.name}")
        # The function type and the location: the rest of the line.
        eol = text.find("\n", pos)
        if eol < 0:
            eol = len(text)
        seg = text[pos:eol].rstrip()
        if seg.endswith(")"):
            i = seg.rfind(" loc(")
            if i >= 0:
                loc = seg[i + 1:]
                if loc not in self.locs:
                    if _SIMPLE_LOC.fullmatch(loc) is None:
                        raise Unsupported(f"location {loc}")
                    self.locs.add(loc)
                op.location = loc
                seg = seg[:i]
        if results_text:
            types = self.result_types(seg)
            values: list[Value] = []
            for group in results_text.split(","):
                name, _, count = group.strip().partition(":")
                values += self.define(name, int(count) if count else 1)
            if len(types) != len(values):
                raise Unsupported(f"{len(values)} results but {len(types)} types")
            for v, t in zip(values, types, strict=True):
                v.type = t
            op.results = values
        return op, eol

    @staticmethod
    def result_types(seg: str) -> list[str]:
        if seg.count("->") != 1:
            raise Unsupported(f"function type {seg!r}")
        res = seg[seg.find("->") + 2:].strip()
        if res.startswith("(") and res.endswith(")"):
            inner = res[1:-1].strip()
            return split_top(inner) if inner else []
        return [res]


def parse_module(text: str) -> Op:
    """The module of generic-form MLIR text; `Unsupported` when outside the subset."""
    try:
        return _Reader(text).module()
    except Unsupported:
        raise
    except (IndexError, ValueError, AttributeError) as e:
        raise Unsupported(f"{type(e).__name__}: {e}") from e
