"""Mutation operators over control flow, memory and op order
(`verify.campaign.mutants` has the rest and the registry)."""

from __future__ import annotations

import random
from collections.abc import Callable

from gpu_alloc_verify.verify.campaign.mutants_ir import PTR, handles, pick, route
from gpu_alloc_verify.verify.ir.generic_lines import (
    Line,
    constant,
    fresh,
    func_end,
    op,
    read_lines,
    replace_uses,
    uses,
)
from gpu_alloc_verify.verify.ir.text import (
    properties,
    with_callee,
    with_function_type,
    with_one_operand_segment,
    with_sym_name,
)

HOST_ACCESSES = ("llvm.load", "llvm.store", "memref.load", "memref.store")
TERMINATORS = ("llvm.br", "llvm.cond_br", "cf.br", "cf.cond_br", "llvm.return", "scf.yield",
               "func.return", "llvm.switch", "llvm.unreachable")


def block_arg_swap(text: str, rng: random.Random) -> str | None:
    """After two handles %a, %b: `llvm.br ^m(%b, %a)` to a new block
    `^m(%x, %y)`; later uses of %a read %y, of %b read %x (keeps)."""
    infos = read_lines(text)
    hs = [h for h in handles(infos) if h.owner == "llvm.func"]
    if len(hs) < 2:
        return None
    a, b = sorted(rng.sample(hs, 2), key=lambda h: h.index)
    if a.func != b.func or a.block != b.block:
        return None
    p = fresh(text)
    lines = text.split("\n")
    end = func_end(infos, b.func)
    hit = replace_uses(lines, a.result, f"%{p}y", b.index + 1, end)
    hit |= replace_uses(lines, b.result, f"%{p}x", b.index + 1, end)
    if not hit:
        return None
    br = (f'{b.indent}"llvm.br"({b.result}, {a.result})[^{p}blk] : ({PTR}, {PTR}) -> () '
          f'{b.loc}').rstrip()
    label = f"{b.indent[:-2]}^{p}blk(%{p}x: {PTR}, %{p}y: {PTR}):"
    lines[b.index + 1:b.index + 1] = [br, label]
    return "\n".join(lines)


def _slot_ops(h: Line, p: str, slot: list[str]) -> tuple[list[str], str]:
    """Store `h` through a 0-offset GEP into the slot `slot` makes
    (its last line defines %{p}s), then load it back."""
    ind, loc = h.indent, h.loc
    gep = "elem_type = !llvm.ptr, rawConstantIndices = array<i32: 0>"
    return [*slot,
            op(f"%{p}g", "llvm.getelementptr", [f"%{p}s"], [PTR], PTR, loc, gep, ind),
            op("", "llvm.store", [h.result, f"%{p}g"], [PTR, PTR], "", loc,
               "ordering = 0 : i64", ind),
            op(f"%{p}l", "llvm.load", [f"%{p}s"], [PTR], PTR, loc, "ordering = 0 : i64",
               ind)], f"%{p}l"


def gep_store_alloca(text: str, rng: random.Random) -> str | None:
    """A handle stored into an alloca slot through a GEP 0, loaded back (keeps)."""
    def build(h: Line, p: str, _: list[str]) -> tuple[list[str], str]:
        return _slot_ops(h, p, [
            constant(f"%{p}n", 1, "i64", h.loc, h.indent),
            op(f"%{p}s", "llvm.alloca", [f"%{p}n"], ["i64"], PTR, h.loc,
               "alignment = 8 : i64, elem_type = !llvm.ptr", h.indent)])
    return route(text, rng, build)


def gep_store_heap(text: str, rng: random.Random) -> str | None:
    """The same through an 8-byte `malloc` slot (host memory the runtime
    models, so the run decides it) (keeps)."""
    def build(h: Line, p: str, _: list[str]) -> tuple[list[str], str] | None:
        props = properties(h.text)
        if props is None:
            return None
        props = with_one_operand_segment(with_callee(props, "malloc"))
        return _slot_ops(h, p, [
            constant(f"%{p}n", 8, "i64", h.loc, h.indent),
            # A location of no source op: execution labels host buffers by it.
            op(f"%{p}s", "llvm.call", [f"%{p}n"], ["i64"], PTR, 'loc("selfcheck-slot")',
               props, h.indent)])
    out = route(text, rng, build)
    return _declare_malloc(out) if out is not None else None


def _declare_malloc(text: str) -> str | None:
    if 'sym_name = "malloc"' in text:
        return text
    lines = text.split("\n")
    for k, line in enumerate(lines[:-1]):
        if '"llvm.func"()' in line and 'sym_name = "mgpu' in line and line.endswith("({") \
                and lines[k + 1].strip().startswith("})"):
            decl = with_function_type(with_sym_name(line, "malloc"), "!llvm.func<!llvm.ptr (i64)>")
            lines[k + 2:k + 2] = [decl, lines[k + 1]]
            return "\n".join(lines)
    return None


# -- op order ----------------------------------------------------------------------


def _base(value: str) -> str:
    return value.split("#")[0]


def _closes(y: Line) -> bool:
    return y.text.strip().startswith("})")


def _earlier(infos: list[Line], x: Line) -> list[int]:
    """Lines of x's block above it that x may move before: below the defs
    of its operands (nested regions skipped whole)."""
    out, depth, needs = [], 0, {_base(v) for v in x.operands}
    for k in range(x.index - 1, -1, -1):
        y = infos[k]
        if _closes(y):
            depth += 1
            continue
        if y.opens and depth > 0:
            depth -= 1
        if depth > 0:
            continue
        if not y.name or y.block != x.block or (y.result and _base(y.result) in needs):
            break
        out.append(k)
    return out


def _later(infos: list[Line], x: Line) -> list[int]:
    """Lines of x's block below it that x may move before: up to the first
    use of its result and its block's terminator."""
    out, depth = [], 0
    for k in range(x.index + 1, len(infos)):
        y = infos[k]
        if depth == 0:
            if not y.name or y.block != x.block:
                break
            if k > x.index + 1:
                out.append(k)
            if y.name in TERMINATORS:
                break
        if x.result and uses(y, x.result):
            break
        depth += 1 if y.opens else -1 if _closes(y) else 0
    return out


def _move(text: str, rng: random.Random, pred: Callable[[Line], bool], earlier: bool,
          later: bool) -> str | None:
    infos = read_lines(text)
    movable = [x for x in infos if x.func >= 0 and x.name and pred(x)
               and x.name not in TERMINATORS and not x.opens]
    rng.shuffle(movable)
    for x in movable:
        spots = (_earlier(infos, x) if earlier else []) + (_later(infos, x) if later else [])
        if spots:
            dest = rng.choice(spots)
            lines = text.split("\n")
            line = lines.pop(x.index)
            lines.insert(dest if dest < x.index else dest - 1, line)
            return "\n".join(lines)
    return None


def swap_adjacent_calls(text: str, rng: random.Random) -> str | None:
    """Two adjacent runtime calls, the second not using the first, swapped."""
    infos = read_lines(text)
    pairs = [x for x, y in zip(infos, infos[1:], strict=False)
             if x.callee.startswith("mgpu") and y.callee.startswith("mgpu")
             and x.block == y.block and not (x.result and x.result in y.operands)]
    x = pick(rng, pairs)
    if x is None:
        return None
    lines = text.split("\n")
    lines[x.index], lines[x.index + 1] = lines[x.index + 1], lines[x.index]
    return "\n".join(lines)


def destroy_earlier(text: str, rng: random.Random) -> str | None:
    return _move(text, rng, lambda x: x.callee in ("mgpuStreamDestroy", "mgpuEventDestroy"),
                 True, False)


def synchronize_earlier(text: str, rng: random.Random) -> str | None:
    return _move(text, rng, lambda x: x.callee in ("mgpuStreamSynchronize",
                                                   "mgpuEventSynchronize"), True, False)


def move_host_access(text: str, rng: random.Random) -> str | None:
    return _move(text, rng, lambda x: x.name in HOST_ACCESSES, True, True)


def move_event_record(text: str, rng: random.Random) -> str | None:
    return _move(text, rng, lambda x: x.callee == "mgpuEventRecord", True, True)
