"""Hypothesis strategies that build valid async GPU programs.

Programs are valid by construction: values dominate their uses, a buffer is
never touched after its dealloc on any path, an op on a buffer (a kernel
launch too) depends on the token of the last async op that touched it, and a
host (synchronous) access only happens once that token was awaited.  Nested scopes (`scf.if`,
`scf.for`) see outer values; an outer buffer they touch is dead afterwards,
since its state is then path-dependent.

They look like real GPU code (`generators.launches`): kernels of a small
catalogue (`verify.model.kernels`) launched sync and async, buffers and scalars
passed in, host buffers, memory spaces, returned values; `GenConfig` says
which, and `supported` keeps to what one upstream version lowers.

Shrinking goes towards fewer ops (the op count is drawn first), fewer
functions, no branches, static shapes and sync ops (the first choice of each
`sampled_from` is its shrink target).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from hypothesis import event
from hypothesis import strategies as st

from gpu_alloc_verify.generators.core import (
    OP_KINDS,
    GenConfig,
    _Buffer,
    _Scope,
    campaign_config,
    ints,
)
from gpu_alloc_verify.generators.host_code import HostCodeOps
from gpu_alloc_verify.generators.hypothesis_private import HandOffStrategy
from gpu_alloc_verify.generators.swarm import draw_swarm
from gpu_alloc_verify.verify.model import program as prog

__all__ = ["OP_KINDS", "GenConfig", "campaign_config", "programs"]

# Kinds that open a region, bounded by `GenConfig.max_depth`.
_NESTING = ("if", "for", "execute")


class _Builder(HostCodeOps):
    def gen_wait(self, scope: _Scope, out: list[prog.Op]) -> None:
        if self.is_async():
            deps = self.take_deps(scope, [])
            token = self.produce_token(scope, deps)
            out.append(prog.Wait(self.op_id(), token, deps))
        elif scope.pending:
            n = self.draw(ints(1, len(scope.pending)))
            self.host_wait(scope, scope.pending[:n], out)
            # Real programs wait in order to touch results on the host.
            if self.budget > 0 and self.coin():
                self.budget -= 1
                self.gen_host(scope, out)

    def gen_dealloc(self, scope: _Scope, out: list[prog.Op]) -> None:
        candidates = [b for b in scope.buffers
                      if b.name not in scope.keep and b.kind != "arg"]
        if not candidates:
            return
        buf = self.pick(candidates)
        if buf.host_allocated:
            self.host_dealloc(scope, buf, out)
        else:
            self._buffer_op(
                scope, [buf], out, lambda i, t, d: prog.Dealloc(i, t, d, buf.name, buf.type)
            )
        scope.buffers.remove(buf)

    def gen_memset(self, scope: _Scope, out: list[prog.Op]) -> None:
        usable = [b for b in scope.buffers if b.on_device]
        buf = self.pick(usable) if usable else self.device_buffer(scope, out)
        value = self.draw(ints(0, 7))
        self._buffer_op(
            scope, [buf], out, lambda i, t, d: prog.Memset(i, t, d, buf.name, buf.type, value)
        )

    def gen_memcpy(self, scope: _Scope, out: list[prog.Op]) -> None:
        by_type: dict[prog.MemRefType, list[_Buffer]] = {}
        for b in scope.buffers:
            # A view with a layout is copied as it is made (`gen_view`).
            if b.type.num_dynamic == 0 and not b.type.layout:
                by_type.setdefault(b.type, []).append(b)
        # Host to host is no GPU copy: a pair needs a buffer GPU ops may use.
        pairs = [bs for bs in by_type.values()
                 if len(bs) >= 2 and any(b.on_device for b in bs)]
        if not pairs:
            if not by_type:
                return
            # Give a static buffer a twin to copy to or from (a host one,
            # staging, when it is itself GPU-usable).
            group = self.pick(list(by_type.values()))
            like = group[0]
            if like.on_device and like.type.space is None and self.cfg.host_buffers \
                    and self.draw(ints(0, 3)) == 3:
                self.gen_host_alloc(scope, out, like=like)
            else:
                self.twin(scope, out, like)
            pairs = [[b for b in scope.buffers if b.type == like.type]]
        group = self.pick(pairs)
        dst = self.pick(group)
        src = self.pick([b for b in group if b is not dst and (b.on_device or dst.on_device)])
        self._buffer_op(
            scope,
            [dst, src],
            out,
            lambda i, t, d: prog.Memcpy(i, t, d, dst.name, src.name, dst.type),
        )

    def gen_host(self, scope: _Scope, out: list[prog.Op]) -> None:
        visible = [b for b in scope.buffers if b.host_visible]
        if not visible:
            buf = self.new_host_visible(scope, out)
            if buf is None:
                return
            visible = [buf]
        buf = self.pick(visible)
        self.sync_access(scope, [buf], out)
        if self.coin():
            value = self.draw(ints(0, 7))
            out.append(prog.HostStore(self.op_id(), buf.name, buf.type, value))
        else:
            out.append(prog.HostLoad(self.op_id(), self.fresh("v"), buf.name, buf.type))
        self.touch(scope, buf)

    def new_host_visible(self, scope: _Scope, out: list[prog.Op]) -> _Buffer | None:
        """A buffer the host may read: host_shared (18 and later lower a sync
        one) or, one time in three, a host buffer (which the reference
        semantics does not run: kept the rarer)."""
        shared_ok = self.cfg.host_shared and (self.cfg.supported or 99) >= 18
        if self.cfg.host_buffers and self.draw(ints(0, 2)) == 2:
            return self.gen_host_alloc(scope, out)
        if shared_ok:
            return self.gen_alloc(scope, out, shared=True)
        return None

    def gen_region(self, scope: _Scope, depth: int, loop: bool = False,
                   yields: bool = False, carried: str | None = None
                   ) -> tuple[tuple[prog.Op, ...], _Scope]:
        outer = [replace(b) for b in scope.buffers if b.last_token is None]
        # A loop body runs many times: it may not consume outer tokens (nor
        # free outer buffers), which would happen once per iteration; with
        # fan-out it may use them, as often as it likes.
        see_outer = not loop or (self.cfg.cf_tokens and self.cfg.fanout)
        inner = _Scope(
            buffers=outer,
            tokens=(list(scope.tokens) if see_outer else [])
            + ([carried] if carried else []),
            keep={b.name for b in outer} | scope.keep if loop else set(scope.keep),
            yields=[] if yields else None,
            carried=carried,
            async_tokens=list(scope.async_tokens),
            async_values=list(scope.async_values),
        )
        ops = self.gen_ops(inner, depth + 1)
        return ops, inner

    def choose_yield(self, scope: _Scope, out: list[prog.Op]) -> None:
        """The token this region yields, kept out of its host waits.  A loop
        yields a token ordered after its carried one (so the chain covers every
        iteration); a branch, any token it sees, or a fresh `gpu.wait async`."""
        assert scope.yields is not None
        if scope.carried is not None:
            options = [t for t in scope.pending if scope.carried in self.covers(t)]
            options.append(scope.carried)
        else:
            options = list(dict.fromkeys(scope.pending + scope.tokens))
        if not options:
            token = self.produce_token(scope, ())
            out.append(prog.Wait(self.op_id(), token, ()))
            options = [token]
        chosen = self.pick(options)
        scope.pending = [t for t in scope.pending if t != chosen]
        scope.yields.append(chosen)

    def close_region(self, scope: _Scope, inner: _Scope) -> None:
        touched = inner.touched_outer | {
            b.name for b in scope.buffers if b.name not in {x.name for x in inner.buffers}
            and b.last_token is None
        }
        scope.buffers = [b for b in scope.buffers if b.name not in touched]
        if not self.cfg.fanout:
            # Outer tokens consumed inside are gone outside too, and so is a
            # buffer whose pending work is behind one: awaiting it here would
            # use the token a second time.
            gone = {t for t in scope.tokens if t not in inner.tokens}
            scope.buffers = [b for b in scope.buffers if b.last_token not in gone]
            scope.tokens = [t for t in scope.tokens if t in inner.tokens]
            scope.pending = [t for t in scope.pending if t in inner.tokens]

    def top_level_form(self, depth: int, forms: tuple[str, ...]) -> str:
        """The form of an `scf.if`/`scf.for` (`prog.If.form`): blocks and
        `cf` branches at a function's top level one time in three when
        `cf_forms` (no draw unless asked: default programs stay as they were)."""
        if self.cfg.cf_forms and depth == 0 and not self.in_execute \
                and self.draw(ints(0, 2)) == 0:
            return "cf"
        return forms[0] if len(forms) == 1 else self.pick(forms)

    def gen_if(self, scope: _Scope, out: list[prog.Op], depth: int) -> None:
        cond = self.arg("i1")
        form = self.top_level_form(depth, ("scf",))
        op_id = self.op_id()
        # One branch in three yields a token (no draw unless asked).
        yields = self.cfg.cf_tokens and self.draw(ints(0, 2)) == 2
        then, t_scope = self.gen_region(scope, depth, yields=yields)
        orelse: tuple[prog.Op, ...] = ()
        e_scope = None
        if yields or self.coin():
            orelse, e_scope = self.gen_region(scope, depth, yields=yields)
        results: tuple[str, ...] = ()
        then_yield = tuple(t_scope.yields or ())
        else_yield = tuple(e_scope.yields or ()) if e_scope is not None else ()
        if yields:
            result = self.fresh("t")
            results = (result,)
            # Awaiting the result completes what both branches' tokens cover.
            self.add_token(scope, result, {result} | (self.covers(then_yield[0])
                                                      & self.covers(else_yield[0])))
        out.append(prog.If(op_id, cond, then, orelse, results, then_yield, else_yield, form))
        self.close_region(scope, t_scope)
        if e_scope is not None:
            self.close_region(scope, e_scope)

    def gen_for(self, scope: _Scope, out: list[prog.Op], depth: int) -> None:
        trip = self.draw(ints(0, 3))
        trip_arg = self.arg("index") if self.cfg.arg_trips and self.coin() else None
        form = self.top_level_form(depth, ("scf", "while") if self.cfg.while_loops else ("scf",))
        carry = self.cfg.cf_tokens and self.draw(ints(0, 2)) == 2
        init = arg = None
        if carry:
            if scope.tokens and self.coin():
                init = self.pick(scope.tokens)
            else:
                init = self.produce_token(scope, ())
                out.append(prog.Wait(self.op_id(), init, ()))
            arg = self.fresh("t")
        op_id = self.op_id()
        iv = self.fresh("i")
        body, inner = self.gen_region(scope, depth, loop=True, yields=carry, carried=arg)
        if init is not None and arg is not None:
            result = self.fresh("t")
            yielded = tuple(inner.yields or ())
            # The yield is ordered after the carried token, so the result
            # covers the initial one (zero trips: it is the initial one).
            out.append(prog.For(op_id, iv, trip, body, ((arg, init),), yielded, (result,),
                                form, trip_arg))
            self.close_region(scope, inner)
            self.add_token(scope, result, {result} | self.covers(init), (init,))
            return
        out.append(prog.For(op_id, iv, trip, body, form=form, trip_arg=trip_arg))
        self.close_region(scope, inner)

    def gen_ops(self, scope: _Scope, depth: int) -> tuple[prog.Op, ...]:
        out: list[prog.Op] = []
        kinds = [k for k in self.cfg.kinds
                 if (depth < self.cfg.max_depth or k not in _NESTING)
                 and (k != "launch" or self.cfg.with_kernels)]
        first = depth == 0
        while self.budget > 0:
            # A "go on" choice before each op, as Hypothesis encodes lists:
            # the shrinker deletes an op by deleting its interval, and shrinks
            # the choice towards 0, "stop".  Regions stop sooner.
            if not first and not self.draw(ints(0, 3 if depth else 7)):
                break
            first = False
            self.budget -= 1
            # One span per op: the shrinker can then delete an op whole.
            _ONE_OP.next = lambda draw: self.gen_op_with(draw, scope, out, depth, kinds)
            self.draw(_ONE_OP)
        self.await_own_async(scope, out)
        if scope.yields is not None:
            self.choose_yield(scope, out)
        self.finish_scope(scope, out)
        return tuple(out)

    def gen_op_with(self, draw: st.DrawFn, scope: _Scope, out: list[prog.Op], depth: int,
                    kinds: list[str]) -> None:
        outer_draw, self.draw = self.draw, draw
        try:
            self.gen_op(scope, out, depth, kinds)
        finally:
            self.draw = outer_draw

    def gen_op(self, scope: _Scope, out: list[prog.Op], depth: int, kinds: list[str]) -> None:
        kind = self.pick(kinds)
        _GENERATORS[kind](self, scope, out, depth)

    def finish_scope(self, scope: _Scope, out: list[prog.Op]) -> None:
        """Await this scope's own pending tokens unless left un-awaited on purpose."""
        own_pending = [t for t in scope.pending if t in scope.own_tokens]
        if not own_pending:
            return
        if self.cfg.unawaited and self.draw(ints(0, 4)) == 0:
            self.tags.add("unawaited-token")
            return
        self.host_wait(scope, own_pending, out)


# How `_Builder.gen_op` draws each generator kind (`OP_KINDS`, from
# `verify.model.op_specs`; tests/model/test_op_table.py checks it covers them).
_GENERATORS: dict[str, Callable[[_Builder, _Scope, list[prog.Op], int], object]] = {
    "wait": lambda b, scope, out, depth: b.gen_wait(scope, out),
    "alloc": lambda b, scope, out, depth: b.gen_alloc(scope, out),
    "dealloc": lambda b, scope, out, depth: b.gen_dealloc(scope, out),
    "memset": lambda b, scope, out, depth: b.gen_memset(scope, out),
    "memcpy": lambda b, scope, out, depth: b.gen_memcpy(scope, out),
    "launch": lambda b, scope, out, depth: b.gen_launch(scope, out),
    "host": lambda b, scope, out, depth: b.gen_host(scope, out),
    "if": _Builder.gen_if,
    "for": _Builder.gen_for,
    "view": lambda b, scope, out, depth: b.gen_view(scope, out),
    "execute": _Builder.gen_execute,
    "call": lambda b, scope, out, depth: b.gen_call(scope, out),
    "gpu.launch": lambda b, scope, out, depth: b.gen_gpu_launch(scope, out),
    "host_register": lambda b, scope, out, depth: b.gen_host_register(scope, out),
    "set_default_device": lambda b, scope, out, depth: b.gen_set_device(scope, out),
}


class _OneOp(HandOffStrategy):
    """Draws one op as one span, so the shrinker can delete it whole.  One
    object serves every op (a composite per op would be a new strategy per
    op, which Hypothesis validates each time); what to draw is handed over
    in `next` just before the draw.  Its name labels the ops' spans: keep it
    (another changes how Hypothesis explores and shrinks)."""


_ONE_OP = _OneOp()


@st.composite
def programs(draw: st.DrawFn, cfg: GenConfig | None = None) -> prog.Program:
    """A valid async GPU program (see module docstring)."""
    cfg = cfg or GenConfig()
    swarm_tags: frozenset[str] = frozenset()
    if cfg.swarm:
        cfg, swarm_tags = draw_swarm(draw, cfg)
    n_funcs = draw(ints(1, cfg.max_functions))
    builder = _Builder(draw, cfg)
    builder.callees = []
    functions = []
    for f in range(n_funcs):
        builder.args = []
        builder.budget = cfg.max_ops
        scope = _Scope(buffers=[], tokens=[])
        body = builder.gen_ops(scope, 0)
        results = builder.gen_results(body)
        functions.append(prog.Function(f"f{f}", tuple(builder.args), body, results))
    functions += builder.callees
    program = prog.Program(tuple(functions), frozenset(builder.tags) | swarm_tags)
    # Coverage shows in `pytest --hypothesis-show-statistics`.
    from gpu_alloc_verify.generators.features import features

    for feat in features(program):
        event(feat)
    return program
