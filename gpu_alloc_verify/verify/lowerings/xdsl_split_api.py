"""`xdsl:split-api`: the reviewer's proposal on PR #69969, made complete.

Allocation and free split into synchronous and asynchronous entry points:

- sync `gpu.alloc`    -> `mgpuMemAlloc(size : i64, isHostShared : i8) -> ptr`, no stream;
- async `gpu.alloc`   -> `mgpuMemAllocAsync(size : i64, stream, isHostShared : i8) -> ptr`;
- sync `gpu.dealloc`  -> `mgpuMemFree(ptr)`;
- async `gpu.dealloc` -> `mgpuMemFreeAsync(ptr, stream)`.

Everything else is lowered too, with a stream discipline that neither leaks
nor uses a stream after destroying it, whatever the token graph:

- a token stands for a set of streams (its frontier): the stream its op ran
  on, or for `gpu.wait async [deps]` the union of the dependencies' sets (a
  work-less wait creates nothing; `gpu.wait async` without deps creates a
  stream, as upstream does);
- an async op runs on its single dependency's stream when that token has no
  other use and stands for one stream (the stream is handed on); otherwise on
  a new stream that waits, through events created, recorded, waited on and
  destroyed on the spot, on every stream of its dependencies' sets;
- a stream belongs to the block that created it: a synchronous `gpu.wait`
  synchronizes its dependencies' streams and destroys those that belong to
  its block and that no later op can reach; the block's terminator destroys
  the rest;
- a synchronous memset / memcpy / `gpu.launch_func` runs on a temporary
  stream that it synchronizes and destroys at once (an async launch runs on
  its token's stream, as any async op; the launch stays a
  `gpu.launch_func <%stream>`, as upstream leaves it);
- a 64-bit `gpu.memset` calls `mgpuMemset64(dst, value : i64, count, stream)`,
  an entry point this proposal adds (upstream has only 16 and 32 bits).

`xdsl:reference` is the same stream discipline calling only functions the
runtimes export (`verify/model/runtime_table.json`), the lowering a lit test
for upstream must pass on: allocs are `mgpuMemAlloc(size, stream or null,
shared)` (host-synchronous, whatever the stream); an async free synchronizes
its stream first, since `mgpuMemFree` frees at once while queued work may
still use the buffer; a 64-bit memset, which no runtime has, is left
unconverted (a limitation, not a lit test).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func, gpu, scf
from xdsl.dialects.builtin import i8
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from gpu_alloc_verify.verify.lowerings.xdsl_convert import (
    PTR,
    ConversionState,
    Emit,
    converts,
    is_call_to,
)
from gpu_alloc_verify.verify.lowerings.xdsl_gpu_ops import MemsetOp
from gpu_alloc_verify.verify.lowerings.xdsl_patterns import (
    STREAM_CREATE,
    GpuPattern,
    emit_alloc,
    emit_memcpy,
    emit_memset,
    launch_on,
    memset_width,
)
from gpu_alloc_verify.verify.lowerings.xdsl_std import allocated_ptr, llvm_return

Body = Callable[[Emit, SSAValue], None]


def _tokens(op: Operation) -> list[SSAValue]:
    return [v for v in op.operands if isinstance(v.type, gpu.AsyncTokenType)]


def _is_async(op: Operation) -> bool:
    return any(isinstance(r.type, gpu.AsyncTokenType) for r in op.results)


class SplitApiPattern(GpuPattern):
    # `xdsl:reference`: only functions the runtimes export (see the docstring).
    REAL_ONLY = False

    def block(self, op: Operation) -> Block:
        assert op.parent is not None
        return op.parent

    def frontier(self, op: Operation) -> list[SSAValue]:
        """The live streams behind `op`'s dependencies, in order."""
        out: list[SSAValue] = []
        for token in _tokens(op):
            streams = self.state.frontier.get(token)
            if streams is None:
                value = self.state.lookup(token, op)
                streams = (value,) if is_call_to(value, STREAM_CREATE) else ()
            out += [s for s in streams if s not in out and s not in self.state.destroyed]
        return out

    def new_stream(self, emit: Emit, behind: list[SSAValue], owned: bool) -> SSAValue:
        """A fresh stream ordered after the work already on `behind`."""
        stream = emit.call_value(STREAM_CREATE, [], PTR)
        if owned:
            self.state.block_streams.setdefault(self.block(emit.op), []).append(stream)
        for dep in behind:
            event = emit.call_value("mgpuEventCreate", [], PTR)
            emit.call("mgpuEventRecord", [event, dep])
            emit.call("mgpuStreamWaitEvent", [stream, event])
            emit.call("mgpuEventDestroy", [event])
        return stream

    def stream_for(self, emit: Emit, op: Operation) -> SSAValue:
        """The stream an async op runs on (its token's stream)."""
        tokens, behind = _tokens(op), self.frontier(op)
        if len(tokens) == 1 and len(behind) == 1 \
                and self.state.replaced_use_count(tokens[0]) == 1:
            return behind[0]
        return self.new_stream(emit, behind, owned=True)

    def used_later(self, stream: SSAValue, at: Operation) -> bool:
        """Whether a token not yet consumed (but by `at`) stands for `stream`."""
        tokens = [c for c, streams in self.state.frontier.items() if stream in streams]
        tokens += [u.operation.results[0] for u in stream.uses
                   if u.operation.name == "builtin.unrealized_conversion_cast"]
        return any(u.operation is not at for t in tokens for u in t.uses)

    def settle(self, emit: Emit, op: Operation) -> None:
        """Host-synchronize `op`'s dependencies; destroy what is done with."""
        owned = self.state.block_streams.get(self.block(op), [])
        for stream in self.frontier(op):
            emit.call("mgpuStreamSynchronize", [stream])
            if stream in owned and not self.used_later(stream, op):
                emit.call("mgpuStreamDestroy", [stream])
                self.state.destroyed.add(stream)

    def lower_on_stream(self, op: Operation, rewriter: PatternRewriter, body: Body) -> None:
        emit = Emit(self.state, rewriter, op)
        if _is_async(op):
            stream = self.stream_for(emit, op)
            body(emit, stream)
            self.state.replace(op, [stream], rewriter)
            return
        stream = self.new_stream(emit, self.frontier(op), owned=False)
        body(emit, stream)
        emit.call("mgpuStreamSynchronize", [stream])
        emit.call("mgpuStreamDestroy", [stream])
        self.state.destroyed.add(stream)
        self.state.replace(op, [], rewriter)


class SplitWait(SplitApiPattern):
    @converts
    def match_and_rewrite(self, op: gpu.WaitOp, rewriter: PatternRewriter) -> None:
        emit = Emit(self.state, rewriter, op)
        if op.asyncToken is None:
            self.settle(emit, op)
            self.state.replace(op, [], rewriter)
        elif not op.asyncDependencies:
            self.state.replace(op, [self.new_stream(emit, [], owned=True)], rewriter)
        else:
            behind = self.frontier(op)
            (token,) = self.state.replace(op, [behind[0] if behind else emit.zero()], rewriter)
            if token is not None:
                self.state.frontier[token] = tuple(behind)


class SplitAlloc(SplitApiPattern):
    @converts
    def match_and_rewrite(self, op: gpu.AllocOp, rewriter: PatternRewriter) -> None:
        shared = int(op.hostShared is not None)
        emit = Emit(self.state, rewriter, op)
        if op.asyncToken is None:
            self.settle(emit, op)  # a (rare) synchronous alloc with dependencies

            def sync_call(emit: Emit, nbytes: SSAValue) -> SSAValue:
                flag = emit.const(shared, i8)
                if self.REAL_ONLY:
                    return emit.call_value("mgpuMemAlloc", [nbytes, emit.zero(), flag], PTR)
                return emit.call_value("mgpuMemAlloc", [nbytes, flag], PTR)

            _, desc = emit_alloc(self.state, rewriter, op, sync_call)
            self.state.replace(op, [desc], rewriter)
            return
        stream = self.stream_for(emit, op)

        def async_call(emit: Emit, nbytes: SSAValue) -> SSAValue:
            flag = emit.const(shared, i8)
            callee = "mgpuMemAlloc" if self.REAL_ONLY else "mgpuMemAllocAsync"
            return emit.call_value(callee, [nbytes, stream, flag], PTR)

        _, desc = emit_alloc(self.state, rewriter, op, async_call)
        self.state.replace(op, [desc, stream], rewriter)


class SplitDealloc(SplitApiPattern):
    @converts
    def match_and_rewrite(self, op: gpu.DeallocOp, rewriter: PatternRewriter) -> None:
        emit = Emit(self.state, rewriter, op)
        if op.asyncToken is None:
            self.settle(emit, op)
            ptr = allocated_ptr(emit, self.state.lookup(op.buffer, op))
            emit.call("mgpuMemFree", [ptr, emit.zero()] if self.REAL_ONLY else [ptr])
            self.state.replace(op, [], rewriter)
            return
        stream = self.stream_for(emit, op)
        ptr = allocated_ptr(emit, self.state.lookup(op.buffer, op))
        if self.REAL_ONLY:
            # mgpuMemFree frees at once: the stream's queued work goes first.
            emit.call("mgpuStreamSynchronize", [stream])
            emit.call("mgpuMemFree", [ptr, stream])
        else:
            emit.call("mgpuMemFreeAsync", [ptr, stream])
        self.state.replace(op, [stream], rewriter)


class SplitMemcpy(SplitApiPattern):
    @converts
    def match_and_rewrite(self, op: gpu.MemcpyOp, rewriter: PatternRewriter) -> None:
        self.lower_on_stream(op, rewriter, lambda emit, stream: emit_memcpy(emit, op, stream))


class SplitMemset(SplitApiPattern):
    @converts
    def match_and_rewrite(self, op: MemsetOp, rewriter: PatternRewriter) -> None:
        width = memset_width(op)
        if width not in ((16, 32) if self.REAL_ONLY else (16, 32, 64)):
            return
        assert width is not None
        self.lower_on_stream(
            op, rewriter, lambda emit, stream: emit_memset(emit, op, stream, width)
        )


class SplitLaunch(SplitApiPattern):
    @converts
    def match_and_rewrite(self, op: gpu.LaunchFuncOp, rewriter: PatternRewriter) -> None:
        self.lower_on_stream(op, rewriter, lambda emit, stream: launch_on(emit, op, stream))


class BlockEnd(SplitApiPattern):
    """Destroy, before a block's terminator, the streams it still owns."""

    def destroy_owned(self, op: Operation, rewriter: PatternRewriter) -> None:
        for stream in self.state.block_streams.pop(self.block(op), []):
            if stream in self.state.destroyed:
                continue
            # Located at the op that created the stream: its owner, for reports.
            creator = stream.owner
            assert isinstance(creator, Operation)
            Emit(self.state, rewriter, op, loc=creator.location).call(
                "mgpuStreamDestroy", [stream])
            self.state.destroyed.add(stream)


class YieldCleanup(BlockEnd):
    @converts
    def match_and_rewrite(self, op: scf.YieldOp, rewriter: PatternRewriter) -> None:
        self.destroy_owned(op, rewriter)


class ReturnCleanup(BlockEnd):
    @converts
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter) -> None:
        self.destroy_owned(op, rewriter)
        values = self.state.lookup_all(list(op.arguments), op)
        rewriter.replace(op, llvm_return(op.location, values))


_SPLIT_API = (SplitWait, SplitAlloc, SplitDealloc, SplitMemcpy, SplitMemset, SplitLaunch,
              YieldCleanup, ReturnCleanup)


def split_api_patterns(state: ConversionState) -> list[RewritePattern]:
    return [cls(state) for cls in _SPLIT_API]


def reference_patterns(state: ConversionState) -> list[RewritePattern]:
    """The split API's discipline on the functions the runtimes export."""
    return [type(f"Reference{cls.__name__}", (cls,), {"REAL_ONLY": True})(state)
            for cls in _SPLIT_API]
