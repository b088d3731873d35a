"""Locations in MLIR text: the one reader of what a `loc(...)` says.

Every op the harness prints carries a name location, `loc("op4")`, which
`mlir-opt` keeps through conversion; a user's file carries file locations,
`loc("k.mlir":3:5)`.  A lowering may nest them (`loc("op4"("k.mlir":3:5))`),
fuse them (`loc(fused["k.mlir":3:5, "op4"])`, `fused<meta>[...]`) or make
call-site ones (`loc(callsite("op4" at "k.mlir":9:1))`).  Here is what each
form means to the harness:

- `source_key`: the key of the source op a location names, the key lowered
  calls, oracles and source readers all use: a name location's name, or
  `file:line:col` for a file location; inside a fused location, the first
  item that has a key; in a call-site location, the callee's (code inlined
  from a tagged op maps to that op).  None for `unknown` and an alias
  (`#loc3`).  `tag_locations` gives every op of a user's source a key of its
  own before lowering, so a key names exactly one op.
- `position`: the place to name in a reason text: the first file location
  anywhere in it (`k.mlir:3:5`), else None; `where` falls back on the key.
- `id_on_line`: the key a printed line carries (its last location with a
  key), for people-facing output that reads lines, with the batch tag
  `pK/` (`verify.lowerings.mlir_opt`) dropped from a name.
- `strip`: a line without its locations.

A location is read from its text (what MLIR prints, or what xDSL prints for
its attribute: `source_key` and `where` take either), strings with their
escapes decoded.  `verify.ir.fastparse` reads location *syntax* to keep the
text xDSL prints; what that text means is read only here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Kind = Literal["unknown", "name", "file", "callsite", "fused", "alias"]


@dataclass(frozen=True)
class Location:
    """A parsed location."""

    kind: Kind
    name: str = ""  # a name location's name, a file location's file
    line: int = 0
    col: int = 0
    # a name location's child (if any); a call site's (callee, caller); a fused one's items
    children: tuple[Location, ...] = ()

    @property
    def key(self) -> str | None:
        """The key of the source op it names (see the module's docstring)."""
        leaf = self.keyed()
        if leaf is None:
            return None
        return leaf.name if leaf.kind == "name" else file_key(leaf.name, leaf.line, leaf.col)

    def keyed(self) -> Location | None:
        """The name or file location its key comes from."""
        if self.kind in ("name", "file"):
            return self
        if self.kind == "fused":
            return next((k for k in (c.keyed() for c in self.children) if k is not None), None)
        if self.kind == "callsite":  # inlined code: the op inlined, not its call
            return self.children[0].keyed()
        return None

    @property
    def position(self) -> str | None:
        """`file:line:col` of its first file location, in printed order."""
        if self.kind == "file":
            return file_key(self.name, self.line, self.col)
        return next((p for p in (c.position for c in self.children) if p is not None), None)


def file_key(file: str, line: int, col: int) -> str:
    """The key of a file location, `file:line:col`."""
    return f"{file}:{line}:{col}"


_FILE_KEY = re.compile(r"^(.*):(\d+):(\d+)$", re.S)


def split_file_key(key: str) -> tuple[str, int, int] | None:
    """(file, line, col) of a `file:line:col` key; None for a name's key."""
    m = _FILE_KEY.match(key)
    return (m.group(1), int(m.group(2)), int(m.group(3))) if m else None


# -- reading ------------------------------------------------------------------

_WS = re.compile(r"\s*")
_OPEN = re.compile(r"\s*loc\s*\(")
_QUOTED = r'"((?:[^"\\\n]|\\.)*)"'
_STRING = re.compile(rf"\s*{_QUOTED}", re.S)
_STRING_AT = re.compile(_QUOTED, re.S)
_LINE_COL = re.compile(r"\s*:\s*([0-9]+)\s*:\s*([0-9]+)")
_WORD = re.compile(r"\s*(unknown|fused|callsite)(?![\w$.])")
_ALIAS = re.compile(r"\s*(#[\w$.-]+)")
_ESCAPE = re.compile(r"\\(?:([0-9A-Fa-f]{2})|(.))", re.S)
_ESCAPED = {"n": b"\n", "t": b"\t"}


class _NotALocation(ValueError):
    """Private: the text at hand is no location (never leaves this module)."""


def _unquote(body: str) -> str:
    """A string literal's value: MLIR's escapes (`\\"`, `\\\\`, `\\n`, `\\t`, `\\XX`) decoded."""
    if "\\" not in body:
        return body
    out = bytearray()
    pos = 0
    for m in _ESCAPE.finditer(body):
        out += body[pos:m.start()].encode()
        if m.group(1) is not None:
            out.append(int(m.group(1), 16))
        else:
            out += _ESCAPED.get(m.group(2), m.group(2).encode())
        pos = m.end()
    out += body[pos:].encode()
    return out.decode("utf-8", "replace")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def token(self, literal: str, pos: int) -> int:
        pos = _WS.match(self.text, pos).end()  # type: ignore[union-attr]
        if not self.text.startswith(literal, pos):
            raise _NotALocation(literal)
        return pos + len(literal)

    def location(self, pos: int) -> tuple[Location, int]:
        """`loc(...)` at pos (whitespace before it allowed), and its end."""
        m = _OPEN.match(self.text, pos)
        if m is None:
            raise _NotALocation("loc(")
        loc, pos = self.inner(m.end())
        return loc, self.token(")", pos)

    def inner(self, pos: int) -> tuple[Location, int]:
        text = self.text
        s = _STRING.match(text, pos)
        if s is not None:
            name, pos = _unquote(s.group(1)), s.end()
            lc = _LINE_COL.match(text, pos)
            if lc is not None:
                return Location("file", name, int(lc.group(1)), int(lc.group(2))), lc.end()
            open_ = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if not text.startswith("(", open_):
                return Location("name", name), pos
            child, pos = self.inner(open_ + 1)
            return Location("name", name, children=(child,)), self.token(")", pos)
        a = _ALIAS.match(text, pos)
        if a is not None:
            return Location("alias", a.group(1)), a.end()
        w = _WORD.match(text, pos)
        if w is None:
            raise _NotALocation(text[pos:pos + 20])
        pos = w.end()
        if w.group(1) == "unknown":
            return Location("unknown"), pos
        if w.group(1) == "callsite":
            callee, pos = self.inner(self.token("(", pos))
            caller, pos = self.inner(self.token("at", pos))
            return Location("callsite", children=(callee, caller)), self.token(")", pos)
        return self.fused(pos)

    def fused(self, pos: int) -> tuple[Location, int]:
        """After `fused`: an optional `<metadata>`, then `[item, ...]`."""
        start = _WS.match(self.text, pos).end()  # type: ignore[union-attr]
        if self.text.startswith("<", start):
            pos = self.balanced(start, "<", ">")
        pos = self.token("[", pos)
        items: list[Location] = []
        if self.text.startswith("]", _WS.match(self.text, pos).end()):  # type: ignore[union-attr]
            return Location("fused"), self.token("]", pos)
        while True:
            item, pos = self.inner(pos)
            items.append(item)
            end = _WS.match(self.text, pos).end()  # type: ignore[union-attr]
            if self.text.startswith("]", end):
                return Location("fused", children=tuple(items)), end + 1
            pos = self.token(",", pos)

    def balanced(self, pos: int, open_: str, close: str) -> int:
        """The end of the bracketed text opening at pos (strings skipped)."""
        text, depth = self.text, 0
        while pos < len(text):
            s = _STRING_AT.match(text, pos)
            if s is not None:
                pos = s.end()
                continue
            if text[pos] == open_:
                depth += 1
            elif text[pos] == close:
                depth -= 1
                if depth == 0:
                    return pos + 1
            pos += 1
        raise _NotALocation(f"{open_} not closed")


def parse_at(text: str, pos: int = 0) -> tuple[Location, int] | None:
    """The location `loc(...)` at pos in text (whitespace before it
    allowed) and where it ends; None where there is none."""
    try:
        return _Reader(text).location(pos)
    except (_NotALocation, RecursionError):
        return None


# Caches as large as a long module's ops: each reader and interpreter run
# walks every op in turn, and a walk longer than an LRU cache misses on
# every op (xDSL's attribute printed anew each time).
_CACHED = 1 << 16


@lru_cache(maxsize=_CACHED)
def parse(text: str) -> Location | None:
    """The location a whole text is (`loc(...)`, whitespace around it allowed)."""
    found = parse_at(text)
    if found is None or text[found[1]:].strip():
        return None
    return found[0]


@lru_cache(maxsize=_CACHED)
def _parse_attribute(attr: object) -> Location | None:
    return parse(str(attr))


def _parsed(loc: object) -> Location | None:
    """The location of a text, of xDSL's attribute (by its printed text) or of
    None (an op without one)."""
    if loc is None:
        return None
    if isinstance(loc, str):
        return parse(loc)
    try:
        return _parse_attribute(loc)
    except TypeError:  # an unhashable stand-in
        return parse(str(loc))


def source_key(loc: object) -> str | None:
    """The key of the source op a location (text or xDSL attribute) names:
    `opN`, `file:line:col`; None without one (see the module's docstring)."""
    parsed = _parsed(loc)
    return parsed.key if parsed is not None else None


def position(loc: object) -> str | None:
    """`file:line:col` of the first file location in a location, if any."""
    parsed = _parsed(loc)
    return parsed.position if parsed is not None else None


def where(loc: object) -> str:
    """A location for a reason text: its file position, else its key, else "?"."""
    parsed = _parsed(loc)
    if parsed is None:
        return "?"
    return parsed.position or parsed.key or "?"


# -- locations on a printed line ---------------------------------------------

# A string (skipped: a `loc(` inside one is text) or the start of a location.
_SCAN = re.compile(rf'{_QUOTED}|(?<![\w$.#%@])loc\s*\(', re.S)
_BATCH_TAG = re.compile(r"^p[0-9]+/")
_FIRST_BATCH_TAG = re.compile(r'loc\("p(\d+)/')
_PLAIN_NAME_LOC = re.compile(r'loc\("([^"]+)"\)')


def plain_name_locs(line: str) -> list[str]:
    """The names of the plain name locations on a line, in order
    (`loc("op3")` -> "op3"; a quoted `"` or a child location is not read)."""
    return _PLAIN_NAME_LOC.findall(line)


def first_batch_index(text: str) -> int | None:
    """K of the first batch tag in `text` (`loc("pK/...")`: the program of a
    batch `verify.lowerings.mlir_opt` tagged), else None."""
    m = _FIRST_BATCH_TAG.search(text)
    return int(m.group(1)) if m else None


def _on_line(line: str) -> list[tuple[Location | None, int, int]]:
    """The locations written on a line, not those in strings: (location,
    start, end); a `loc(...)` this module does not read is (None, start,
    end) up to its closing parenthesis (the line's end if none)."""
    if "loc" not in line:
        return []
    out: list[tuple[Location | None, int, int]] = []
    pos = 0
    while (m := _SCAN.search(line, pos)) is not None:
        pos = m.end()
        if m.group(0).startswith('"'):
            continue
        found = parse_at(line, m.start())
        if found is not None:
            out.append((found[0], m.start(), found[1]))
            pos = found[1]
            continue
        try:
            end = _Reader(line).balanced(m.end() - 1, "(", ")")
        except _NotALocation:
            end = len(line)
        out.append((None, m.start(), end))
        pos = end
    return out


# People-facing output reads the same lowered lines once per violation it
# shows (a wait on 1,000 tokens: 1,000 violations over one text): each line
# is read once.
@lru_cache(maxsize=1 << 16)
def id_on_line(line: str) -> str | None:
    """The source op key a printed line carries: that of its last location
    with one (`loc("op3")` -> "op3", `loc("k.mlir":4:7)` -> "k.mlir:4:7");
    a name's batch tag is dropped (`loc("p0/op3")` -> "op3")."""
    for loc, _, _ in reversed(_on_line(line)):
        leaf = loc.keyed() if loc is not None else None
        if leaf is not None:
            return _BATCH_TAG.sub("", leaf.name) if leaf.kind == "name" else leaf.key
    return None


@lru_cache(maxsize=1 << 16)
def strip(line: str) -> str:
    """The line without its locations, each with the one whitespace before
    it (a `loc(` after none, or inside a string, stays); trailing whitespace
    is dropped where one was."""
    if "loc" not in line:
        return line
    out: list[str] = []
    pos = 0
    for _, start, end in _on_line(line):
        if start > 0 and line[start - 1].isspace():
            out.append(line[pos:start - 1])
            pos = end
    if not out:
        return line
    out.append(line[pos:])
    return "".join(out).rstrip()


# -- tagging a source so that every op has a key of its own --------------------

def tag_locations(text: str) -> str:
    """`text` (generic form, every op's location printed) with each op
    location that is not a key of its own wrapped in a name location that
    is: an op sharing its key with another op, and one with no key
    (`unknown`, a call site), get `loc("KEY#n"(original))`, KEY being its
    position (or `loc`).  Lowered code keeps the name, so each lowered call
    maps to exactly one source op whatever locations the user wrote, and the
    name still reads as the user's `file:line:col`.  Block-argument
    locations (lines opening a block) are left alone: only ops are keyed.
    A fused location's metadata (`fused<"m">[...]`) is dropped everywhere:
    it names no op, and neither reader of the harness reads it."""
    lines = [_without_fused_metadata(line) for line in text.split("\n")]
    found: list[tuple[int, Location | None, int, int]] = []
    for n, line in enumerate(lines):
        if line.lstrip().startswith("^"):
            continue
        found += [(n, loc, start, end) for loc, start, end in _on_line(line)]
    counts: dict[str | None, int] = {}
    for _, loc, _, _ in found:
        key = loc.key if loc is not None else None
        counts[key] = counts.get(key, 0) + 1
    taken = {k for k in counts if k is not None}
    serial: dict[str, int] = {}
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for n, loc, start, end in found:
        key = loc.key if loc is not None else None
        if key is not None and counts[key] == 1:
            continue
        base = (loc.position if loc is not None else None) or key or "loc"
        tag = _fresh_tag(base, serial, taken)
        if loc is None or loc.kind == "unknown":
            new = f"loc({quote_string(tag)})"
        else:  # a location read whole: `loc(` ... `)` around what it says
            inner = lines[n][start:end]
            inner = inner[inner.index("(") + 1:inner.rindex(")")].strip()
            new = f"loc({quote_string(tag)}({inner}))"
        edits.setdefault(n, []).append((start, end, new))
    for n, spans in edits.items():
        line = lines[n]
        for start, end, new in reversed(spans):
            line = line[:start] + new + line[end:]
        lines[n] = line
    return "\n".join(lines)


def _without_fused_metadata(line: str) -> str:
    """`line` with `fused<...>` made `fused` inside its locations."""
    if "fused<" not in line:
        return line
    for _, start, end in reversed(_on_line(line)):
        span, out, pos = line[start:end], [], 0
        while (m := _FUSED_META.search(span, pos)) is not None:
            if m.group(0).startswith('"'):  # a string: kept as it is
                out.append(span[pos:m.end()])
                pos = m.end()
                continue
            try:
                close = _Reader(span).balanced(m.end() - 1, "<", ">")
            except _NotALocation:
                return line  # not a location this module reads: left as written
            out.append(span[pos:m.end() - 1])
            pos = close
        line = line[:start] + "".join(out) + span[pos:] + line[end:]
    return line


_FUSED_META = re.compile(rf'{_QUOTED}|\bfused\s*<', re.S)


def _fresh_tag(base: str, serial: dict[str, int], taken: set[str]) -> str:
    while True:
        serial[base] = serial.get(base, 0) + 1
        tag = f"{base}#{serial[base]}"
        if tag not in taken:
            taken.add(tag)
            return tag


def quote_string(text: str) -> str:
    """`text` as an MLIR string literal: `\\` and `"` escaped, and control
    characters (a newline in a file name, say) as `\\XX`, so the literal
    stays on one line; other characters, non-ASCII ones too, as they are."""
    return '"' + _NEEDS_ESCAPE.sub(_escaped, text) + '"'


_NEEDS_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f]')


def _escaped(m: re.Match[str]) -> str:
    c = m.group(0)
    return "\\" + c if c in '\\"' else f"\\{ord(c):02X}"


# `loc("file":line:col)` or `loc("name")` with no escape, newline or quote
# inside: the plain forms a reader can take without xDSL's location parser.
_PLAIN_LOC = re.compile(r'loc\("([^"\\\n]*)"(?::([0-9]+):([0-9]+))?\)')


def plain_location_at(text: str, pos: int) -> re.Match[str] | None:
    """The plain location starting at `pos` of `text` (groups: name or file,
    line, column; line and column None for a name location), else None."""
    return _PLAIN_LOC.match(text, pos)
