"""The fast reader reads text exactly as xDSL does, or declines it.

Property: real lowered text (generated programs lowered by `mlir-opt-19`,
generic form with debug info, also through `convert-scf-to-cf`, whose blocks
carry arguments and `// pred:` comments), rewritten by a random stack of
meaning-preserving textual mutations, is either read by `verify.ir.fastparse`
with the same `extract` facts as xDSL's parse, or declined (`Unsupported`);
a mutant xDSL cannot read is rejected.  The mutations: `//` comments (line
ends, own lines, between an op and its location, between any two tokens of
the op structure), whitespace and newlines added or removed between tokens,
extra discardable attributes whose values hold `//`, `loc(`, braces, quotes
and escapes, reordered attribute dictionaries, locations rewritten into other
legal forms (name with a child, call-site, file:line:col, fused, `#loc`
aliases before or after the module, escapes, spacing), string attributes
spelled with escapes, ops in custom form.

Mutations the reader is meant to read (comments and whitespace outside
attribute dictionaries and types, name, call-site and file locations, plain
extra attributes, reordering) must not make it decline: a reader that
declined everything would pass the first half of the property for nothing.

Each family of mutations runs the Hypothesis profile's example budget
(`ci`: 30 examples, `dev`: 60); an example stacks up to four mutations and
checks the text after each one that changed it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import pytest
from hypothesis import event, given, reject
from hypothesis import strategies as st

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.lowered_ir import LoweredParseError
from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
from gpu_alloc_verify.verify.source.of_program import source_facts
from tests.conftest import collect_programs, need_mlir_opt
from tests.ir.facts import fast_reader_agrees

PIPELINES = ("gpu-to-llvm", "convert-scf-to-cf,gpu-to-llvm")
PROGRAMS = 10  # per pipeline


@dataclass(frozen=True)
class Base:
    text: str
    names: dict[str, list[str]]


@lru_cache(maxsize=1)
def _corpus(path: str) -> tuple[Base, ...]:
    progs = collect_programs(PROGRAMS, GenConfig(max_ops=6))
    out: list[Base] = []
    for pipeline in PIPELINES:
        lowering = MlirOptLowering("mlir-opt-19", path, pipeline)
        for program, outcome in zip(progs, lowering.lower_batch(progs), strict=True):
            if outcome.status == "ok":
                out.append(Base(outcome.lowered, source_facts(program).arg_names))
    return tuple(out)


def corpus() -> tuple[Base, ...]:
    bases = _corpus(need_mlir_opt(19))
    if not bases:
        pytest.skip("mlir-opt-19 lowered none of the programs")
    return bases


# -- a line's tokens, as far as the mutations need them ---------------------------

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|->|//.*|[%^@#!]?[\w$.-]+(?:#\d+)?|[ \t]+|.')
_STRUCTURAL = {"(", ")", ",", "=", ":", "->", "[", "]", "{", "}", "loc"}


@dataclass
class Spot:
    """A boundary between two tokens of a line where xDSL allows whitespace."""

    pos: int
    in_dict: bool  # inside an attribute dictionary (between its entries)
    in_type_list: bool  # inside the parentheses of an op's function type


@dataclass
class _Tok:
    start: int
    text: str
    angle: int  # depths before the token: `<...>` (types, attribute bodies)
    brace: int  # attribute dictionaries and properties
    paren: int
    ftype: bool  # after the ` : ` of the op's function type


def _scan(line: str) -> list[_Tok]:
    """The line's tokens up to any comment, each with the nesting before it."""
    out: list[_Tok] = []
    angle = brace = paren = 0
    ftype = False
    prev = ""  # the previous token that is not blank
    props: list[bool] = []  # per open brace: whether it opened properties `<{`
    for m in _TOKEN.finditer(line):
        tok = m.group(0)
        if tok.startswith("//"):
            break
        out.append(_Tok(m.start(), tok, angle, brace, paren, ftype))
        if tok.isspace():
            continue
        if tok == "{" and prev == "<" and angle == 1:  # properties: a dictionary
            angle, brace = 0, brace + 1
            props.append(True)
        elif tok == "<":
            angle += 1
        elif tok == ">":
            angle = max(angle - 1, 0)
        elif angle == 0:
            if tok == "{" and prev != "(":
                brace += 1
                props.append(False)
            elif tok == "}" and brace:
                brace -= 1
                if props.pop():
                    angle = 1  # the `>` of `}>` closes it
            elif tok == "(":
                paren += 1
            elif tok == ")":
                paren = max(paren - 1, 0)
            elif tok == ":" and prev in (")", "}", "]", ">") and not (brace or paren):
                ftype = True  # after the operands (and the rest): the function type
        prev = tok
    return out


def spots(line: str) -> list[Spot]:
    """Boundaries next to a structural token, outside strings, types (`<...>`)
    and attribute values (entries of a dictionary are separated only at `{`,
    `,`, `=` and `}`), and before any comment."""
    toks = _scan(line)
    out: list[Spot] = []
    prev_k = -1  # the previous token that is not blank
    for k, t in enumerate(toks):
        if t.text.isspace():
            continue
        if prev_k >= 0:
            prev = toks[prev_k].text
            if (prev, t.text) in (("<", "{"), ("}", ">")):
                ok = True  # `< {` and `} >` of properties
            elif t.angle or t.text == "<":
                ok = False
            elif t.brace:
                ok = t.text in {",", "=", "}"} or prev in {",", "=", "{"}
            else:
                ok = t.text in _STRUCTURAL or prev in _STRUCTURAL
            if ok:
                for pos in sorted({toks[prev_k + 1].start if prev_k + 1 < k else t.start,
                                   t.start}):
                    out.append(Spot(pos, t.brace > 0, t.ftype and t.paren > 0))
        prev_k = k
    return out


def removable(line: str) -> list[int]:
    """Starts of blanks between tokens that stay apart without them."""
    toks = _scan(line)
    out: list[int] = []
    for k in range(1, len(toks) - 1):
        t = toks[k]
        if not t.text.isspace() or t.angle:
            continue
        prev, nxt = toks[k - 1].text, toks[k + 1].text
        if t.brace:
            ok = prev in {",", "=", "{"} or nxt in {",", "=", "}"}
        else:  # not next to `loc`: `i64loc` is one word
            ok = (prev in _STRUCTURAL or nxt in _STRUCTURAL) and "loc" not in (prev, nxt)
        if ok and nxt != "<":
            out.append(t.start)
    return out


# -- mutations ----------------------------------------------------------------------

COMMENTS = [
    'c', 'loc("zz")', "}", "{", '"', ")", "%0 = x", "^bb9", "// again", "-> i64", ":",
    '"a.b"() : () -> () loc("op1")', "}) : () -> ()", "\\", "'",
]
BLANKS = [" ", "  ", "\n", "\n      ", "\t", " \n\n ", "\r\n", "\f"]
# (key, value, meant to be read): extra discardable attributes
EXTRA_ATTRS = [
    ("foo", '"a // b loc(\\"x\\")"', True),
    ("foo", '"}"', True),
    ("foo", '"{ \\22 }"', True),
    ("bar.baz", '"x\\n\\t\\\\"', True),
    ('"quoted key"', "1 : i64", True),
    ("unit_attr", None, True),
    ("n", "-1 : i8", True),
    ("n", "0x10 : i64", True),
    ("n", "010 : i32", True),
    ("n", "- 3 : i64", True),
    ("f", "1.500000e+00 : f32", True),
    ("arr", "array<i32: 1, 2>", True),
    ("arr", "[1, \"a, b\", {k = \"}\"}]", True),
    ("sym", "@some_symbol", True),
    ("d", "dense<1> : tensor<2xi32>", True),
    ("t", "i64", True),
    ("u", '#foo.bar<"a // b">', True),
    ("u", "#foo.bar<a // b>", False),  # raw text to xDSL: the reader declines `//` there
    ("s", '"caf\\C3\\A9"', False),  # bytes to xDSL
    ("s", '@"quoted\\22sym"', False),
    ("arr", "array<f32: 1.0>", False),
    ("op_name__", '"x.y"', False),
]
LOC_FORMS = [  # (template over the location's inside X, meant to be read)
    ('"wrap"(X)', True),
    ("callsite(X at \"caller.mlir\":3:4)", True),
    ('callsite("callee" at X)', True),
    ('"file.mlir":7:0', True),
    ("unknown", True),
    (" X ", True),
    ("\n  X // c\n", True),
    ('"n"(fused[X, unknown])', True),
    ("fused[X]", False),  # a fused location at the top: declined by design
    ('fused["other", X]', False),
]


# Mostly the kinds the reader reads; aliases after the module are not MLIR xDSL reads.
LOC_KINDS = ["form"] * 6 + ["spacing"] * 2 + ["escape", "alias before", "alias after"]


@dataclass
class Mutant:
    lines: list[str]
    prefix: list[str]
    suffix: list[str]
    readable: bool = True  # every mutation applied is one the reader is meant to read

    def text(self) -> str:
        return "\n".join([*self.prefix, *self.lines, *self.suffix])


Mutation = Callable[[Mutant, st.DataObject], None]


def _line(m: Mutant, data: st.DataObject, pred: Callable[[str], bool] = bool) -> int | None:
    candidates = [i for i, line in enumerate(m.lines) if pred(line)]
    if not candidates:
        return None
    return data.draw(st.sampled_from(candidates), label="line")


def _match(m: Mutant, data: st.DataObject, pattern: re.Pattern[str]
           ) -> tuple[int, re.Match[str]] | None:
    """A drawn line where `pattern` matches, with its first match."""
    i = _line(m, data, lambda line: pattern.search(line) is not None)
    if i is None:
        return None
    found = pattern.search(m.lines[i])
    assert found is not None
    return i, found


def comment_at_line_end(m: Mutant, data: st.DataObject) -> None:
    i = _line(m, data)
    if i is not None:
        m.lines[i] += " // " + data.draw(st.sampled_from(COMMENTS), label="comment")


def comment_line(m: Mutant, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(m.lines)), label="at")
    m.lines.insert(i, "// " + data.draw(st.sampled_from(COMMENTS), label="comment"))


_LOC_TAIL = re.compile(r" (loc\(.*\))$")


def comment_before_location(m: Mutant, data: st.DataObject) -> None:
    """`... : () -> () // c` and the location on the next line, or a comment
    right after the location."""
    i = _line(m, data, lambda line: _LOC_TAIL.search(line) is not None)
    if i is None:
        return
    comment = data.draw(st.sampled_from(COMMENTS), label="comment")
    if data.draw(st.booleans(), label="before"):
        m.lines[i] = _LOC_TAIL.sub(lambda t: f" // {comment}\n    {t.group(1)}", m.lines[i])
    else:
        m.lines[i] += f"// {comment}"


def blank(m: Mutant, data: st.DataObject) -> None:
    """Whitespace, a newline or a comment between two tokens."""
    i = _line(m, data, lambda line: bool(spots(line)))
    if i is None:
        return
    line = m.lines[i]
    spot = data.draw(st.sampled_from(spots(line)), label="spot")
    if data.draw(st.booleans(), label="comment"):
        ws = " // " + data.draw(st.sampled_from(COMMENTS), label="comment") + "\n"
        if spot.in_dict or spot.in_type_list:
            m.readable = False  # `//` inside a dictionary or a type list: declined
    else:
        ws = data.draw(st.sampled_from(BLANKS), label="blank")
    m.lines[i] = line[:spot.pos] + ws + line[spot.pos:]


def unblank(m: Mutant, data: st.DataObject) -> None:
    i = _line(m, data, lambda line: bool(removable(line)))
    if i is None:
        return
    line = m.lines[i]
    start = data.draw(st.sampled_from(removable(line)), label="blank")
    end = start
    while end < len(line) and line[end] in " \t":
        end += 1
    m.lines[i] = line[:start] + line[end:]


_OP_TAIL = re.compile(r"(\)|\}>|\}\)|\})( : \()")


def _code_end(line: str) -> int:
    """Where the line's first comment starts (its length if none)."""
    for m in _TOKEN.finditer(line):
        if m.group(0).startswith("//"):
            return m.start()
    return len(line)


def _tail_start(line: str) -> int | None:
    """Index of ` : (` after the op's operands, properties, regions and attributes."""
    for t in reversed(list(_OP_TAIL.finditer(line, 0, _code_end(line)))):
        return t.start(2)
    return None


def extra_attribute(m: Mutant, data: st.DataObject) -> None:
    def has_tail(line: str) -> bool:
        return _tail_start(line) is not None and not line.lstrip().startswith("^")

    i = _line(m, data, has_tail)
    if i is None:
        return
    key, value, readable = data.draw(st.sampled_from(EXTRA_ATTRS), label="attribute")
    entry = key if value is None else f"{key} = {value}"
    line = m.lines[i]
    at = _tail_start(line)
    assert at is not None
    if line[at - 1] == "}" and line[at - 2:at] not in ("}>", "})"):  # an attribute dictionary
        brace = _open_brace(line, at - 1)
        if data.draw(st.booleans(), label="first"):
            line = line[:brace + 1] + entry + ", " + line[brace + 1:]
        else:
            line = line[:at - 1] + ", " + entry + line[at - 1:]
    else:
        line = line[:at] + " {" + entry + "}" + line[at:]
    m.lines[i] = line
    m.readable &= readable


def _open_brace(line: str, close: int) -> int:
    """Index of the `{` that the `}` at `close` closes (strings skipped)."""
    opened: list[int] = []
    for m in _TOKEN.finditer(line, 0, close + 1):
        if m.group(0) == "{":
            opened.append(m.start())
        elif m.group(0) == "}":
            if m.start() == close:
                return opened[-1]
            if opened:  # else the `}` of a region opened on an earlier line
                opened.pop()
    raise AssertionError(line)


_DICT = re.compile(r"<\{(.*?)\}>|\) \{(.*)\} : \(")


def reorder_attributes(m: Mutant, data: st.DataObject) -> None:
    picked = _match(m, data, _DICT)
    if picked is None:
        return
    i, d = picked
    line = m.lines[i]
    group = 1 if d.group(1) is not None else 2
    try:
        entries = fastparse.split_top(d.group(group))
    except fastparse.Unsupported:
        return
    order = data.draw(st.permutations(entries), label="order")
    m.lines[i] = line[:d.start(group)] + ", ".join(order) + line[d.end(group):]


_LOC = re.compile(r"loc\(")


def _loc_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of the inside of each `loc(...)` of the line (also one in a
    comment or a string: rewriting it there changes nothing or only a string)."""
    out = []
    for lm in _LOC.finditer(line):
        depth, k = 1, lm.end()
        while k < len(line) and depth:
            if line[k] == '"':
                k = line.find('"', k + 1)
                if k < 0:
                    break
            elif line[k] == "(":
                depth += 1
            elif line[k] == ")":
                depth -= 1
            k += 1
        if k > 0 and depth == 0:
            out.append((lm.end(), k - 1))
    return out


def rewrite_location(m: Mutant, data: st.DataObject) -> None:
    i = _line(m, data, lambda line: bool(_loc_spans(line)))
    if i is None:
        return
    line = m.lines[i]
    start, end = data.draw(st.sampled_from(_loc_spans(line)), label="location")
    inner = line[start:end]
    kind = data.draw(st.sampled_from(LOC_KINDS), label="kind")
    if kind == "form":
        form, readable = data.draw(st.sampled_from(LOC_FORMS), label="form")
        new = form.replace("X", inner)
        m.readable &= readable
    elif kind.startswith("alias"):
        name = f"#loc{len(m.prefix) + len(m.suffix)}"
        (m.prefix if kind == "alias before" else m.suffix).append(f"{name} = loc({inner})")
        new = name
        m.readable = False
    elif kind == "escape":
        if not inner.startswith('"') or len(inner) < 3:
            return
        c = inner[1]
        new = f'"\\{ord(c):02X}{inner[2:]}' if c.isascii() else inner
        m.readable = False  # escapes in locations: declined
    else:
        m.lines[i] = line[:start - 1] + data.draw(st.sampled_from([" (", " \n (", "(\n"]),
                                                  label="spacing") + line[start:]
        return
    m.lines[i] = line[:start] + new + line[end:]


_STR_ATTR = re.compile(r'(sym_name = )"([A-Za-z_]\w*)"')


def escape_string(m: Mutant, data: st.DataObject) -> None:
    """`sym_name = "f0"` spelled `"f\\30"`: the same string to xDSL."""
    picked = _match(m, data, _STR_ATTR)
    if picked is None:
        return
    i, s = picked
    line = m.lines[i]
    name = s.group(2)
    k = data.draw(st.integers(0, len(name) - 1), label="char")
    escaped = name[:k] + f"\\{ord(name[k]):02x}" + name[k + 1:]
    m.lines[i] = line[:s.start(2) - 1] + f'"{escaped}"' + line[s.end(2) + 1:]


_RETURN = re.compile(r'"llvm\.return"\(\) : \(\) -> \(\)')


def custom_form(m: Mutant, data: st.DataObject) -> None:
    i = _line(m, data, lambda line: _RETURN.search(line) is not None)
    if i is not None:
        m.lines[i] = _RETURN.sub("llvm.return", m.lines[i])
        m.readable = False


MUTATIONS: dict[str, Mutation] = {
    "comment at line end": comment_at_line_end,
    "comment line": comment_line,
    "comment before/after location": comment_before_location,
    "blank": blank,
    "unblank": unblank,
    "extra attribute": extra_attribute,
    "reorder attributes": reorder_attributes,
    "rewrite location": rewrite_location,
    "escape string": escape_string,
    "custom form": custom_form,
}

# Each family gets the profile's budget; "mixed" stacks any of them.
FAMILIES = {
    "comments": ["comment at line end", "comment line", "comment before/after location"],
    "whitespace": ["blank", "unblank"],
    "attributes": ["extra attribute", "reorder attributes", "escape string"],
    "locations": ["rewrite location"],
    "mixed": list(MUTATIONS),
}


def check_mutant(base: Base, mutant: Mutant) -> None:
    text = mutant.text()
    try:
        read = fast_reader_agrees(text, base.names)
    except LoweredParseError:
        reject()  # not MLIR xDSL reads
    event("read" if read else "declined")
    if mutant.readable:
        assert read, f"the fast reader declines what it is meant to read:\n{text}"


@pytest.mark.slow
@pytest.mark.parametrize("family", [  # CI: comments and every mutation mixed; nightly: each
    pytest.param(f, marks=[] if f in ("comments", "mixed") else [pytest.mark.nightly])
    for f in FAMILIES])
def test_mutated_lowered_text_is_read_as_xdsl_reads_it_or_declined(family: str) -> None:
    bases = corpus()
    kinds = FAMILIES[family]

    @given(st.data())
    def prop(data: st.DataObject) -> None:
        base = bases[data.draw(st.integers(0, len(bases) - 1), label="base")]
        mutant = Mutant(base.text.rstrip("\n").split("\n"), [], [])
        checked = mutant.text()
        for kind in data.draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4),
                              label="mutations"):
            MUTATIONS[kind](mutant, data)
            if mutant.text() != checked:  # each step of the stack is a mutant
                check_mutant(base, mutant)
                checked = mutant.text()

    prop()


def test_the_unmutated_lowered_text_is_read() -> None:
    for base in corpus():
        assert fast_reader_agrees(base.text, base.names)


# -- regressions: one per silent misreading the reader had ------------------------------


def _module(body: str) -> str:
    return '"builtin.module"() ({\n' + body + "\n}) : () -> () loc(unknown)\n"


def _reading(module: object) -> list[tuple[object, ...]]:
    """What each op of a module (the fast reader's or xDSL's) says, as text."""
    from gpu_alloc_verify.verify.ir.lowered_ir import op_name

    out: list[tuple[object, ...]] = []
    for op in module.walk():  # type: ignore[attr-defined]
        out.append((op_name(op), str(op.location), [str(r.type) for r in op.results],
                    len(op.operands),
                    [[str(a.type) for a in b.args] for r in op.regions for b in r.blocks]))
    return out


def _same_reading(text: str) -> list[tuple[object, ...]]:
    from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered

    fast = _reading(fastparse.parse_module(text))
    assert fast == _reading(parse_lowered(text))
    return fast[1:]


CALL = ('"llvm.func"() <{function_type = !llvm.func<void ()>, sym_name = "f0"}> ({\n'
        '  %0 = "llvm.call"() <{callee = @mgpuStreamCreate}> : () -> !llvm.ptr LOC\n'
        '  "llvm.call"(%0) <{callee = @mgpuStreamDestroy}> : (!llvm.ptr) -> () loc("op4")\n'
        '  "llvm.return"() : () -> () loc("op5")\n'
        '}) : () -> () loc("f")')


@pytest.mark.parametrize("loc", [
    'loc("op3") // comment',  # the user's report: the call mapped to no source op
    'loc("op3")// comment',
    '// comment\n  loc("op3")',
    'loc ("op3")',  # not one space before `(`: lost, or taken into the result type
    '\tloc("op3")',
    '\n  loc( "op3" )',
])
def test_a_location_next_to_a_comment_or_spaced_is_kept(loc: str) -> None:
    text = _module(CALL.replace("LOC", loc))
    assert fast_reader_agrees(text, {"f0": []})
    create = _same_reading(text)[1]
    assert create[1] == 'loc("op3")' and create[2] == ["!llvm.ptr"]


def test_two_ops_on_one_line_are_two_ops() -> None:
    """The second op was dropped and its location given to the first."""
    text = _module('"a.b"() : () -> () loc("op3") "c.d"() : () -> () loc("op4")')
    assert [(r[0], r[1]) for r in _same_reading(text)] == [
        ("a.b", 'loc("op3")'), ("c.d", 'loc("op4")')]


@pytest.mark.parametrize("arg", ['%a: i1\tloc("q")', '%a: i1 loc ("q")', '%a : i1 // c\n loc("q")'])
def test_a_block_argument_location_is_not_read_into_its_type(arg: str) -> None:
    text = _module('"x.f"() ({\n^bb0(' + arg + '):\n  "c.d"(%a) : (i1) -> () loc("op4")\n'
                   '}) : () -> () loc("op1")')
    assert _same_reading(text)[0][4] == [["i1"]]


def test_a_location_text_is_what_xdsl_prints() -> None:
    """Name, file, call-site locations and fused ones inside them are read as
    xDSL prints them; an op without one has `loc(unknown)`, as in xDSL."""
    locs = ['loc("a"("f.mlir":01:2))', 'loc(callsite("a" at callsite("b" at "c":1:2)))',
            'loc("x" (fused["y","z"]))', 'loc(fused[])', "loc( unknown )", ""]
    text = _module("\n".join(f'"a.b"() : () -> () {loc}' for loc in locs[:3])
                   + '\n"a.b"() : () -> () loc("n"(fused[]))\n"a.b"() : () -> () ' + locs[4]
                   + '\n"a.b"() : () -> ()')
    assert [r[1] for r in _same_reading(text)] == [
        'loc("a"("f.mlir":1:2))', 'loc(callsite("a" at callsite("b" at "c":1:2)))',
        'loc("x"(fused["y", "z"]))', 'loc("n"(fused[]))', "loc(unknown)", "loc(unknown)"]


def test_attribute_values_read_as_xdsl_reads_them() -> None:
    """`010` raised ValueError (not `Unsupported`) from `op.properties`, `- 1`
    and `array<i8: 255>` were read differently; escapes are now decoded."""
    from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered

    text = _module('"a.b"() <{a = 010 : i32, b = - 1 : i64, c = array<i8: 255, 1>, '
                   'd = "f\\30 \\22x\\22 // loc(\\"q\\")", e = 0x10, f = 1.5 : f32}> '
                   ': () -> () loc("op1")')
    fast = fastparse.parse_module(text).body.block.ops[0].properties
    xdsl = list(parse_lowered(text).walk())[1].properties
    ints = [fast[k].value.data for k in "abe"]
    assert ints == [xdsl[k].value.data for k in "abe"] == [10, -1, 16]
    assert fast["c"].as_tuple() == xdsl["c"].get_values() == (-1, 1)
    assert fast["d"].data == xdsl["d"].data == 'f0 "x" // loc("q")'
    assert str(fast["d"]) == str(xdsl["d"])


@pytest.mark.parametrize("body", [
    '"a.b"() {x = 1, x = 2} : () -> () loc("op1")',  # the last one was read
    '%0 = "a.b"() : () -> i64\n"c.d"(%0) : (i64, i64) -> ()',  # operands against types
    '"a.b"() : () -> i64',  # xDSL makes an unnamed result; the reader had none
    '"a.b"() {op_name__ = "x.y"} : () -> ()',  # xDSL keeps the op's name there
    '"a.b"() {x = #foo.bar<a // b>} : () -> ()',  # raw text to xDSL, a comment elsewhere
    '"a.b"() : () -> () loc(fused["op1", "op2"])',  # lowered_interp looks inside xDSL's
    '"a.b"() : () -> () loc("\\6Fp1")',
    '%0 = "a.b"() : () -> !llvm.struct<(i64,\n i64)>\n"c.d"(%0) : (!llvm.struct<(i64, i64)>) -> ()',
    '"a.b"() {x = array<i32: 1, , 2>} : () -> ()',  # raised ValueError
    '"a.b"() {x = "\\C3\\A9"} : () -> ()',  # bytes to xDSL
])
def test_what_the_reader_would_read_differently_it_declines(body: str) -> None:
    with pytest.raises(fastparse.Unsupported):
        for op in fastparse.parse_module(_module(body)).walk():
            _ = op.attributes


OPS = ('"llvm.func"() <{function_type = !llvm.func<void (i64)>, sym_name = "f0"}> ({\n'
       '^bb0(%arg0: i64 loc("a0"), %arg1: i1 loc(unknown)):\n'
       '  %0 = "llvm.call"() <{callee = @mgpuStreamCreate}> : () -> !llvm.ptr loc("op1")\n'
       '  %1 = "llvm.call"(%arg0, %0) <{callee = @mgpuMemAlloc}> {x = 1 : i64, y = "}"} : '
       '(i64, !llvm.ptr) -> !llvm.ptr loc("op2"("f.mlir":1:2))\n'
       '  "llvm.cond_br"(%arg1, %0) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> '
       ': (i1, !llvm.ptr) -> () loc("op3")\n'
       '^bb1(%s: !llvm.ptr loc("op3")):  // pred: ^bb0\n'
       '  "llvm.call"(%s) <{callee = @mgpuStreamDestroy}> : (!llvm.ptr) -> () loc("op4")\n'
       '  "llvm.br"() [^bb2] : () -> () loc("op4")\n'
       '^bb2:\n'
       '  %2:2 = "test.pair"() : () -> (i64, !gpu.async.token) loc("op5")\n'
       '  "llvm.return"() : () -> () loc("op6")\n'
       '}) : () -> () loc("f")')


@pytest.mark.parametrize("blank", [" // c\n", "\n", "  \t", " // %9 = \"x.y\"(%1) loc(\"no\")\n"])
def test_comments_and_newlines_between_any_two_tokens_of_an_op(blank: str) -> None:
    lines = []
    for line in OPS.split("\n"):
        for spot in reversed(spots(line)):
            if "//" not in blank or not (spot.in_dict or spot.in_type_list):
                line = line[:spot.pos] + blank + line[spot.pos:]
        lines.append(line)
    text = _module("\n".join(lines))
    assert text.count(blank) > 60
    assert fast_reader_agrees(text, {"f0": ["%n", "%c"]})
    assert _same_reading(text) == _same_reading(_module(OPS))
    ops = fastparse.parse_module(text).body.block.ops[0].regions[0].blocks[0].ops
    assert ops[1].location == 'loc("op2"("f.mlir":1:2))'
    assert ops[1].attributes["y"].data == "}"


def test_an_operand_list_with_only_a_comment_is_empty() -> None:
    text = _module('"a.b"( // %0 = x\n) : () -> () loc("op1")')
    assert _same_reading(text) == [("a.b", 'loc("op1")', [], 0, [])]
