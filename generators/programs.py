"""Hypothesis strategies that build valid async GPU programs.

Programs are valid by construction: values dominate their uses, a buffer is
never touched after its dealloc on any path, an op on a buffer depends on the
token of the last async op that touched it, and a host (synchronous) access
only happens once that token was awaited.  Nested scopes (`scf.if`,
`scf.for`) see outer values; an outer buffer they touch is dead afterwards,
since its state is then path-dependent.

Shrinking goes towards fewer ops (the op count is drawn first), fewer
functions, no branches, static shapes and sync ops (the first choice of each
`sampled_from` is its shrink target).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, TypeVar

from hypothesis import event
from hypothesis import strategies as st

from verify.program import (
    ELEMENT_TYPES,
    Alloc,
    Arg,
    Dealloc,
    For,
    Function,
    HostLoad,
    HostStore,
    If,
    Memcpy,
    MemRefType,
    Memset,
    Op,
    Program,
    Wait,
)

T = TypeVar("T")

# Strategies are built once: Hypothesis pays for each new strategy object,
# and the same object draws exactly as a fresh one would.
_BOOL = st.booleans()


@cache
def _ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


@cache
def _index(n: int) -> st.SearchStrategy[int]:
    """An index into n options, drawn as `sampled_from` draws one."""
    return st.sampled_from(range(n))


# The first kind is the shrink target: `gpu.wait` is the simplest op.
OP_KINDS = (
    "wait",
    "alloc",
    "dealloc",
    "memset",
    "memcpy",
    "host",
    "if",
    "for",
)


@dataclass(frozen=True)
class GenConfig:
    """What the generator may produce.

    `fanout`: a token may feed several ops.  `fanin`: an async op may depend on
    several tokens.  `unawaited`: a function may end with tokens no host
    `gpu.wait` awaits (tagged "unawaited-token" on the program).
    """

    max_ops: int = 8
    max_functions: int = 1
    max_deps: int = 3
    kinds: tuple[str, ...] = OP_KINDS
    fanout: bool = True
    fanin: bool = True
    unawaited: bool = True
    dynamic_shapes: bool = True
    host_shared: bool = True
    max_depth: int = 2
    # Stay within what upstream gpu-to-llvm of this LLVM version lowers
    # (16: async alloc with one dependency, never host_shared; 18 and later:
    # also sync host_shared alloc), so a campaign tells "breaks" from "rejects".
    supported: int | None = None

    def linear(self) -> GenConfig:
        """Token discipline that `gpu-async-region` produces: each token used once."""
        return replace(self, fanout=False, fanin=False, max_deps=1, unawaited=False)

    def supported_by(self, version: int) -> GenConfig:
        return replace(self.linear(), supported=version)


@dataclass
class _Buffer:
    name: str
    type: MemRefType
    host_shared: bool
    last_token: str | None  # token of the last async op on it, if not awaited yet


@dataclass
class _Scope:
    """Generation state of one region."""

    buffers: list[_Buffer]
    tokens: list[str]  # tokens usable as deps, not yet consumed (if linear)
    pending: list[str] = field(default_factory=list)  # produced here, not awaited
    touched_outer: set[str] = field(default_factory=set)
    own_buffers: set[str] = field(default_factory=set)
    own_tokens: set[str] = field(default_factory=set)
    keep: set[str] = field(default_factory=set)  # buffers this region must not dealloc


class _Builder:
    def __init__(self, draw: st.DrawFn, cfg: GenConfig) -> None:
        self.draw = draw
        self.cfg = cfg
        self.counter = 0
        self.names = 0
        self.args: list[Arg] = []
        self.tags: set[str] = set()
        self.budget = 0
        self.awaited_by: dict[str, set[str]] = {}  # token -> tokens it transitively covers

    def coin(self) -> bool:
        return self.draw(_BOOL)

    def pick(self, options: Sequence[T]) -> T:
        """`draw(st.sampled_from(options))`, drawn the same way (one integer
        choice, none for a single option) without building a strategy per
        call, which Hypothesis would validate each time."""
        return options[self.draw(_index(len(options)))]

    # -- naming -------------------------------------------------------------
    def op_id(self) -> str:
        self.counter += 1
        return f"op{self.counter}"

    def fresh(self, prefix: str) -> str:
        self.names += 1
        return f"%{prefix}{self.names}"

    def arg(self, type_: str) -> str:
        prefix = "cond" if type_ == "i1" else "size"
        existing = [a for a in self.args if a.type == type_]
        # Reuse an argument sometimes, so two branches can share a condition.
        if existing and self.coin():
            return self.pick(existing).name
        name = f"%{prefix}{len(existing)}"
        self.args.append(Arg(name, type_))
        return name

    # -- tokens -------------------------------------------------------------
    def take_deps(self, scope: _Scope, required: list[str],
                  out: list[Op] | None = None) -> tuple[str, ...]:
        deps = list(dict.fromkeys(t for t in required if t is not None))
        if self.cfg.supported is not None and out is not None:
            return self.one_dep(scope, deps, out)
        extra_max = max(0, self.cfg.max_deps - len(deps))
        if not self.cfg.fanin:
            extra_max = min(extra_max, 1 - min(1, len(deps)))
        candidates = [t for t in scope.tokens if t not in deps]
        if candidates and extra_max:
            n = self.draw(_ints(0, min(extra_max, len(candidates))))
            for _ in range(n):
                t = self.pick(candidates)
                candidates.remove(t)
                deps.append(t)
        if not self.cfg.fanout:
            for t in deps:
                if t in scope.tokens:
                    scope.tokens.remove(t)
        return tuple(deps)

    def one_dep(self, scope: _Scope, deps: list[str], out: list[Op]) -> tuple[str, ...]:
        """Exactly one dependency, as upstream's lowering needs a stream to use."""
        if not deps:
            if scope.tokens and self.coin():
                deps = [self.pick(scope.tokens)]
            else:
                token = self.produce_token(scope, ())
                out.append(Wait(self.op_id(), token, ()))
                deps = [token]
        if deps[0] in scope.tokens:
            scope.tokens.remove(deps[0])
        return (deps[0],)

    def produce_token(self, scope: _Scope, deps: tuple[str, ...]) -> str:
        token = self.fresh("t")
        covered = {token}
        for d in deps:
            covered |= self.awaited_by.get(d, {d})
        self.awaited_by[token] = covered
        if not self.cfg.fanout:
            # A consumed token is gone: buffers waiting on it now wait on this one.
            for buf in scope.buffers:
                if buf.last_token in deps:
                    buf.last_token = token
        scope.tokens.append(token)
        scope.own_tokens.add(token)
        scope.pending = [t for t in scope.pending if t not in covered] + [token]
        return token

    def host_wait(self, scope: _Scope, deps: list[str], out: list[Op]) -> None:
        """Emit `gpu.wait [deps]` and mark everything they cover as complete."""
        deps = list(dict.fromkeys(deps))
        if not deps:
            return
        out.append(Wait(self.op_id(), None, tuple(deps)))
        covered: set[str] = set()
        for d in deps:
            covered |= self.awaited_by.get(d, {d})
        scope.pending = [t for t in scope.pending if t not in covered]
        scope.tokens = [t for t in scope.tokens if t not in covered]
        for buf in scope.buffers:
            if buf.last_token in covered:
                buf.last_token = None

    def sync_access(self, scope: _Scope, bufs: list[_Buffer], out: list[Op]) -> None:
        """A host-synchronous use of buffers needs their async work awaited first."""
        pending = [b.last_token for b in bufs if b.last_token is not None]
        self.host_wait(scope, [t for t in pending if t is not None], out)

    def touch(self, scope: _Scope, buf: _Buffer) -> None:
        if buf.name not in scope.own_buffers:
            scope.touched_outer.add(buf.name)

    # -- ops ----------------------------------------------------------------
    def is_async(self) -> bool:
        return self.coin()

    def gen_alloc(self, scope: _Scope, out: list[Op], like: _Buffer | None = None,
                  shared: bool | None = None) -> _Buffer:
        """Allocate a buffer (of `like`'s type if given) and return it."""
        is_async = self.is_async()
        if shared is None:
            shared = self.cfg.host_shared and self.coin()
        if self.cfg.supported is not None:
            # 16 lowers async non-shared allocs only; later versions add sync shared.
            is_async = not shared if self.cfg.supported >= 18 else True
            shared = shared and self.cfg.supported >= 18 and not is_async
        dyn: list[str] = []
        if like is not None:
            mtype = like.type
        else:
            shape: list[int | None] = []
            for _ in range(self.draw(_ints(1, 2))):
                if self.cfg.dynamic_shapes and self.draw(_ints(0, 3)) == 3:
                    shape.append(None)
                    dyn.append(self.arg("index"))
                else:
                    shape.append(self.pick((4, 1, 16, 64)))
            # Upstream lowers memset of 16- and 32-bit elements only.
            # (16: 32-bit only.)
            elems = (ELEMENT_TYPES if self.cfg.supported is None
                     else ("f32", "i32", "f16") if self.cfg.supported >= 18 else ("f32", "i32"))
            mtype = MemRefType(tuple(shape), self.pick(elems))
        name = self.fresh("m")
        if is_async:
            deps = self.take_deps(scope, [], out)
            token = self.produce_token(scope, deps)
        else:
            deps, token = (), None
        out.append(Alloc(self.op_id(), name, token, deps, shared, mtype, tuple(dyn)))
        buf = _Buffer(name, mtype, shared, token)
        scope.buffers.append(buf)
        scope.own_buffers.add(name)
        return buf

    def gen_wait(self, scope: _Scope, out: list[Op]) -> None:
        if self.is_async():
            deps = self.take_deps(scope, [])
            token = self.produce_token(scope, deps)
            out.append(Wait(self.op_id(), token, deps))
        elif scope.pending:
            n = self.draw(_ints(1, len(scope.pending)))
            self.host_wait(scope, scope.pending[:n], out)
            # Real programs wait in order to touch results on the host.
            if self.budget > 0 and self.coin():
                self.budget -= 1
                self.gen_host(scope, out)

    def _buffer_op(self, scope: _Scope, bufs: list[_Buffer], out: list[Op], make) -> None:
        pending = [b for b in bufs if b.last_token is not None]
        if not self.cfg.fanin and len(pending) > 1:
            # One dependency at most: settle the others on the host first.
            self.sync_access(scope, pending[1:], out)
        if self.is_async() or self.cfg.supported is not None:
            deps = self.take_deps(scope, [b.last_token for b in bufs if b.last_token], out)
            token = self.produce_token(scope, deps)
        else:
            self.sync_access(scope, bufs, out)
            deps, token = (), None
        out.append(make(self.op_id(), token, deps))
        for b in bufs:
            b.last_token = token
            self.touch(scope, b)

    def gen_dealloc(self, scope: _Scope, out: list[Op]) -> None:
        candidates = [b for b in scope.buffers if b.name not in scope.keep]
        if not candidates:
            return
        buf = self.pick(candidates)
        self._buffer_op(
            scope, [buf], out, lambda i, t, d: Dealloc(i, t, d, buf.name, buf.type)
        )
        scope.buffers.remove(buf)

    def gen_memset(self, scope: _Scope, out: list[Op]) -> None:
        if not scope.buffers:
            self.gen_alloc(scope, out)
        buf = self.pick(scope.buffers)
        value = self.draw(_ints(0, 7))
        self._buffer_op(
            scope, [buf], out, lambda i, t, d: Memset(i, t, d, buf.name, buf.type, value)
        )

    def gen_memcpy(self, scope: _Scope, out: list[Op]) -> None:
        by_type: dict[MemRefType, list[_Buffer]] = {}
        for b in scope.buffers:
            if b.type.num_dynamic == 0:
                by_type.setdefault(b.type, []).append(b)
        pairs = [bs for bs in by_type.values() if len(bs) >= 2]
        if not pairs:
            if not by_type:
                return
            # Give a static buffer a twin to copy to or from.
            group = self.pick(list(by_type.values()))
            self.gen_alloc(scope, out, like=group[0])
            pairs = [[b for b in scope.buffers if b.type == group[0].type]]
        group = self.pick(pairs)
        dst = self.pick(group)
        src = self.pick([b for b in group if b is not dst])
        self._buffer_op(
            scope,
            [dst, src],
            out,
            lambda i, t, d: Memcpy(i, t, d, dst.name, src.name, dst.type),
        )

    def gen_host(self, scope: _Scope, out: list[Op]) -> None:
        shared = [b for b in scope.buffers if b.host_shared]
        if not shared:
            if not self.cfg.host_shared or (self.cfg.supported or 99) < 18:
                return
            shared = [self.gen_alloc(scope, out, shared=True)]
        buf = self.pick(shared)
        self.sync_access(scope, [buf], out)
        if self.coin():
            value = self.draw(_ints(0, 7))
            out.append(HostStore(self.op_id(), buf.name, buf.type, value))
        else:
            out.append(HostLoad(self.op_id(), self.fresh("v"), buf.name, buf.type))
        self.touch(scope, buf)

    def gen_region(self, scope: _Scope, depth: int,
                   loop: bool = False) -> tuple[tuple[Op, ...], _Scope]:
        outer = [replace(b) for b in scope.buffers if b.last_token is None]
        inner = _Scope(
            buffers=outer,
            # A loop body runs many times: it may not consume outer tokens
            # or free outer buffers, which would happen once per iteration.
            tokens=[] if loop else list(scope.tokens),
            keep={b.name for b in outer} | scope.keep if loop else set(scope.keep),
        )
        ops = self.gen_ops(inner, depth + 1)
        return ops, inner

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

    def gen_if(self, scope: _Scope, out: list[Op], depth: int) -> None:
        cond = self.arg("i1")
        op_id = self.op_id()
        then, t_scope = self.gen_region(scope, depth)
        orelse: tuple[Op, ...] = ()
        e_scope = None
        if self.coin():
            orelse, e_scope = self.gen_region(scope, depth)
        out.append(If(op_id, cond, then, orelse))
        self.close_region(scope, t_scope)
        if e_scope is not None:
            self.close_region(scope, e_scope)

    def gen_for(self, scope: _Scope, out: list[Op], depth: int) -> None:
        trip = self.draw(_ints(0, 3))
        op_id = self.op_id()
        iv = self.fresh("i")
        body, inner = self.gen_region(scope, depth, loop=True)
        out.append(For(op_id, iv, trip, body))
        self.close_region(scope, inner)

    def gen_ops(self, scope: _Scope, depth: int) -> tuple[Op, ...]:
        out: list[Op] = []
        kinds = [k for k in self.cfg.kinds if depth < self.cfg.max_depth or k not in ("if", "for")]
        first = depth == 0
        while self.budget > 0:
            # A "go on" choice before each op, as Hypothesis encodes lists:
            # the shrinker deletes an op by deleting its interval, and shrinks
            # the choice towards 0, "stop".  Regions stop sooner.
            if not first and not self.draw(_ints(0, 3 if depth else 7)):
                break
            first = False
            self.budget -= 1
            # One span per op: the shrinker can then delete an op whole.
            _ONE_OP.next = lambda draw: self.gen_op_with(draw, scope, out, depth, kinds)
            self.draw(_ONE_OP)
        self.finish_scope(scope, out)
        return tuple(out)

    def gen_op_with(self, draw: st.DrawFn, scope: _Scope, out: list[Op], depth: int,
                    kinds: list[str]) -> None:
        outer_draw, self.draw = self.draw, draw
        try:
            self.gen_op(scope, out, depth, kinds)
        finally:
            self.draw = outer_draw

    def gen_op(self, scope: _Scope, out: list[Op], depth: int, kinds: list[str]) -> None:
        kind = self.pick(kinds)
        if kind == "if":
            self.gen_if(scope, out, depth)
        elif kind == "for":
            self.gen_for(scope, out, depth)
        else:
            getattr(self, f"gen_{kind}")(scope, out)

    def finish_scope(self, scope: _Scope, out: list[Op]) -> None:
        """Await this scope's own pending tokens unless left un-awaited on purpose."""
        own_pending = [t for t in scope.pending if t in scope.own_tokens]
        if not own_pending:
            return
        if self.cfg.unawaited and self.draw(_ints(0, 4)) == 0:
            self.tags.add("unawaited-token")
            return
        self.host_wait(scope, own_pending, out)


class _OneOp(st.SearchStrategy[None]):
    """Draws one op as one span, so the shrinker can delete it whole.  One
    object serves every op (a composite per op would be a new strategy per
    op, which Hypothesis validates each time); what to draw is handed over
    in `next` just before the draw."""

    def __init__(self) -> None:
        super().__init__()
        self.next: Callable[[Any], None] | None = None

    def do_draw(self, data: Any) -> None:
        fn, self.next = self.next, None  # taken first: ops nest (if/for bodies)
        assert fn is not None, "_ONE_OP drawn without an op to draw"
        fn(data.draw)


_ONE_OP = _OneOp()


@st.composite
def programs(draw: st.DrawFn, cfg: GenConfig | None = None) -> Program:
    """A valid async GPU program (see module docstring)."""
    cfg = cfg or GenConfig()
    n_funcs = draw(_ints(1, cfg.max_functions))
    builder = _Builder(draw, cfg)
    functions = []
    for f in range(n_funcs):
        builder.args = []
        builder.budget = cfg.max_ops
        scope = _Scope(buffers=[], tokens=[])
        body = builder.gen_ops(scope, 0)
        functions.append(Function(f"f{f}", tuple(builder.args), body))
    program = Program(tuple(functions), frozenset(builder.tags))
    # Coverage shows in `pytest --hypothesis-show-statistics`.
    from generators.features import features

    for feat in features(program):
        event(feat)
    return program
