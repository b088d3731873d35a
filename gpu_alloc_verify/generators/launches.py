"""Real-code constructs of generated programs: kernel launches, buffers
passed in, host buffers, scalar arguments, sizes and results.

Kernels come from the fixed catalogue (`verify.model.kernels`); a launch uses
buffers GPU ops may touch (never a `memref.alloc` host buffer), orders
after the last token on each (`_buffer_op`), and is sync or async.  A
buffer passed in (`memref` argument) has an unknown kind: GPU ops may use
it, the host does not read it and the function never frees it.  Memory
spaces appear on such arguments only, unless `GenConfig.alloc_spaces`:
gpu-to-llvm 19 and 22 emit invalid IR for a `gpu.alloc` or
`memref.dealloc` in memory space 1 (measured; 16 lowers both).

Measured with Debian mlir-opt 16, 19, 22 (pipeline
`gpu.module(convert-gpu-to-nvvm),gpu-to-llvm`; all of it parses on all three):

- any `gpu.launch_func`: 16 rejects ("'gpu.module' op missing gpu.binary
  attribute"); 19 and 22 lower it, and reject it when the gpu.module was
  not converted first ("got N kernel operands but expected M");
- async launch without deps: on a new stream (`mgpuStreamCreate` at the
  launch); with one: on the dependency's stream; its token is that stream;
  sync launch without deps: a `gpu.launch_func` without stream operand;
- async launch with 2+ deps, sync launch with deps: 16, 19, 22 reject
  ("failed to legalize operation 'gpu.launch_func'");
- memref arguments (memcpy, memset, dealloc, launch), scalar arguments,
  results, `memref.dim`, `memref.alloc` / `dealloc` (`malloc` / `free`):
  lowered by all three (memory space 1: `llvm.addrspacecast` to `ptr`);
- `memref.alloc` + `dealloc` in memory space 1: 16 lowers; 19, 22 reject
  (`llvm.call @free` operand `!llvm.ptr<1>` != `!llvm.ptr`);
- `gpu.alloc` in memory space 1: 16 lowers (async, one dep); 19, 22 reject
  (insertvalue of `!llvm.ptr` into a `ptr<1>` descriptor; 22 drops an
  unused sync one first);
- memset of bf16 / i16: 16 rejects, 19 and 22 call `mgpuMemset16`; of f64,
  i8, index: 16 rejects, 19 and 22 leave it unconverted and exit 0.
"""

from __future__ import annotations

from dataclasses import replace

from gpu_alloc_verify.generators.core import BuilderCore, _Buffer, _Scope, ints
from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.kernels import SHAPE_NAMES, SHAPES


class LaunchOps(BuilderCore):
    # -- buffers of other kinds -----------------------------------------------
    def arg_buffer(self, scope: _Scope, type_: prog.MemRefType | None = None) -> _Buffer:
        """A buffer passed in as a function argument."""
        if type_ is None:
            type_, _ = self.draw_type(sized=False)
            if self.cfg.memory_spaces and self.draw(ints(0, 3)) == 0:
                type_ = replace(type_, space=1)
        return self.add_buffer(scope, _Buffer(self.arg(type_), type_, False, None, "arg"))

    def device_buffer(self, scope: _Scope, out: list[prog.Op]) -> _Buffer:
        """A new buffer GPU ops may use: allocated, or passed in."""
        if self.cfg.memref_args and self.draw(ints(0, 4)) == 4:
            return self.arg_buffer(scope)
        return self.gen_alloc(scope, out)

    def twin(self, scope: _Scope, out: list[prog.Op], like: _Buffer) -> _Buffer:
        """A new GPU-usable buffer of `like`'s type."""
        if like.type.space is not None or (like.kind == "arg" and self.coin()):
            return self.arg_buffer(scope, like.type)
        return self.gen_alloc(scope, out, like=like)

    def gen_host_alloc(self, scope: _Scope, out: list[prog.Op],
                       like: _Buffer | None = None) -> _Buffer:
        """`memref.alloc`: a host buffer (of `like`'s type if given)."""
        mtype, dyn = self.type_like(like)
        name = self.fresh("h")
        out.append(prog.HostAlloc(self.op_id(), name, mtype, tuple(dyn)))
        return self.add_buffer(scope, _Buffer(name, mtype, False, None, "host"))

    def host_dealloc(self, scope: _Scope, buf: _Buffer, out: list[prog.Op]) -> None:
        """`memref.dealloc`: the host frees it once its GPU work is awaited."""
        self.sync_access(scope, [buf], out)
        out.append(prog.HostDealloc(self.op_id(), buf.name, buf.type))
        self.touch(scope, buf)

    # -- launches -------------------------------------------------------------
    def gen_launch(self, scope: _Scope, out: list[prog.Op], first: _Buffer | None = None) -> None:
        """A launch of a catalogue kernel (on `first` first, if given)."""
        if not self.cfg.with_kernels:
            return
        shape = SHAPES[self.pick(SHAPE_NAMES)]
        bufs = self.launch_buffers(scope, out, len(shape.buffers), first)
        kernel = prog.KernelRef(shape.name, bufs[0].type)
        scalar = self.launch_scalar(kernel.type.elem) if shape.scalar else None
        grid, block = self.launch_sizes(bufs[0], out)
        names = tuple(b.name for b in bufs)
        self._buffer_op(
            scope, bufs, out,
            lambda i, t, d: prog.Launch(i, t, d, kernel, names, scalar, grid, block), launch=True)

    def launch_buffers(self, scope: _Scope, out: list[prog.Op], n: int,
                       first: _Buffer | None = None) -> list[_Buffer]:
        # A strided view is no kernel operand: the catalogue's take identity layouts.
        usable = [b for b in scope.buffers if b.on_device and not b.type.layout]
        if first is None:
            if not usable or self.draw(ints(0, 3)) == 0:
                usable.append(self.device_buffer(scope, out))
            first = self.pick(usable)
        chosen = [first]
        for _ in range(n - 1):
            same = [b for b in usable if b.type == first.type and b not in chosen]
            if not same or self.draw(ints(0, 3)) == 0:
                same.append(self.twin(scope, out, first))
                usable.append(same[-1])
            chosen.append(self.pick(same))
        return chosen

    def launch_scalar(self, elem: str) -> int | str:
        """The scalar operand: a constant, or a value passed in."""
        if self.cfg.scalar_args and elem in prog.SCALAR_TYPES and self.coin():
            return self.arg(elem)
        return self.draw(ints(0, 7))

    def launch_sizes(self, buf: _Buffer, out: list[prog.Op]) -> tuple[prog.Sizes, prog.Sizes]:
        """Grid and block: constants, a size passed in, or the buffer's size."""
        choice = self.draw(ints(0, 2))
        grid_x: prog.Size = 1
        if choice == 1:
            grid_x = self.size_of(buf, out)
        elif choice == 2:
            grid_x = self.pick((2, 4))
        block_x: prog.Size = self.pick((4, 16, 64))
        block_y: prog.Size = self.pick((1, 4)) if len(buf.type.shape) == 2 else 1
        return (grid_x, 1, 1), (block_x, block_y, 1)

    def size_of(self, buf: _Buffer, out: list[prog.Op]) -> str:
        """An index value: `memref.dim` of a dynamic buffer, else an argument."""
        if buf.type.shape[0] is None:
            name = self.fresh("d")
            out.append(prog.Dim(self.op_id(), name, buf.name, buf.type, 0))
            return name
        return self.arg("index")

    # -- results --------------------------------------------------------------
    def gen_results(self, body: tuple[prog.Op, ...]) -> tuple[prog.Arg, ...]:
        """The value the function returns, if any: a loaded value or a size of
        its top level."""
        if not self.cfg.results:
            return ()
        values = [prog.Arg(op.result, op.type.elem) for op in body if isinstance(op, prog.HostLoad)]
        values += [prog.Arg(op.result, "index") for op in body if isinstance(op, prog.Dim)]
        # One value at most: what real code mostly returns (more would be a
        # struct in LLVM).
        if not values or not self.coin():
            return ()
        return (self.pick(values),)
