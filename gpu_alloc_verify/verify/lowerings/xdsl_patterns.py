"""gpu runtime-op patterns as upstream `gpu-to-llvm` has them, and its history.

The shared patterns (`gpu.wait`, `gpu.memcpy`, `gpu.memset`, `gpu.dealloc`)
behave like LLVM 16 to 22: an async op needs exactly one dependency, whose
stream it runs on and hands on as its token; a synchronous `gpu.wait`
synchronizes and destroys each dependency's stream (or event); an async
`gpu.wait` records an event on each dependency's stream right after that
dependency's producer, makes a new stream wait on the events, destroys them.
A token whose lowered value is not a `mgpuStreamCreate` result counts as an
event, as upstream assumes.

The `gpu.alloc` patterns re-create its history:

| variant | sync host_shared | async host_shared | sync plain | async plain |
|---|---|---|---|---|
| llvm16 | fail | fail | fail | one dep: (size, stream) |
| pr66401 | front() of no deps: crash | fail | fail | one dep |
| pr69969-v1 | create/sync/destroy a stream | fail | fail | one dep |
| pr69969 | null stream | fail | fail | one dep |
| pr191661 | null stream | fail | null stream | at most one dep |

("fail": the pattern does not apply and the op stays, as in partial
conversion; llvm16 then rejects the program.)

`gpu.launch_func` as LLVM 19 and 22 lower it (LLVM 16 has no kernel
lowering without a `gpu.binary`: it rejects any launch): the launch stays a
`gpu.launch_func`, its sizes and kernel operands converted (a memref as its
descriptor's fields), and runs on a stream, the `asyncObject` operand: the
dependency's stream, or for an async launch without one a new stream; its
token becomes that stream.  A sync launch without dependencies has no
stream.  A launch with several dependencies, or a sync one with any, is
illegal and fails the whole conversion (`ConversionFailed`).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import gpu, llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    i8,
    i16,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from gpu_alloc_verify.verify.lowerings.xdsl_convert import (
    PTR,
    ConversionFailed,
    ConversionState,
    Emit,
    PatternCrash,
    converts,
    dense_i32,
    descriptor_positions,
    insert_point_after,
    is_call_to,
)
from gpu_alloc_verify.verify.lowerings.xdsl_fastir import attr_key
from gpu_alloc_verify.verify.lowerings.xdsl_gpu_ops import MemsetOp
from gpu_alloc_verify.verify.lowerings.xdsl_std import (
    aligned_ptr,
    alloc_sizes,
    allocated_ptr,
    build_descriptor,
    generic_ptr,
    num_elements,
    size_in_bytes,
)
from gpu_alloc_verify.verify.model.op_specs import CALL_PATTERN_OPS

STREAM_CREATE = "mgpuStreamCreate"


class GpuPattern(RewritePattern):
    def __init__(self, state: ConversionState) -> None:
        self.state = state

    def one_dependency_stream(self, op: Operation) -> SSAValue | None:
        """The dependency's stream if `op` is async with exactly one dependency
        (upstream's `isAsyncWithOneDependency`), else None."""
        deps = [v for v in op.operands if isinstance(v.type, gpu.AsyncTokenType)]
        has_token = any(isinstance(r.type, gpu.AsyncTokenType) for r in op.results)
        if not has_token or len(deps) != 1:
            return None
        return self.state.lookup(deps[0], op)


def token_results(op: Operation, stream: SSAValue | None) -> list[SSAValue | None]:
    """Replacement values for `op`'s results: the stream for its token."""
    return [stream if isinstance(r.type, gpu.AsyncTokenType) else None for r in op.results]


# -- gpu.wait -----------------------------------------------------------------------


class WaitSync(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.WaitOp, rewriter: PatternRewriter) -> None:
        if op.asyncToken is not None:
            return
        emit = Emit(self.state, rewriter, op)
        for value in self.state.lookup_all(list(op.asyncDependencies), op):
            kind = "Stream" if is_call_to(value, STREAM_CREATE) else "Event"
            emit.call(f"mgpu{kind}Synchronize", [value])
            emit.call(f"mgpu{kind}Destroy", [value])
        self.state.replace(op, [], rewriter)


class WaitAsync(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.WaitOp, rewriter: PatternRewriter) -> None:
        if op.asyncToken is None:
            return
        emit = Emit(self.state, rewriter, op)
        events: list[SSAValue] = []
        for dep in op.asyncDependencies:
            value = self.state.lookup(dep, op)
            if is_call_to(value, STREAM_CREATE):
                # Record on the dependency's stream right after its producer.
                assert isinstance(dep.owner, Operation)
                there = emit.at(insert_point_after(dep.owner))
                event = there.call_value("mgpuEventCreate", [], PTR)
                there.call("mgpuEventRecord", [event, value])
                events.append(event)
            else:
                events.append(value)
        stream = emit.call_value(STREAM_CREATE, [], PTR)
        for event in events:
            emit.call("mgpuStreamWaitEvent", [stream, event])
        for event in events:
            emit.call("mgpuEventDestroy", [event])
        self.state.replace(op, [stream], rewriter)


# -- memcpy / memset / dealloc --------------------------------------------------------


class MemcpyOneDep(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.MemcpyOp, rewriter: PatternRewriter) -> None:
        stream = self.one_dependency_stream(op)
        if stream is None:
            return
        emit_memcpy(Emit(self.state, rewriter, op), op, stream)
        self.state.replace(op, token_results(op, stream), rewriter)


def emit_memcpy(emit: Emit, op: gpu.MemcpyOp, stream: SSAValue) -> None:
    t = op.src.type
    assert isinstance(t, MemRefType)
    src_desc = emit.state.lookup(op.src, op)
    dst_desc = emit.state.lookup(op.dst, op)
    nbytes = size_in_bytes(emit, t, num_elements(emit, t, src_desc))
    src = generic_ptr(emit, aligned_ptr(emit, src_desc))
    dst = generic_ptr(emit, aligned_ptr(emit, dst_desc))
    emit.call("mgpuMemcpy", [dst, src, nbytes, stream])


def memset_width(op: MemsetOp) -> int | None:
    t = op.value.type
    if isinstance(t, IntegerType):
        return int(t.bitwidth)
    if isinstance(t, (Float16Type, BFloat16Type)):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    return None


_INT_OF_WIDTH: dict[int, Attribute] = {16: i16, 32: i32}


def emit_memset(emit: Emit, op: MemsetOp, stream: SSAValue, width: int) -> None:
    t = op.dst.type
    assert isinstance(t, MemRefType)
    desc = emit.state.lookup(op.dst, op)
    count = num_elements(emit, t, desc)
    source = emit.state.lookup(op.value, op)
    int_type = _INT_OF_WIDTH.get(width) or IntegerType(width)
    value = emit.make_value(  # a no-op for integers, as upstream
        ("llvm.bitcast", attr_key(source.type), attr_key(int_type)),
        lambda: llvm.BitcastOp(source, int_type), [source])
    ptr = generic_ptr(emit, aligned_ptr(emit, desc))
    emit.call(f"mgpuMemset{width}", [ptr, value, count, stream])


class MemsetOneDep(GpuPattern):
    @converts
    def match_and_rewrite(self, op: MemsetOp, rewriter: PatternRewriter) -> None:
        stream = self.one_dependency_stream(op)
        width = memset_width(op)
        if stream is None or width not in (16, 32):
            return  # upstream: "value must be a 16 or 32 bit int or float"
        emit_memset(Emit(self.state, rewriter, op), op, stream, width)
        self.state.replace(op, token_results(op, stream), rewriter)


class DeallocOneDep(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.DeallocOp, rewriter: PatternRewriter) -> None:
        stream = self.one_dependency_stream(op)
        if stream is None:
            return
        emit = Emit(self.state, rewriter, op)
        emit.call("mgpuMemFree", [allocated_ptr(emit, self.state.lookup(op.buffer, op)), stream])
        self.state.replace(op, token_results(op, stream), rewriter)


class DeallocAtMostOneDep(GpuPattern):
    """pr191661: sync dealloc too, on a null stream; at most one dependency."""

    @converts
    def match_and_rewrite(self, op: gpu.DeallocOp, rewriter: PatternRewriter) -> None:
        if len(op.asyncDependencies) > 1:
            return
        emit = Emit(self.state, rewriter, op)
        desc = self.state.lookup(op.buffer, op)
        if op.asyncDependencies:
            stream = self.state.lookup(op.asyncDependencies[0], op)
        else:
            stream = emit.zero()
        emit.call("mgpuMemFree", [allocated_ptr(emit, desc), stream])
        self.state.replace(op, token_results(op, stream), rewriter)


# -- gpu.alloc ----------------------------------------------------------------------

AllocCall = Callable[[Emit, SSAValue], SSAValue]


def emit_alloc(state: ConversionState, rewriter: PatternRewriter, op: gpu.AllocOp,
               call: AllocCall) -> tuple[Emit, SSAValue]:
    """Sizes, the allocation call (`call(emit, size_bytes)`), the descriptor."""
    t = op.result.type
    assert isinstance(t, MemRefType)
    emit = Emit(state, rewriter, op)
    dynamic = state.lookup_all(list(op.dynamicSizes), op)
    sizes, strides, nbytes = alloc_sizes(emit, t, dynamic)
    ptr = call(emit, nbytes)
    return emit, build_descriptor(emit, t, ptr, sizes, strides)


def upstream_guard(op: gpu.AllocOp) -> bool:
    """pr66401 .. pr69969: shared must be sync; plain must be async with one dep."""
    shared = op.hostShared is not None
    if shared:
        return op.asyncToken is None
    return op.asyncToken is not None and len(op.asyncDependencies) == 1


class AllocLlvm16(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.AllocOp, rewriter: PatternRewriter) -> None:
        stream = self.one_dependency_stream(op)
        if stream is None or op.hostShared is not None:
            return

        def call(emit: Emit, nbytes: SSAValue) -> SSAValue:
            return emit.call_value("mgpuMemAlloc", [nbytes, stream], PTR)

        _, desc = emit_alloc(self.state, rewriter, op, call)
        self.state.replace(op, [desc, stream], rewriter)


class AllocPr66401(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.AllocOp, rewriter: PatternRewriter) -> None:
        if not upstream_guard(op):
            return
        try:  # upstream: adaptor.getAsyncDependencies().front()
            first = op.asyncDependencies[0]
        except IndexError as e:
            raise PatternCrash(
                "assertion failed: front() called on an empty async dependency list "
                f"(gpu.alloc at {op.location})"
            ) from e
        stream = self.state.lookup(first, op)

        def call(emit: Emit, nbytes: SSAValue) -> SSAValue:
            flag = emit.const(int(op.hostShared is not None), i8)
            return emit.call_value("mgpuMemAlloc", [nbytes, stream, flag], PTR)

        _, desc = emit_alloc(self.state, rewriter, op, call)
        self.state.replace(op, [desc, *token_results(op, stream)[1:]], rewriter)


class AllocPr69969V1(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.AllocOp, rewriter: PatternRewriter) -> None:
        if not upstream_guard(op):
            return
        deps = list(op.asyncDependencies)
        made: list[SSAValue] = []

        def call(emit: Emit, nbytes: SSAValue) -> SSAValue:
            stream = (self.state.lookup(deps[0], op) if deps
                      else emit.call_value(STREAM_CREATE, [], PTR))
            made.append(stream)
            flag = emit.const(int(op.hostShared is not None), i8)
            return emit.call_value("mgpuMemAlloc", [nbytes, stream, flag], PTR)

        emit, desc = emit_alloc(self.state, rewriter, op, call)
        stream = made[0]
        if op.asyncToken is not None:
            self.state.replace(op, [desc, stream], rewriter)
            return
        emit.call("mgpuStreamSynchronize", [stream])
        emit.call("mgpuStreamDestroy", [stream])
        self.state.replace(op, [desc], rewriter)


class AllocPr69969(GpuPattern):
    @converts
    def match_and_rewrite(self, op: gpu.AllocOp, rewriter: PatternRewriter) -> None:
        if not upstream_guard(op):
            return
        self.lower_with_null_default(op, rewriter)

    def lower_with_null_default(self, op: gpu.AllocOp, rewriter: PatternRewriter) -> None:
        deps = list(op.asyncDependencies)
        stream = self.state.lookup(deps[0], op) if deps else None
        holder: list[SSAValue] = []

        def call(emit: Emit, nbytes: SSAValue) -> SSAValue:
            null = emit.zero()
            holder.append(stream or null)
            flag = emit.const(int(op.hostShared is not None), i8)
            return emit.call_value("mgpuMemAlloc", [nbytes, holder[0], flag], PTR)

        _, desc = emit_alloc(self.state, rewriter, op, call)
        self.state.replace(op, [desc, *token_results(op, holder[0])[1:]], rewriter)


class AllocPr191661(AllocPr69969):
    @converts
    def match_and_rewrite(self, op: gpu.AllocOp, rewriter: PatternRewriter) -> None:
        shared = op.hostShared is not None
        if (shared and op.asyncToken is not None) or len(op.asyncDependencies) > 1:
            return
        self.lower_with_null_default(op, rewriter)


# -- gpu.launch_func ----------------------------------------------------------------


def illegal(op: Operation) -> ConversionFailed:
    """What mlir-opt says of an illegal op left over by a full conversion."""
    return ConversionFailed(f"<unknown>:0: error: {op.location}: failed to legalize "
                            f"operation '{op.name}' that was explicitly marked illegal")


def launch_on(emit: Emit, op: gpu.LaunchFuncOp, stream: SSAValue | None) -> None:
    """The converted `gpu.launch_func` (on `stream`, if any), as upstream builds it."""
    state = emit.state
    sizes = state.lookup_all([op.gridSizeX, op.gridSizeY, op.gridSizeZ,
                              op.blockSizeX, op.blockSizeY, op.blockSizeZ], op)
    args: list[SSAValue] = []
    for operand in op.kernelOperands:
        value = state.lookup(operand, op)
        t = operand.type
        if isinstance(t, MemRefType):  # the descriptor's fields, one by one
            assert isinstance(value.type, llvm.LLVMStructType)
            field_types = value.type.types.data
            for position in descriptor_positions(len(t.get_shape())):
                field_type = field_types[position[0]]
                if isinstance(field_type, llvm.LLVMArrayType):
                    field_type = field_type.type
                args.append(emit.extract(value, position, field_type))
        else:
            args.append(value)
    streams = [] if stream is None else [stream]
    segments = (0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, len(args), len(streams))
    kernel = op.kernel
    operands = [*sizes, *args, *streams]
    emit.make(("gpu.launch_func", attr_key(kernel), segments),
              lambda: gpu.LaunchFuncOp.create(
                  operands=operands,
                  properties={"kernel": kernel, "operandSegmentSizes": dense_i32(segments)}),
              operands)


class LaunchUpstream(GpuPattern):
    """LLVM 19 / 22: on the dependency's stream, or a new one if async."""

    @converts
    def match_and_rewrite(self, op: gpu.LaunchFuncOp, rewriter: PatternRewriter) -> None:
        deps = list(op.asyncDependencies)
        is_async = op.asyncToken is not None
        if len(deps) > 1 or (deps and not is_async):
            raise illegal(op)
        emit = Emit(self.state, rewriter, op)
        stream: SSAValue | None = None
        if deps:
            stream = self.state.lookup(deps[0], op)
        elif is_async:
            stream = emit.call_value(STREAM_CREATE, [], PTR)
        launch_on(emit, op, stream)
        self.state.replace(op, token_results(op, stream), rewriter)


class LaunchLlvm16(GpuPattern):
    """LLVM 16 looks the kernel's binary up (`gpu.binary`, which
    `convert-gpu-to-nvvm` does not make): every launch fails, at the first
    op the full conversion could not legalize."""

    @converts
    def match_and_rewrite(self, op: gpu.LaunchFuncOp, rewriter: PatternRewriter) -> None:
        deps = list(op.asyncDependencies)
        is_async = op.asyncToken is not None
        for earlier in self.state.module.walk():
            if earlier is op:
                break
            if earlier.name in CALL_PATTERN_OPS:
                raise illegal(earlier)
        if len(deps) > 1 or (deps and not is_async):
            raise illegal(op)
        # The pattern reports the module, then the conversion the launch.
        raise ConversionFailed("<unknown>:0: error: 'gpu.module' op missing gpu.binary "
                               f"attribute\n{illegal(op).diagnostic}")


def upstream_patterns(state: ConversionState, alloc: type[GpuPattern],
                      dealloc: type[GpuPattern] = DeallocOneDep,
                      launch: type[GpuPattern] | None = None) -> list[RewritePattern]:
    if launch is None:  # the kernel lowering of the alloc's LLVM version
        launch = LaunchLlvm16 if alloc is AllocLlvm16 else LaunchUpstream
    return [
        WaitSync(state),
        WaitAsync(state),
        alloc(state),
        dealloc(state),
        MemcpyOneDep(state),
        MemsetOneDep(state),
        launch(state),
    ]
