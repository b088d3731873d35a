"""Mutation operators over lowered (LLVM-dialect, generic-form) text.

Each operator is a function `(text, rng) -> text | None`: one rewrite at a
site `rng` picks, or None where the operator does not apply.  `keeps` says
whether the rewrite keeps what the code does on the runtime (handle lives,
the calls' order and arguments): the analysis must reach the same verdicts
on a keeping mutant, and execution's observations must not change.  The
others (reordered calls, deleted or duplicated destroys, ...) change it: the
analysis must follow the change.  `verify.campaign.selfcheck` judges both
kinds against execution.  Operators over control flow and memory live in
`verify.campaign.mutants_flow`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from gpu_alloc_verify.verify.campaign.mutants_ir import PTR, pick, route
from gpu_alloc_verify.verify.ir.generic_lines import (
    Line,
    constant,
    constant_value,
    fresh,
    int_width,
    op,
    read_lines,
    signed,
)

Mutator = Callable[[str, random.Random], "str | None"]
DESTROYS = ("mgpuStreamDestroy", "mgpuEventDestroy")
WAITS = ("mgpuStreamSynchronize", "mgpuEventSynchronize")


@dataclass(frozen=True)
class Operator:
    name: str
    klass: str  # the construct it exercises (the report's rows)
    keeps: bool  # keeps behaviour on the runtime
    fn: Mutator


# -- arithmetic that wraps, casts, constants ------------------------------------


def _int_constants(text: str) -> list[tuple[Line, int, int]]:
    out = []
    for x in read_lines(text):
        value, width = constant_value(x), int_width(x.result_type)
        if value is not None and width is not None and width > 1 and x.func >= 0:
            out.append((x, value, width))
    return out


def wrap_add(text: str, rng: random.Random) -> str | None:
    """c  ->  (c + 2^(w-1)) + 2^(w-1): two constants whose sum wraps to c."""
    sites = _int_constants(text)
    if not sites:
        return None
    x, value, w = rng.choice(sites)
    t, p = x.result_type, "%" + fresh(text)
    half = 1 << (w - 1)
    lines = text.split("\n")
    lines[x.index:x.index + 1] = [
        constant(f"{p}a", signed(value + half, w), t, x.loc, x.indent),
        constant(f"{p}b", signed(half, w), t, x.loc, x.indent),
        op(x.result, "llvm.add", [f"{p}a", f"{p}b"], [t, t], t, x.loc, indent=x.indent)]
    return "\n".join(lines)


def wrap_mul(text: str, rng: random.Random) -> str | None:
    """c  ->  (c * k) * k^-1 mod 2^w for an odd k: a product that wraps twice."""
    sites = _int_constants(text)
    if not sites:
        return None
    x, value, w = rng.choice(sites)
    k = rng.randrange(3, 1 << min(w, 62), 2)
    inv = pow(k, -1, 1 << w)
    t, p = x.result_type, "%" + fresh(text)
    lines = text.split("\n")
    lines[x.index:x.index + 1] = [
        constant(f"{p}a", signed(value * k, w), t, x.loc, x.indent),
        constant(f"{p}b", signed(inv, w), t, x.loc, x.indent),
        op(x.result, "llvm.mul", [f"{p}a", f"{p}b"], [t, t], t, x.loc, indent=x.indent)]
    return "\n".join(lines)


def trunc_ext(text: str, rng: random.Random) -> str | None:
    """c  ->  zext/sext(trunc c) through the narrowest width that holds c."""
    sites = [s for s in _int_constants(text) if s[1] >= 0]
    if not sites:
        return None
    x, value, w = rng.choice(sites)
    need = value.bit_length() + 1  # a clear sign bit: sext keeps it too
    narrow = next((n for n in (2, 8, 16, 32) if need <= n < w), None)
    if narrow is None:
        return None
    t, p, n = x.result_type, "%" + fresh(text), f"i{narrow}"
    ext = rng.choice(("llvm.zext", "llvm.sext"))
    lines = text.split("\n")
    lines[x.index:x.index + 1] = [
        constant(f"{p}a", value, t, x.loc, x.indent),
        op(f"{p}b", "llvm.trunc", [f"{p}a"], [t], n, x.loc, indent=x.indent),
        op(x.result, ext, [f"{p}b"], [n], t, x.loc, indent=x.indent)]
    return "\n".join(lines)


def ptr_roundtrip(text: str, rng: random.Random) -> str | None:
    """A handle through ptrtoint and inttoptr (i64: the same pointer)."""
    def build(h: Line, p: str, _: list[str]) -> tuple[list[str], str]:
        return [op(f"%{p}i", "llvm.ptrtoint", [h.result], [PTR], "i64", h.loc, indent=h.indent),
                op(f"%{p}p", "llvm.inttoptr", [f"%{p}i"], ["i64"], PTR, h.loc,
                   indent=h.indent)], f"%{p}p"
    return route(text, rng, build)


def nested_aggregate(text: str, rng: random.Random) -> str | None:
    """A handle into a nested struct (at [1, 0]) and extracted back."""
    t = f"!llvm.struct<(i64, !llvm.struct<({PTR}, i64)>)>"

    def build(h: Line, p: str, _: list[str]) -> tuple[list[str], str]:
        pos = "position = array<i64: 1, 0>"
        return [op(f"%{p}u", "llvm.mlir.undef", [], [], t, h.loc, indent=h.indent),
                op(f"%{p}s", "llvm.insertvalue", [f"%{p}u", h.result], [t, PTR], t, h.loc,
                   pos, h.indent),
                op(f"%{p}p", "llvm.extractvalue", [f"%{p}s"], [t], PTR, h.loc, pos,
                   h.indent)], f"%{p}p"
    return route(text, rng, build)


def dead_handle_constant(text: str, rng: random.Random) -> str | None:
    """An unused pointer made from an integer that looks like a handle
    (the runtime's first handle numbers, a null, an address)."""
    infos = [x for x in read_lines(text) if x.func >= 0 and x.name and x.name != "llvm.func"
             and not x.opens and x.result]
    x = pick(rng, infos)
    if x is None:
        return None
    value = rng.choice((0, 1, 2, 4096, 0x1000_0000, 0x7F00_0000_0000))
    p = "%" + fresh(text)
    lines = text.split("\n")
    lines[x.index + 1:x.index + 1] = [
        constant(f"{p}c", value, "i64", x.loc, x.indent),
        op(f"{p}p", "llvm.inttoptr", [f"{p}c"], ["i64"], PTR, x.loc, indent=x.indent)]
    return "\n".join(lines)


def handle_constant_use(text: str, rng: random.Random) -> str | None:
    """A runtime call's handle operand replaced by a pointer made from an
    integer constant: 0, a runtime's own stream (1 CU_STREAM_LEGACY, 2
    per-thread: valid streams on cuda, never events nor destroyable) or one
    no runtime defines (3, 7).  Whether it changes what runs is execution's
    to say."""
    calls = [x for x in read_lines(text) if x.callee.startswith("mgpu") and x.operands
             and x.callee not in ("mgpuMemAlloc",) and x.func >= 0]
    x = pick(rng, [c for c in calls if f"({PTR}" in c.text.split(" : ")[-1]])
    if x is None:
        return None
    value = rng.choice((0, 1, 2, 3, 7))
    p = "%" + fresh(text)
    lines = text.split("\n")
    lines[x.index] = lines[x.index].replace(f'"llvm.call"({x.operands[0]}',
                                            f'"llvm.call"({p}p', 1)
    lines[x.index:x.index] = [
        constant(f"{p}c", value, "i64", x.loc, x.indent),
        op(f"{p}p", "llvm.inttoptr", [f"{p}c"], ["i64"], PTR, x.loc, indent=x.indent)]
    return "\n".join(lines)


# -- locations --------------------------------------------------------------------

_LOC_FORMS = (
    'loc(fused["{k}", "elsewhere"])', 'loc(fused["{k}", "{k}"])',
    'loc(fused["{k}"])', 'loc(callsite("{k}" at "caller.mlir":1:1))',
    'loc("{k}"("k.mlir":3:5))',
)


def location_form(text: str, rng: random.Random) -> str | None:
    """A `loc("opN")` rewritten into another form naming the same op: fused
    (duplicated, with metadata), call-site, name with a child."""
    infos = [x for x in read_lines(text) if x.loc.startswith('loc("op') and x.loc.endswith('")')
             and x.func >= 0]
    x = pick(rng, infos)
    if x is None:
        return None
    key = x.loc[5:-2]
    lines = text.split("\n")
    lines[x.index] = lines[x.index][: -len(x.loc)] + rng.choice(_LOC_FORMS).format(k=key)
    return "\n".join(lines)


# -- calls: deleted, duplicated, through a pointer ------------------------------


def _calls(text: str, names: tuple[str, ...]) -> list[Line]:
    return [x for x in read_lines(text) if x.callee in names and x.func >= 0]


def delete_destroy(text: str, rng: random.Random) -> str | None:
    x = pick(rng, _calls(text, DESTROYS))
    if x is None:
        return None
    lines = text.split("\n")
    del lines[x.index]
    return "\n".join(lines)


def duplicate_destroy(text: str, rng: random.Random) -> str | None:
    x = pick(rng, _calls(text, DESTROYS))
    if x is None:
        return None
    lines = text.split("\n")
    lines.insert(x.index + 1, lines[x.index])
    return "\n".join(lines)


def indirect_call(text: str, rng: random.Random) -> str | None:
    """A runtime call made through `llvm.mlir.addressof` + an indirect call."""
    x = pick(rng, [c for c in read_lines(text) if c.callee.startswith("mgpu") and c.func >= 0])
    if x is None:
        return None
    p = "%" + fresh(text)
    line = x.text.replace(f"callee = @{x.callee}, ", "").replace(f", callee = @{x.callee}", "")
    line = line.replace(f'"llvm.call"({", ".join(x.operands)})',
                        f'"llvm.call"({", ".join((f"{p}f", *x.operands))})', 1)
    line = line.replace(" : (", f" : ({PTR}, " if x.operands else f" : ({PTR}", 1)
    seg = f"operandSegmentSizes = array<i32: {len(x.operands)}, 0>"
    line = line.replace(seg, f"operandSegmentSizes = array<i32: {len(x.operands) + 1}, 0>")
    lines = text.split("\n")
    lines[x.index] = line
    lines.insert(x.index, op(f"{p}f", "llvm.mlir.addressof", [], [], PTR, x.loc,
                             f"global_name = @{x.callee}", x.indent))
    return "\n".join(lines)


def _registry() -> tuple[Operator, ...]:
    from gpu_alloc_verify.verify.campaign import mutants_flow as f
    from gpu_alloc_verify.verify.campaign import mutants_hidden as h

    return (
        Operator("wrap-add", "wrapping arithmetic", True, wrap_add),
        Operator("wrap-mul", "wrapping arithmetic", True, wrap_mul),
        Operator("trunc-ext", "casts", True, trunc_ext),
        Operator("ptr-roundtrip", "casts", True, ptr_roundtrip),
        Operator("dead-handle-constant", "handle-like constants", True, dead_handle_constant),
        Operator("handle-constant-use", "handle-like constants", False, handle_constant_use),
        Operator("nested-aggregate", "nested aggregates", True, nested_aggregate),
        Operator("block-arg-swap", "block arguments", True, f.block_arg_swap),
        Operator("gep-store-alloca", "GEP stores", True, f.gep_store_alloca),
        Operator("gep-store-heap", "GEP stores", True, f.gep_store_heap),
        Operator("indirect-call", "function pointers", True, indirect_call),
        Operator("swap-adjacent-calls", "reordered calls", False, f.swap_adjacent_calls),
        Operator("destroy-earlier", "reordered calls", False, f.destroy_earlier),
        Operator("synchronize-earlier", "reordered calls", False, f.synchronize_earlier),
        Operator("move-host-access", "moved host accesses", False, f.move_host_access),
        Operator("move-event-record", "moved event records", False, f.move_event_record),
        Operator("delete-destroy", "deleted/duplicated destroys", False, delete_destroy),
        Operator("duplicate-destroy", "deleted/duplicated destroys", False, duplicate_destroy),
        Operator("location-form", "location forms", True, location_form),
        # Issue 43's classes (`verify.campaign.mutants_hidden`).
        Operator("invert-stream-order", "order inversion on one stream", False,
                 h.invert_stream_order),
        Operator("loop-guard", "guards on loop-carried values", True, h.loop_guard),
        Operator("narrow-unsigned-loop", "narrow unsigned bounds", True, h.narrow_unsigned_loop),
        Operator("token-parameter", "token parameters left", True, h.token_parameter),
        Operator("void-wrapper", "void-declared wrappers", False, h.void_wrapper),
        Operator("switch-branch", "switch-based control flow", True, h.switch_branch),
        Operator("handle-through-global", "handles through globals", True,
                 h.handle_through_global),
        Operator("pointer-arithmetic", "pointer arithmetic", True, h.pointer_arithmetic),
        Operator("struct-return", "struct returns from helpers", True, h.struct_return),
    )


OPERATORS: tuple[Operator, ...] = _registry()
BY_NAME = {o.name: o for o in OPERATORS}
