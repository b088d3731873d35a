"""Mutation operators for issue 43's classes: constructs that hide a value
or an order from a reader that is not exact.

Same-stream order inversion, guards on loop-carried values, narrow unsigned
loop bounds, tokens left in signatures, void-declared wrappers, llvm.switch,
handles through globals, pointer arithmetic and struct returns from helpers
(`verify.campaign.mutants` registers them).  The text is generic form, one
op per line (`verify.ir.generic_lines`); new blocks are only made in an
`llvm.func`'s own region, where a block may be split.
"""

from __future__ import annotations

import random

from gpu_alloc_verify.verify.campaign.mutants_ir import PTR, pick, route
from gpu_alloc_verify.verify.ir.generic_lines import (
    Line,
    constant,
    fresh,
    llvm_function_type,
    op,
    read_lines,
    two_successors,
)
from gpu_alloc_verify.verify.ir.text import (
    properties,
    with_callee,
    with_function_type,
    with_one_operand_segment,
)

WORK = ("mgpuMemset32", "mgpuMemset16", "mgpuMemset8", "mgpuMemcpy")
SEG = "operandSegmentSizes = array<i32: 1, 0, 0>"


def _void_calls(infos: list[Line], top_level: bool) -> list[Line]:
    """Runtime calls with no result inside an llvm.func (in its own region
    when `top_level`: a block may be split there)."""
    return [x for x in infos if x.callee.startswith("mgpu") and not x.result and x.func >= 0
            and (not top_level or x.owner == "llvm.func")]


def _label(x: Line, name: str, args: str = "") -> str:
    return f"{x.indent[:-2]}^{name}{f'({args})' if args else ''}:"


def _br(x: Line, dest: str, operands: list[str] | None = None, types: str = "") -> str:
    ops = ", ".join(operands or [])
    return f'{x.indent}"llvm.br"({ops})[^{dest}] : ({types}) -> () {x.loc}'.rstrip()


def _cond_br(x: Line, cond: str, yes: str, no: str) -> str:
    return (f'{x.indent}"llvm.cond_br"({cond})[^{yes}, ^{no}] <{{{SEG}}}> : (i1) -> () '
            f'{x.loc}').rstrip()


def _icmp(x: Line, result: str, a: str, b: str, predicate: int, t: str) -> str:
    return op(result, "llvm.icmp", [a, b], [t, t], "i1", x.loc, f"predicate = {predicate} : i64",
              x.indent)


def _add(x: Line, result: str, a: str, b: str, t: str, name: str = "llvm.add") -> str:
    return op(result, name, [a, b], [t, t], t, x.loc, "overflowFlags = #llvm.overflow<none>",
              x.indent)


def _module_insert(text: str, new: list[str]) -> str | None:
    """`new` at module level, above the first function."""
    lines = text.split("\n")
    for x in read_lines(text):
        if x.name in ("llvm.func", "func.func") and x.owner in ("", "builtin.module"):
            lines[x.index:x.index] = new
            return "\n".join(lines)
    return None


# -- order ---------------------------------------------------------------------------


def invert_stream_order(text: str, rng: random.Random) -> str | None:
    """A memset or copy moved just below the next one on the same stream
    (same block): the two run in the other order (changes)."""
    infos = read_lines(text)
    work = [x for x in infos if x.callee in WORK and x.func >= 0 and x.operands]
    pairs = []
    for k, x in enumerate(work):
        y = next((y for y in work[k + 1:] if y.block == x.block
                  and y.operands[-1] == x.operands[-1]), None)
        if y is not None and not x.result:
            pairs.append((x, y))
    if not pairs:
        return None
    x, y = rng.choice(pairs)
    lines = text.split("\n")
    lines.insert(y.index + 1, lines[x.index])
    del lines[x.index]
    return "\n".join(lines)


# -- loops and guards ----------------------------------------------------------------


def loop_guard(text: str, rng: random.Random) -> str | None:
    """A runtime call moved behind a counting loop of N rounds and run only
    when the counter's last value is >= N, which it always is (keeps)."""
    x = pick(rng, _void_calls(read_lines(text), top_level=True))
    if x is None:
        return None
    p = fresh(text)
    n = rng.choice((3, 40, 100))
    v = f"%{p}"
    new = [constant(f"{v}z", 0, "i32", x.loc, x.indent),
           constant(f"{v}n", n, "i32", x.loc, x.indent),
           constant(f"{v}o", 1, "i32", x.loc, x.indent),
           _br(x, f"{p}head", [f"{v}z"], "i32"),
           _label(x, f"{p}head", f"{v}i: i32"),
           _icmp(x, f"{v}c", f"{v}i", f"{v}n", 2, "i32"),  # slt
           _cond_br(x, f"{v}c", f"{p}body", f"{p}exit"),
           _label(x, f"{p}body"),
           _add(x, f"{v}j", f"{v}i", f"{v}o", "i32"),
           _br(x, f"{p}head", [f"{v}j"], "i32"),
           _label(x, f"{p}exit"),
           _icmp(x, f"{v}g", f"{v}i", f"{v}n", 5, "i32"),  # sge: true at the exit
           _cond_br(x, f"{v}g", f"{p}then", f"{p}join"),
           _label(x, f"{p}then"),
           x.text,
           _br(x, f"{p}join"),
           _label(x, f"{p}join")]
    lines = text.split("\n")
    lines[x.index:x.index + 1] = new
    return "\n".join(lines)


def narrow_unsigned_loop(text: str, rng: random.Random) -> str | None:
    """A runtime call put in a loop over i8 from 0 to 200 by 200, compared
    unsigned: exactly one round (read signed, 200 is -56: none) (keeps).
    The loop is `scf.for` with `unsignedCmp`, or a cf loop on `icmp ult`."""
    use_scf = rng.random() < 0.5
    x = pick(rng, _void_calls(read_lines(text), top_level=not use_scf))
    if x is None:
        return None
    v = "%" + fresh(text)
    p = v[1:]
    head = [constant(f"{v}lo", 0, "i8", x.loc, x.indent),
            constant(f"{v}hi", -56, "i8", x.loc, x.indent),
            constant(f"{v}st", -56, "i8", x.loc, x.indent)]
    if use_scf:
        body = [f'{x.indent}"scf.for"({v}lo, {v}hi, {v}st) ({{',
                f"{x.indent}^bb0({v}i: i8):",
                "  " + x.text,
                f'{x.indent}  "scf.yield"() : () -> () {x.loc}'.rstrip(),
                f"{x.indent}}}) {{unsignedCmp}} : (i8, i8, i8) -> () {x.loc}".rstrip()]
    else:
        body = [_br(x, f"{p}head", [f"{v}lo"], "i8"),
                _label(x, f"{p}head", f"{v}i: i8"),
                _icmp(x, f"{v}c", f"{v}i", f"{v}hi", 6, "i8"),  # ult
                _cond_br(x, f"{v}c", f"{p}body", f"{p}exit"),
                _label(x, f"{p}body"),
                x.text,
                _add(x, f"{v}j", f"{v}i", f"{v}st", "i8"),
                _br(x, f"{p}head", [f"{v}j"], "i8"),
                _label(x, f"{p}exit")]
    lines = text.split("\n")
    lines[x.index:x.index + 1] = head + body
    return "\n".join(lines)


# -- signatures and declarations -----------------------------------------------------


def token_parameter(text: str, rng: random.Random) -> str | None:
    """A private function declaration taking a `!gpu.async.token` left in the
    module: nothing runs differently, but the module does not translate
    (lowering-complete) (keeps what runs)."""
    name = fresh(text) + "keep"
    return _module_insert(text, [
        f'  "func.func"() <{{function_type = (!gpu.async.token) -> (), sym_name = "{name}", '
        'sym_visibility = "private"}> ({', "  }) : () -> ()"])


# A creator's declared type: a pointer made from no argument (either spelling).
_CREATE_TYPES = ("!llvm.func<ptr ()>", "!llvm.func<!llvm.ptr ()>")


def void_wrapper(text: str, rng: random.Random) -> str | None:
    """`mgpuStreamCreate` or `mgpuEventCreate` declared and called with a void
    result: the handle is made and dropped, null used in its place (changes)."""
    infos = read_lines(text)
    names = [n for n in ("mgpuStreamCreate", "mgpuEventCreate")
             if any(x.callee == n and x.result for x in infos)]
    if not names:
        return None
    name = rng.choice(names)
    lines = text.split("\n")
    decl = next((x for x in infos if x.name == "llvm.func" and f'sym_name = "{name}"' in x.text
                 and llvm_function_type(x.text) in _CREATE_TYPES), None)
    if decl is None:
        return None
    lines[decl.index] = with_function_type(decl.text, "!llvm.func<void ()>")
    for x in reversed([x for x in infos if x.callee == name and x.result]):
        call = x.text.replace(f"{x.result} = ", "", 1)
        k = call.rfind(f") -> {PTR}")
        if k < 0:
            return None
        call = call[:k] + ") -> ()" + call[k + len(f") -> {PTR}"):]
        lines[x.index:x.index + 1] = [call, op(x.result, "llvm.mlir.zero", [], [], PTR, x.loc,
                                                indent=x.indent)]
    return "\n".join(lines)


# -- switch --------------------------------------------------------------------------


def switch_branch(text: str, rng: random.Random) -> str | None:
    """An `llvm.cond_br` without branch operands rewritten as `llvm.switch`
    on its zero-extended condition (case 1: the true successor); where there
    is none, a runtime call behind a switch on a constant that picks it
    (keeps)."""
    infos = read_lines(text)
    conds = [x for x in infos if x.name in ("llvm.cond_br", "cf.cond_br") and x.func >= 0
             and SEG in x.text and len(x.operands) == 1]
    if conds and rng.random() < 0.6:
        x = rng.choice(conds)
        succ = two_successors(x.text)
        if succ is None:
            return None
        v = "%" + fresh(text)
        lines = text.split("\n")
        lines[x.index:x.index + 1] = [
            op(f"{v}x", "llvm.zext", [x.operands[0]], ["i1"], "i32", x.loc, indent=x.indent),
            _switch(x, f"{v}x", succ[1], [(1, succ[0])])]
        return "\n".join(lines)
    y = pick(rng, _void_calls(infos, top_level=True))
    if y is None:
        return None
    return _switch_on_constant(text, y)


def _switch_on_constant(text: str, x: Line) -> str:
    """Call `x` in case 2 of a switch on the constant 2."""
    p = fresh(text)
    v = f"%{p}"
    lines = text.split("\n")
    lines[x.index:x.index + 1] = [
        constant(f"{v}k", 2, "i32", x.loc, x.indent),
        _switch(x, f"{v}k", f"{p}join", [(1, f"{p}join"), (2, f"{p}then")]),
        _label(x, f"{p}then"), x.text, _br(x, f"{p}join"), _label(x, f"{p}join")]
    return "\n".join(lines)


def _switch(x: Line, value: str, default: str, cases: list[tuple[int, str]]) -> str:
    dests = ", ".join(f"^{d}" for d in [default, *(c[1] for c in cases)])
    values = ", ".join(str(c[0]) for c in cases)
    props = (f"case_operand_segments = array<i32: {', '.join('0' for _ in cases)}>, "
             f"case_values = dense<[{values}]> : vector<{len(cases)}xi32>, {SEG}")
    return f'{x.indent}"llvm.switch"({value})[{dests}] <{{{props}}}> : (i32) -> () {x.loc}'.rstrip()


# -- handles through memory, integers and helpers ------------------------------------


def handle_through_global(text: str, rng: random.Random) -> str | None:
    """A handle stored to an internal `llvm.mlir.global` and loaded back (keeps)."""
    name = fresh(text) + "slot"

    def build(h: Line, p: str, _: list[str]) -> tuple[list[str], str]:
        addr = op(f"%{p}g", "llvm.mlir.addressof", [], [], PTR, h.loc,
                  f"global_name = @{name}", h.indent)
        return [addr,
                op("", "llvm.store", [h.result, f"%{p}g"], [PTR, PTR], "", h.loc,
                   "ordering = 0 : i64", h.indent),
                op(f"%{p}l", "llvm.load", [f"%{p}g"], [PTR], PTR, h.loc, "ordering = 0 : i64",
                   h.indent)], f"%{p}l"
    out = route(text, rng, build)
    if out is None:
        return None
    # Undef at first (stored before it is read): the interpreter runs that
    # initializer, not an arbitrary region.
    return _module_insert(out, [
        f'  "llvm.mlir.global"() <{{addr_space = 0 : i32, global_type = !llvm.ptr, linkage = '
        f'#llvm.linkage<internal>, sym_name = "{name}", visibility_ = 0 : i64}}> ({{',
        f'    %{name}u = "llvm.mlir.undef"() : () -> !llvm.ptr',
        f'    "llvm.return"(%{name}u) : (!llvm.ptr) -> ()', "  }) : () -> ()"])


def pointer_arithmetic(text: str, rng: random.Random) -> str | None:
    """A handle through ptrtoint, + k, - k and inttoptr: the same pointer (keeps)."""
    k = rng.choice((8, 256, 1 << 40))

    def build(h: Line, p: str, _: list[str]) -> tuple[list[str], str]:
        v = f"%{p}"
        return [op(f"{v}i", "llvm.ptrtoint", [h.result], [PTR], "i64", h.loc, indent=h.indent),
                constant(f"{v}k", k, "i64", h.loc, h.indent),
                _add(h, f"{v}a", f"{v}i", f"{v}k", "i64"),
                _add(h, f"{v}b", f"{v}a", f"{v}k", "i64", "llvm.sub"),
                op(f"{v}p", "llvm.inttoptr", [f"{v}b"], ["i64"], PTR, h.loc, indent=h.indent)
                ], f"{v}p"
    return route(text, rng, build)


def struct_return(text: str, rng: random.Random) -> str | None:
    """A handle passed to an internal helper that returns it in field 0 of
    a struct, extracted by the caller (keeps)."""
    name = fresh(text) + "pack"
    t = f"!llvm.struct<({PTR}, i64)>"

    def build(h: Line, p: str, _: list[str]) -> tuple[list[str], str] | None:
        props = properties(h.text)
        if props is None or h.operands:
            return None
        props = with_one_operand_segment(with_callee(props, name))
        return [op(f"%{p}r", "llvm.call", [h.result], [PTR], t, h.loc, props, h.indent),
                op(f"%{p}p", "llvm.extractvalue", [f"%{p}r"], [t], PTR, h.loc,
                   "position = array<i64: 0>", h.indent)], f"%{p}p"
    out = route(text, rng, build)
    if out is None:
        return None
    v = f"%{name}"
    return _module_insert(out, [
        f'  "llvm.func"() <{{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<struct<(ptr, '
        f'i64)> (ptr)>, linkage = #llvm.linkage<internal>, sym_name = "{name}", '
        f'visibility_ = 0 : i64}}> ({{',
        f"  ^bb0({v}a: !llvm.ptr):",
        op(f"{v}u", "llvm.mlir.undef", [], [], t, ""),
        op(f"{v}s", "llvm.insertvalue", [f"{v}u", f"{v}a"], [t, PTR], t, "",
           "position = array<i64: 0>"),
        f'    "llvm.return"({v}s) : ({t}) -> ()', "  }) : () -> ()"])


__all__ = ["handle_through_global", "invert_stream_order", "loop_guard",
           "narrow_unsigned_loop", "pointer_arithmetic", "struct_return", "switch_branch",
           "token_parameter", "void_wrapper"]
