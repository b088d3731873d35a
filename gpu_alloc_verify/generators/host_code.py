"""The host code upstream pipelines see, beyond kernels and buffers (issue
40): memref views, `async.execute` / `async.await`, `func.call` across
functions, `gpu.host_register`, `gpu.set_default_device`, an un-outlined
`gpu.launch`.  A program holding one is judged from its printed text
(`verify.model.program.in_process_gap`), as a user's file is.

Each keeps the generator's rules (`generators.programs`):

- a view takes its buffer over: later ops use the view, ordered after the
  buffer's last token, and freeing the view frees the buffer;
- an `async.execute` body is a region: outer buffers it touches are dead
  after it (its body runs concurrently with the host), outer tokens it uses
  are ordering only; its `!async.token` and the `!async.value` of the gpu
  token it yields are awaited in the scope that made them, at its end if not
  before;
- a callee is a private function of its own, made for the call: it orders
  one op after the token passed in and returns that op's token (or a new
  buffer and its token).

Measured with Debian mlir-opt 16, 19, 22: all of it parses on the three
(`tests/generators/test_host_code.py`); `memref.expand_shape` is not drawn,
its custom form differs between 16 and 19 (`output_shape`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from gpu_alloc_verify.generators.core import _Buffer, _Scope, ints
from gpu_alloc_verify.generators.launches import LaunchOps
from gpu_alloc_verify.verify.model import program as prog

_TOKEN = prog.TOKEN_TYPE
T = TypeVar("T")


class HostCodeOps(LaunchOps):
    in_execute = False
    callees: list[prog.Function]

    def gen_ops(self, scope: _Scope, depth: int) -> tuple[prog.Op, ...]:
        raise NotImplementedError("the builder's (generators.programs)")

    def close_region(self, scope: _Scope, inner: _Scope) -> None:
        raise NotImplementedError("the builder's (generators.programs)")

    # -- views ------------------------------------------------------------------
    def gen_view(self, scope: _Scope, out: list[prog.Op]) -> None:
        """A view of a buffer, which takes the buffer over; then, mostly, an
        op on the view at once (views as operands are what this draws for)."""
        bases = [b for b in scope.buffers if not b.type.layout]
        if not bases:
            return
        base = self.pick(bases)
        kinds = [k for k in prog.VIEW_KINDS if _view_applies(k, base.type)]
        if not kinds:
            return
        kind = self.pick(kinds)
        vtype, offsets, sizes = self.view_type(kind, base.type)
        name = self.fresh("v")
        out.append(prog.View(self.op_id(), name, kind, base.name, base.type, vtype,
                             offsets, sizes))
        view = _Buffer(name, vtype, base.host_shared, base.last_token, base.kind)
        scope.buffers.remove(base)
        scope.buffers.append(view)
        if base.name in scope.own_buffers:
            scope.own_buffers.add(name)
        else:
            self.touch(scope, base)
        if base.name in scope.keep:
            scope.keep.add(name)
        self.use_view(scope, view, out)

    def view_type(self, kind: str, t: prog.MemRefType
                  ) -> tuple[prog.MemRefType, tuple[int, ...], tuple[int, ...]]:
        """The view's type, and a subview's offsets and sizes."""
        if kind == "cast":  # static dimensions made dynamic
            return replace(t, shape=tuple(None for _ in t.shape)), (), ()
        if kind in ("reinterpret_cast", "collapse_shape"):  # the buffer seen flat
            flat = 1
            for d in t.shape:
                assert d is not None
                flat *= d
            return replace(t, shape=(flat,)), (), ()
        # subview: rows `offset .. offset + size` (of a 2-D buffer, whole rows).
        rows = t.shape[0]
        assert rows is not None
        offset = self.draw(ints(0, rows - 1))
        size = self.draw(ints(1, rows - offset))
        inner = t.shape[1] if len(t.shape) == 2 else 1
        assert inner is not None
        strides = "[1]" if len(t.shape) == 1 else f"[{inner}, 1]"
        layout = f"strided<{strides}, offset: {offset * inner}>"
        shape = (size,) + tuple(t.shape[1:])
        offsets = (offset,) + tuple(0 for _ in t.shape[1:])
        return replace(t, shape=shape, layout=layout), offsets, tuple(
            d for d in shape if d is not None)

    def use_view(self, scope: _Scope, view: _Buffer, out: list[prog.Op]) -> None:
        choice = self.draw(ints(0, 4))
        if choice == 0:
            return
        if choice == 1 and view.on_device:
            value = self.draw(ints(0, 7))
            self._buffer_op(scope, [view], out, lambda i, t, d: prog.Memset(
                i, t, d, view.name, view.type, value))
        elif choice == 2 and view.type.num_dynamic == 0:
            other = self.gen_alloc(scope, out, like=view)
            dst, src = (view, other) if self.coin() else (other, view)
            src_type = None if src.type == dst.type else src.type
            self._buffer_op(scope, [dst, src], out, lambda i, t, d: prog.Memcpy(
                i, t, d, dst.name, src.name, dst.type, src_type))
        elif choice == 3 and view.on_device and not view.type.layout and self.cfg.with_kernels:
            self.gen_launch(scope, out, first=view)
        elif choice == 4 and view.kind != "arg" and view.name not in scope.keep:
            if view.host_allocated:
                self.host_dealloc(scope, view, out)
            else:
                self._buffer_op(scope, [view], out, lambda i, t, d: prog.Dealloc(
                    i, t, d, view.name, view.type))
            scope.buffers.remove(view)

    # -- async.execute ------------------------------------------------------------
    def gen_execute(self, scope: _Scope, out: list[prog.Op], depth: int,
                    chained: bool = False) -> None:
        """An `async.execute`, or an `async.await` of one not awaited yet;
        one time in three a second execute chained to the first at once."""
        unawaited = [a for a in scope.async_tokens if a in scope.own_async] + \
            [v for v, _ in scope.async_values if v in scope.own_async]
        if self.in_execute:
            return
        if unawaited and not chained and self.draw(ints(0, 2)) == 0:
            self.gen_await(scope, self.pick(unawaited), out)
            return
        # Chains (one earlier execute) and joins (two) of tokens and values.
        deps = tuple(self.some(scope.async_tokens, chained))
        operands: list[tuple[str, str]] = []
        inner_tokens: list[tuple[str, set[str]]] = []
        for value, yielded in self.some(scope.async_values, chained):
            inner = self.fresh("in")
            operands.append((value, inner))
            inner_tokens.append((inner, self.covers(yielded) | {inner}))
        yields = self.coin()
        op_id = self.op_id()
        self.in_execute = True
        try:
            body, inner_scope = self.gen_execute_body(scope, depth, yields, inner_tokens)
        finally:
            self.in_execute = False
        token = self.fresh("a")
        results: tuple[str, ...] = ()
        yielded_tokens = tuple(inner_scope.yields or ())
        if yields:
            results = (self.fresh("av"),)
            scope.async_values.append((results[0], yielded_tokens[0]))
            scope.own_async.add(results[0])
        scope.async_tokens.append(token)
        scope.own_async.add(token)
        out.append(prog.Execute(op_id, token, deps, tuple(operands), body, yielded_tokens,
                                results))
        self.close_region(scope, inner_scope)
        if not chained and self.budget > 0 and self.draw(ints(0, 2)) == 0:
            self.budget -= 1
            self.gen_execute(scope, out, depth, chained=True)

    def some(self, options: list[T], one: bool = False) -> list[T]:
        """None (unless `one`), one or two of `options`, distinct."""
        left, chosen = list(options), []
        least = min(1, len(left)) if one else 0
        for _ in range(self.draw(ints(least, min(2, len(left))))):
            chosen.append(left.pop(self.draw(ints(0, len(left) - 1))))
        return chosen

    def gen_execute_body(self, scope: _Scope, depth: int, yields: bool,
                         inner_tokens: list[tuple[str, set[str]]]
                         ) -> tuple[tuple[prog.Op, ...], _Scope]:
        outer = [replace(b) for b in scope.buffers if b.last_token is None]
        inner = _Scope(buffers=outer, tokens=list(scope.tokens), keep=set(scope.keep),
                       yields=[] if yields else None)
        for token, covered in inner_tokens:
            self.awaited_by[token] = covered
            inner.tokens.append(token)
        # At least one op: a body that yields makes its token if none is there.
        return self.gen_ops(inner, depth + 1), inner

    def gen_await(self, scope: _Scope, what: str, out: list[prog.Op]) -> None:
        """`async.await` of an execute's token or value; a value's gpu token
        joins the scope, to be waited on as any other."""
        values = dict(scope.async_values)
        if what in values:
            result = self.fresh("t")
            out.append(prog.Await(self.op_id(), what, result))
            self.add_token(scope, result, self.covers(values[what]) | {result})
            scope.async_values = [(v, t) for v, t in scope.async_values if v != what]
        else:
            out.append(prog.Await(self.op_id(), what))
            scope.async_tokens = [a for a in scope.async_tokens if a != what]
        scope.own_async.discard(what)

    def await_own_async(self, scope: _Scope, out: list[prog.Op]) -> None:
        """Await every execute this scope made and did not await yet."""
        for value, _ in list(scope.async_values):
            if value in scope.own_async:
                self.gen_await(scope, value, out)
        for token in list(scope.async_tokens):
            if token in scope.own_async:
                self.gen_await(scope, token, out)

    # -- calls ----------------------------------------------------------------------
    def gen_call(self, scope: _Scope, out: list[prog.Op]) -> None:
        """A call of a new private function: it orders an op on a buffer after
        a token passed in and returns the op's token, or allocates a buffer and
        returns it with its token."""
        usable = [b for b in scope.buffers if b.on_device and not b.type.layout]
        dep = self.call_token(scope, out)
        callee = f"callee{len(self.callees)}"
        if usable and self.coin():
            buf = self.pick(usable)
            if buf.last_token is not None and buf.last_token != dep:
                self.sync_access(scope, [buf], out)  # the call orders after `dep` only
            t, m, r = "%tok", "%buf", "%done"
            value = self.draw(ints(0, 7))
            body: tuple[prog.Op, ...] = (prog.Memset(self.op_id(), r, (t,), m, buf.type, value),)
            self.callees.append(prog.Function(
                callee, (prog.Arg(t, _TOKEN), prog.Arg(m, buf.type)), body,
                (prog.Arg(r, _TOKEN),), private=True))
            result = self.fresh("t")
            out.append(prog.Call(self.op_id(), callee, (dep, buf.name), (_TOKEN, buf.type),
                                 (result,), (_TOKEN,)))
            self.add_token(scope, result, self.covers(dep) | {result}, (dep,))
            buf.last_token = result
            self.touch(scope, buf)
            return
        mtype, _ = self.draw_type(sized=False)
        if mtype.num_dynamic:
            mtype = replace(mtype, shape=tuple(4 if d is None else d for d in mtype.shape))
        t, m, r = "%tok", "%mem", "%done"
        body = (prog.Alloc(self.op_id(), m, r, (t,), False, mtype),)
        self.callees.append(prog.Function(
            callee, (prog.Arg(t, _TOKEN),), body, (prog.Arg(m, mtype), prog.Arg(r, _TOKEN)),
            private=True))
        name, result = self.fresh("m"), self.fresh("t")
        out.append(prog.Call(self.op_id(), callee, (dep,), (_TOKEN,), (name, result),
                             (mtype, _TOKEN)))
        self.add_token(scope, result, self.covers(dep) | {result}, (dep,))
        self.add_buffer(scope, _Buffer(name, mtype, False, result, "device"))

    def call_token(self, scope: _Scope, out: list[prog.Op]) -> str:
        """The token a call takes: one in scope, or a new `gpu.wait async`."""
        if scope.tokens and self.coin():
            token = self.pick(scope.tokens)
            self.consume(scope, [token])
            return token
        token = self.produce_token(scope, ())
        out.append(prog.Wait(self.op_id(), token, ()))
        self.consume(scope, [token])
        return token

    # -- other host ops -------------------------------------------------------------
    def gen_host_register(self, scope: _Scope, out: list[prog.Op]) -> None:
        """`gpu.host_register` of a host buffer: GPU ops may use it after."""
        hosts = [b for b in scope.buffers if b.kind == "host" and b.type.space is None
                 and not b.type.layout]
        buf = self.pick(hosts) if hosts else None
        if buf is None:
            if not self.cfg.host_buffers:
                return
            buf = self.gen_host_alloc(scope, out)
            if buf.type.space is not None:
                return
        out.append(prog.HostRegister(self.op_id(), buf.name, buf.type, self.fresh("u")))
        buf.kind = "registered"
        self.touch(scope, buf)

    def gen_set_device(self, scope: _Scope, out: list[prog.Op]) -> None:
        device: int | str = self.arg("i32") if self.coin() else self.draw(ints(0, 1))
        out.append(prog.SetDevice(self.op_id(), device))

    def gen_gpu_launch(self, scope: _Scope, out: list[prog.Op]) -> None:
        """An un-outlined `gpu.launch` writing element 0 of a buffer."""
        usable = [b for b in scope.buffers if b.on_device]
        buf = self.pick(usable) if usable else self.device_buffer(scope, out)
        value = self.draw(ints(0, 7))
        self._buffer_op(scope, [buf], out, lambda i, t, d: prog.GpuLaunch(
            i, t, d, buf.name, buf.type, value), launch=True)


def _view_applies(kind: str, t: prog.MemRefType) -> bool:
    static = t.num_dynamic == 0
    if kind == "collapse_shape":
        return static and len(t.shape) == 2
    if kind in ("subview", "reinterpret_cast"):
        return static
    return t.num_dynamic < len(t.shape)  # cast: some dimension to make dynamic
