"""Memory ops of lowered modules: stack slots, pointer arithmetic, loads and
stores (host memory through the runtime), globals' addresses, and the
`memref` views and fills a lowering leaves on host buffers."""

from __future__ import annotations

import json
import re
from itertools import product
from math import prod
from typing import cast

from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation

from gpu_alloc_verify.oracles import fast_ir, lowered_gpu, strided
from gpu_alloc_verify.oracles.llvm_values import (
    Agg,
    LLVMValue,
    Unsupported,
    decode,
    encode,
    field_offset,
    ints,
    layout,
    prop,
    signed,
    type_name,
)
from gpu_alloc_verify.oracles.lowered_xdsl.framework import op_type
from gpu_alloc_verify.oracles.lowered_xdsl.scalar_ops import machine
from gpu_alloc_verify.verify.ir.locations import source_key

Values = PythonValues
# Stack slots (`llvm.alloca`) live here, outside the runtime's memory: the
# host's own scratch, neither a buffer the program observes nor one the
# runtime checks.
STACK_BASE = 0x5A00_0000_0000
STACK_LIMIT = 1 << 24
# `llvm.mlir.addressof @f` of a function is FUNCTION_BASE + its index: an
# address a call through the pointer resolves, through memory and casts too.
FUNCTION_BASE = 0x5F00_0000_0000
DYNAMIC_INDEX = -2147483648


def op_loc(op: object) -> str | None:
    """The source op key a lowered op carries (`verify.ir.locations.source_key`:
    `loc("op4")`, also inside fused locations; a user's `file:line:col`),
    on xDSL's ops and the fast reader's (which keep the location's text) alike."""
    return source_key(getattr(op, "location", None))


def _descriptor(value: object, what: str) -> Agg:
    if not isinstance(value, Agg):
        raise Unsupported(f"{what} of a value that is no descriptor")
    return value


@register_impls
class MemoryFunctions(InterpreterFunctions):
    """One implementation per memory op."""

    @impl(op_type("llvm.alloca"))
    def run_alloca(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        m = machine(interp)
        t = cast("Attribute | str", fast_ir.type_of(prop(op, "elem_type")))
        size = layout(t)[0] * int(args[0])
        base = len(m.stack) + (-len(m.stack) % 16)
        if base + size > STACK_LIMIT:
            raise Unsupported(f"llvm.alloca of more than {STACK_LIMIT} bytes in all")
        m.stack.extend(bytes(base + size - len(m.stack)))
        return (STACK_BASE + base,)

    @impl(op_type("llvm.getelementptr"))
    def run_gep(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        dynamic = iter(args[1:])
        t = cast("Attribute | str", fast_ir.type_of(prop(op, "elem_type")))
        offset = 0
        for k, raw in enumerate(ints(prop(op, "rawConstantIndices"))):
            idx = signed(next(dynamic), 64) if raw == DYNAMIC_INDEX else raw
            if k == 0:
                offset += idx * layout(t)[0]
            else:
                field_off, t = field_offset(t, idx)
                offset += field_off
        return ((int(args[0] or 0) + offset) & ((1 << 64) - 1),)

    @impl(op_type("llvm.mlir.addressof"))
    def run_addressof(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        m = machine(interp)
        ref = prop(op, "global_name")
        name = getattr(getattr(ref, "root_reference", ref), "data", None)
        if isinstance(name, str) and name in m.globals:
            return (m.global_buffer(name),)
        if not isinstance(name, str) or name not in m.declared:
            raise Unsupported(f"llvm.mlir.addressof of global @{name}")
        address = FUNCTION_BASE + sorted(m.declared).index(name)
        m.addresses[address] = name
        return (address,)

    @impl(op_type("llvm.load"))
    def run_load(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        m = machine(interp)
        t = op.results[0].type
        addr, n = int(args[0] or 0), layout(t)[0]
        off = m.slot(addr, n)
        if off is not None:
            return (decode(bytes(m.stack[off:off + n]), t),)
        m.rt.set_location(op_loc(op))
        data = m.rt.host_read(addr, n)
        return (decode(data, t) if data is not None else 0,)

    @impl(op_type("llvm.store"))
    def run_store(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        m = machine(interp)
        addr, data = int(args[1] or 0), encode(args[0], op.operands[0].type)
        off = m.slot(addr, len(data))
        if off is not None:
            m.stack[off:off + len(data)] = data
            return ()
        m.rt.set_location(op_loc(op))
        m.rt.host_write(addr, data)
        return ()

    @impl(op_type("llvm.intr.memcpy"))
    def run_memcpy(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        """`llvm.intr.memcpy(dst, src, len)` (LLVM 16 adds an i1 isVolatile
        operand): the bytes read whole, then written, each through the stack
        or the runtime as a load and a store go."""
        m = machine(interp)
        dst, src, n = (int(x or 0) for x in args[:3])
        if n == 0:
            return ()
        data = m.read_bytes(op, src, n)
        if data is None:  # refused: the runtime has recorded why
            return ()
        off = m.slot(dst, n)
        if off is not None:
            m.stack[off:off + n] = data
            return ()
        m.rt.set_location(op_loc(op))
        m.rt.host_write(dst, data)
        return ()

    @impl(op_type("memref.load"))
    def run_memref_load(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        m = machine(interp)
        elem = op.results[0].type
        addr = m.memref_address(op.operands[0], args[0], args[1:])
        m.rt.set_location(op_loc(op))
        data = m.rt.host_read(addr, layout(elem)[0])
        return (decode(data, elem) if data is not None else 0,)

    @impl(op_type("memref.store"))
    def run_memref_store(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        m = machine(interp)
        addr = m.memref_address(op.operands[1], args[1], args[2:])
        m.rt.set_location(op_loc(op))
        m.rt.host_write(addr, encode(args[0], op.operands[0].type))
        return ()

    @impl(op_type("memref.subview"))
    def run_subview(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        desc = _descriptor(args[0], "memref.subview")
        dims, _ = lowered_gpu.memref_shape(op.operands[0].type)
        result_dims, _ = lowered_gpu.memref_shape(op.results[0].type)
        rank = len(dims)
        segments = list(ints(prop(op, "operandSegmentSizes")))
        if len(segments) != 4:
            raise Unsupported("memref.subview without operand segments")
        dynamic = [int(x) for x in args[1:]]
        n_off, n_size = segments[1], segments[2]
        offsets = strided.mixed(ints(prop(op, "static_offsets")), dynamic[:n_off])
        sizes = strided.mixed(ints(prop(op, "static_sizes")), dynamic[n_off:n_off + n_size])
        steps = strided.mixed(ints(prop(op, "static_strides")), dynamic[n_off + n_size:])
        src = (desc.int_at((2,)),
               tuple(desc.int_at((3, d)) for d in range(rank)),
               tuple(desc.int_at((4, d)) for d in range(rank)))
        offset, shape, strides = strided.subview(
            src, [signed(x, 64) for x in offsets], [signed(x, 64) for x in sizes],
            [signed(x, 64) for x in steps], [-1 if d is None else d for d in result_dims])
        items: dict[tuple[int, ...], LLVMValue] = {
            (0,): desc.extract((0,)), (1,): desc.extract((1,)), (2,): offset}
        for d, (n, st) in enumerate(zip(shape, strides, strict=True)):
            items[(3, d)], items[(4, d)] = n, st & ((1 << 64) - 1)
        return (Agg(items),)

    @impl(op_type("memref.collapse_shape"))
    def run_collapse_shape(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        """Each group's sizes multiply and its stride is its innermost one
        (a group is contiguous: the op's verifier requires it)."""
        desc = _descriptor(args[0], "memref.collapse_shape")
        text = re.sub(r"\s*:\s*i64", "", str(prop(op, "reassociation")))
        try:
            groups = json.loads(text)
        except ValueError:
            raise Unsupported(f"memref.collapse_shape reassociation {text}") from None
        items: dict[tuple[int, ...], LLVMValue] = {
            (0,): desc.extract((0,)), (1,): desc.extract((1,)), (2,): desc.extract((2,))}
        for k, group in enumerate(groups):
            items[(3, k)] = prod(desc.int_at((3, d)) for d in group)
            items[(4, k)] = desc.int_at((4, group[-1])) if group else 1
        return (Agg(items),)

    @impl(op_type("linalg.fill"))
    def run_fill(self, interp: Interpreter, op: Operation, args: Values) -> Values:
        """Host writes of the value, element by element in row-major order
        (what the source side does; an unconverted fill on a host buffer)."""
        m = machine(interp)
        if len(op.operands) != 2 or op.results:
            raise Unsupported("linalg.fill on a tensor")
        body = op.regions[0].blocks[0]
        inner = list(body.ops)
        if len(inner) != 1 or list(inner[0].operands) != [body.args[0]]:
            raise Unsupported("a linalg.fill whose body converts the value")
        dims, elem = lowered_gpu.memref_shape(op.operands[1].type)
        desc = _descriptor(args[1], "linalg.fill")
        sizes = [desc.int_at((3, d)) for d in range(len(dims))]
        strides = [desc.int_at((4, d)) for d in range(len(dims))]
        base, offset = desc.int_at((1,)), desc.int_at((2,))
        data = encode(args[0], op.operands[0].type)
        if len(data) != layout(elem)[0]:
            raise Unsupported(f"linalg.fill of a {type_name(op.operands[0].type)} into {elem}")
        m.rt.set_location(op_loc(op))
        for idx in product(*(range(n) for n in sizes)):
            linear = offset + sum(i * st for i, st in zip(idx, strides, strict=True))
            m.rt.host_write((base + linear * len(data)) & ((1 << 64) - 1), data)
        return ()
