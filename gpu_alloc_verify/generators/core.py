"""The generator's configuration, its state, and what every op kind shares:
drawing choices, naming, the token discipline and buffers.

See `generators.programs` for the rules programs obey; this module keeps
them: `take_deps` / `produce_token` / `host_wait` track which tokens are
pending and what each covers, `_buffer_op` orders an op on buffers after
the last token that touched them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TypeVar

from hypothesis import strategies as st

from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.op_specs import GEN_KINDS, IN_PROCESS_GEN_KINDS

T = TypeVar("T")

# Strategies are built once: Hypothesis pays for each new strategy object,
# and the same object draws exactly as a fresh one would.
_BOOL = st.booleans()


@cache
def ints(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


@cache
def _index(n: int) -> st.SearchStrategy[int]:
    """An index into n options, drawn as `sampled_from` draws one."""
    return st.sampled_from(range(n))


# The kinds the generator draws (`verify.model.op_specs`), in drawing order:
# the first is the shrink target, `gpu.wait`, the simplest op.  `GenConfig()`
# draws those judged in process; the swarm campaign's, all (`ALL_KINDS`).
OP_KINDS = IN_PROCESS_GEN_KINDS
ALL_KINDS = GEN_KINDS

# The first LLVM version whose gpu-to-llvm lowers a module with kernels
# (measured on 16, 19, 22: 16 wants a `gpu.binary`, "missing gpu.binary
# attribute"; 19 and 22 lower launches once `gpu.module(convert-gpu-to-nvvm)`
# ran first).
KERNELS_SINCE = 19


@dataclass(frozen=True)
class GenConfig:
    """What the generator may produce.

    `fanout`: a token may feed several ops.  `fanin`: an async op may depend on
    several tokens.  `unawaited`: a function may end with tokens no host
    `gpu.wait` awaits (tagged "unawaited-token" on the program).

    Real-code constructs: `kernels` (a `gpu.module` of catalogue kernels,
    `verify.model.kernels`, and `gpu.launch_func`), `host_buffers`
    (`memref.alloc` / `memref.dealloc`), `memref_args` (buffers passed in, of
    unknown kind), `scalar_args` (f32 / i32 kernel operands passed in),
    `results` (functions return loaded values and sizes), `memory_spaces`
    (memref arguments in memory space 1), `alloc_spaces` (also `gpu.alloc` and
    `memref.alloc` in memory space 1, so every op on them sees it; 19 and 22
    emit invalid IR for such a `gpu.alloc`).  `launch_fanin`: a launch may
    depend on several tokens directly (valid MLIR that gpu-to-llvm 16-22
    refuses as a whole, "failed to legalize operation 'gpu.launch_func'");
    without it, several tokens are first joined by a `gpu.wait async`.
    """

    max_ops: int = 8
    max_functions: int = 1
    max_deps: int = 3
    kinds: tuple[str, ...] = IN_PROCESS_GEN_KINDS
    fanout: bool = True
    fanin: bool = True
    unawaited: bool = True
    dynamic_shapes: bool = True
    host_shared: bool = True
    max_depth: int = 2
    # Stay within what upstream gpu-to-llvm of this LLVM version lowers
    # (16: async alloc with one dependency, never host_shared, no kernels;
    # 18 and later: also sync host_shared alloc; 19 and later: kernels, with
    # launches async with at most one dependency or sync without), so a
    # campaign tells "breaks" from "rejects".
    supported: int | None = None
    kernels: bool = True
    launch_fanin: bool = False
    host_buffers: bool = True
    memref_args: bool = True
    scalar_args: bool = True
    results: bool = True
    memory_spaces: bool = True
    # Off by default (`fuzz --alloc-spaces`): it adds draws, so default
    # campaigns and their seeds would otherwise generate other programs.
    alloc_spaces: bool = False
    # Tokens that cross control flow: an `scf.if` yielding a token, an
    # `scf.for` carrying one in `iter_args`, loop bodies using outer tokens.
    # Off by default (`fuzz --cf-tokens`): it adds draws, and the in-process
    # xDSL lowerings carry no token through `scf.yield`; the source runner does.
    cf_tokens: bool = False
    # Host code of issue 40 (each judged from its text, `prog.in_process_gap`;
    # the kinds `view`, `execute`, `call`, ... are in `kinds`): `cf_forms`,
    # an `scf.if` or `scf.for` at a function's top level drawn as blocks and
    # `cf.cond_br`/`cf.br` (tokens as block arguments); `while_loops`, a loop
    # drawn as `scf.while`; `arg_trips`, a trip count passed in (0, 1, many).
    cf_forms: bool = False
    while_loops: bool = False
    arg_trips: bool = False
    # Swarm testing (Groce et al., ISSTA 2012): each program first draws a
    # subset of the switches `generators.swarm.SWITCHES` this configuration
    # allows (and of `kinds`), then draws under it; `forced` ones are always
    # on.  The program's tags record the subset (`swarm.<switch>`).
    swarm: bool = False
    forced: tuple[str, ...] = ()  # a tuple, as campaign records store it in JSON

    def __post_init__(self) -> None:
        # A resumed campaign's record gives lists: keep the config hashable.
        object.__setattr__(self, "forced", tuple(self.forced))
        object.__setattr__(self, "kinds", tuple(self.kinds))

    @classmethod
    def swarm_default(cls, max_ops: int = 8) -> GenConfig:
        """What a default campaign draws: every construct, a swarm subset
        per program."""
        return cls(max_ops=max_ops, max_functions=2, kinds=ALL_KINDS, alloc_spaces=True,
                   cf_tokens=True, cf_forms=True, while_loops=True, arg_trips=True,
                   swarm=True)

    def in_process(self) -> GenConfig:
        """Without the constructs judged from text only."""
        return replace(self, kinds=tuple(k for k in self.kinds if k in IN_PROCESS_GEN_KINDS),
                       cf_forms=False, while_loops=False, arg_trips=False,
                       forced=_without(self.forced, "cf_forms", "while_loops", "arg_trips"))

    def linear(self) -> GenConfig:
        """Token discipline that `gpu-async-region` produces: each token used once."""
        # A yielded token is used again after the region: not one use.
        return replace(self, fanout=False, fanin=False, max_deps=1, unawaited=False,
                       cf_tokens=False, forced=_without(self.forced, "cf_tokens"))

    def supported_by(self, version: int) -> GenConfig:
        return replace(self.linear().in_process(), supported=version, launch_fanin=False,
                       alloc_spaces=False, forced=_without(self.forced, "alloc_spaces"))

    def runnable(self) -> GenConfig:
        """Only what the reference semantics runs (`oracles.source_interp`):
        no kernels, host buffers or buffers passed in, for which the
        `differential` verdict is `unknown` until kernels run there."""
        return replace(self.in_process(), kernels=False, host_buffers=False,
                       memref_args=False, scalar_args=False)

    @property
    def with_kernels(self) -> bool:
        return self.kernels and (self.supported is None or self.supported >= KERNELS_SINCE)

    def element_types(self) -> tuple[str, ...]:
        """Buffer element types: upstream lowers a memset of 16- and 32-bit
        elements only (16: 32-bit only)."""
        if self.supported is None:
            return prog.ELEMENT_TYPES
        if self.supported >= 18:
            return ("f32", "i32", "f16", "i16")
        return ("f32", "i32")


def _without(names: tuple[str, ...], *drop: str) -> tuple[str, ...]:
    return tuple(n for n in names if n not in drop)


def campaign_config(max_ops: int = 8, *, swarm: bool = True, cf_tokens: bool = False,
                    alloc_spaces: bool = False) -> GenConfig:
    """What `fuzz` draws: a swarm subset of every construct per program, the
    flags' switches forced on; without `swarm`, `GenConfig()` with the flags'
    switches on (the generator before issue 40)."""
    flags = tuple(name for name, on in (("cf_tokens", cf_tokens),
                                        ("alloc_spaces", alloc_spaces)) if on)
    if swarm:
        return replace(GenConfig.swarm_default(max_ops), forced=flags)
    return GenConfig(max_ops=max_ops, cf_tokens=cf_tokens, alloc_spaces=alloc_spaces)


@dataclass
class _Buffer:
    name: str
    type: prog.MemRefType
    host_shared: bool
    last_token: str | None  # token of the last async op on it, if not awaited yet
    # "device" / "shared" (gpu.alloc), "host" (memref.alloc), "arg" (passed
    # in: unknown kind, so no host access and never freed here), "registered"
    # (a host buffer after `gpu.host_register`: GPU ops may use it too)
    kind: str = "device"

    @property
    def on_device(self) -> bool:
        """GPU ops may use it (a host buffer is plain host memory)."""
        return self.kind != "host"

    @property
    def host_visible(self) -> bool:
        return self.kind in ("shared", "host", "registered")

    @property
    def host_allocated(self) -> bool:
        """`memref.alloc`ed: `memref.dealloc` frees it."""
        return self.kind in ("host", "registered")


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
    # Tokens the region's `scf.yield` passes out (None: the region yields none).
    yields: list[str] | None = None
    carried: str | None = None  # the loop's token block argument, if any
    # `async.execute` results usable here: its `!async.token`s, and its
    # `!async.value<!gpu.async.token>`s with the gpu token each yields.
    async_tokens: list[str] = field(default_factory=list)
    async_values: list[tuple[str, str]] = field(default_factory=list)
    own_async: set[str] = field(default_factory=set)  # made here: awaited here


_ARG_PREFIX = {"i1": "cond", "index": "size"}


def _arg_prefix(type_: str | prog.MemRefType) -> str:
    if isinstance(type_, prog.MemRefType):
        return "buf"
    return _ARG_PREFIX.get(type_, "x")


MakeOp = Callable[[str, str | None, tuple[str, ...]], prog.Op]


class BuilderCore:
    def __init__(self, draw: st.DrawFn, cfg: GenConfig) -> None:
        self.draw = draw
        self.cfg = cfg
        self.counter = 0
        self.names = 0
        self.args: list[prog.Arg] = []
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

    def arg(self, type_: str | prog.MemRefType) -> str:
        """A function argument of `type_`: sometimes one already there (two
        branches can then share a condition), a buffer always a new one."""
        existing = [a for a in self.args if a.type == type_]
        if existing and not isinstance(type_, prog.MemRefType) and self.coin():
            return self.pick(existing).name
        prefix = _arg_prefix(type_)
        n = sum(1 for a in self.args if _arg_prefix(a.type) == prefix)
        name = f"%{prefix}{n}"
        self.args.append(prog.Arg(name, type_))
        return name

    # -- tokens -------------------------------------------------------------
    def take_deps(self, scope: _Scope, required: list[str],
                  out: list[prog.Op] | None = None) -> tuple[str, ...]:
        deps = list(dict.fromkeys(t for t in required if t is not None))
        if self.cfg.supported is not None and out is not None:
            return self.one_dep(scope, deps, out)
        extra_max = max(0, self.cfg.max_deps - len(deps))
        if not self.cfg.fanin:
            extra_max = min(extra_max, 1 - min(1, len(deps)))
        candidates = [t for t in scope.tokens if t not in deps]
        if candidates and extra_max:
            n = self.draw(ints(0, min(extra_max, len(candidates))))
            for _ in range(n):
                t = self.pick(candidates)
                candidates.remove(t)
                deps.append(t)
        self.consume(scope, deps)
        return tuple(deps)

    def consume(self, scope: _Scope, deps: Sequence[str]) -> None:
        """Without fan-out a token feeds one op: once used, it is gone."""
        if not self.cfg.fanout:
            for t in deps:
                if t in scope.tokens:
                    scope.tokens.remove(t)

    def one_dep(self, scope: _Scope, deps: list[str], out: list[prog.Op]) -> tuple[str, ...]:
        """Exactly one dependency, as upstream's lowering needs a stream to use."""
        if not deps:
            if scope.tokens and self.coin():
                deps = [self.pick(scope.tokens)]
            else:
                token = self.produce_token(scope, ())
                out.append(prog.Wait(self.op_id(), token, ()))
                deps = [token]
        if deps[0] in scope.tokens:
            scope.tokens.remove(deps[0])
        return (deps[0],)

    def covers(self, token: str) -> set[str]:
        return self.awaited_by.get(token, {token})

    def produce_token(self, scope: _Scope, deps: tuple[str, ...]) -> str:
        token = self.fresh("t")
        covered = {token}
        for d in deps:
            covered |= self.covers(d)
        self.add_token(scope, token, covered, deps)
        return token

    def add_token(self, scope: _Scope, token: str, covered: set[str],
                  deps: tuple[str, ...] = ()) -> None:
        """`token` is now usable in `scope`; awaiting it completes `covered`."""
        self.awaited_by[token] = covered
        if not self.cfg.fanout:
            # A consumed token is gone: buffers waiting on it now wait on this one.
            for buf in scope.buffers:
                if buf.last_token in deps:
                    buf.last_token = token
        scope.tokens.append(token)
        scope.own_tokens.add(token)
        scope.pending = [t for t in scope.pending if t not in covered] + [token]

    def host_wait(self, scope: _Scope, deps: list[str], out: list[prog.Op]) -> None:
        """Emit `gpu.wait [deps]` and mark everything they cover as complete."""
        deps = list(dict.fromkeys(deps))
        if not deps:
            return
        out.append(prog.Wait(self.op_id(), None, tuple(deps)))
        covered: set[str] = set()
        for d in deps:
            covered |= self.awaited_by.get(d, {d})
        scope.pending = [t for t in scope.pending if t not in covered]
        scope.tokens = [t for t in scope.tokens if t not in covered]
        for buf in scope.buffers:
            if buf.last_token in covered:
                buf.last_token = None

    def sync_access(self, scope: _Scope, bufs: list[_Buffer], out: list[prog.Op]) -> None:
        """A host-synchronous use of buffers needs their async work awaited first."""
        pending = [b.last_token for b in bufs if b.last_token is not None]
        self.host_wait(scope, [t for t in pending if t is not None], out)

    def touch(self, scope: _Scope, buf: _Buffer) -> None:
        if buf.name not in scope.own_buffers:
            scope.touched_outer.add(buf.name)

    # -- buffers ------------------------------------------------------------
    def is_async(self) -> bool:
        return self.coin()

    def draw_type(self, sized: bool = True) -> tuple[prog.MemRefType, list[str]]:
        """A buffer type, and (if `sized`) the index arguments sizing its
        dynamic dimensions."""
        shape: list[int | None] = []
        dyn: list[str] = []
        for _ in range(self.draw(ints(1, 2))):
            if self.cfg.dynamic_shapes and self.draw(ints(0, 3)) == 3:
                shape.append(None)
                if sized:
                    dyn.append(self.arg("index"))
            else:
                shape.append(self.pick((4, 1, 16, 64)))
        return prog.MemRefType(tuple(shape), self.pick(self.cfg.element_types())), dyn

    def type_like(self, like: _Buffer | None) -> tuple[prog.MemRefType, list[str]]:
        """`like`'s type without its memory space, with new index arguments
        sizing its dynamic dimensions; without `like`, `draw_type()`."""
        if like is None:
            mtype, dyn = self.draw_type()
            # No draw unless asked: default programs stay as they were.
            if self.cfg.alloc_spaces and self.draw(ints(0, 3)) == 0:
                mtype = replace(mtype, space=1)
            return mtype, dyn
        mtype = replace(like.type, space=None, layout="")
        return mtype, [self.arg("index") for _ in range(mtype.num_dynamic)]

    def add_buffer(self, scope: _Scope, buf: _Buffer) -> _Buffer:
        scope.buffers.append(buf)
        scope.own_buffers.add(buf.name)
        return buf

    def gen_alloc(self, scope: _Scope, out: list[prog.Op], like: _Buffer | None = None,
                  shared: bool | None = None) -> _Buffer:
        """Allocate a buffer (of `like`'s type if given) and return it."""
        is_async = self.is_async()
        if shared is None:
            shared = self.cfg.host_shared and self.coin()
        if self.cfg.supported is not None:
            # 16 lowers async non-shared allocs only; later versions add sync shared.
            is_async = not shared if self.cfg.supported >= 18 else True
            shared = shared and self.cfg.supported >= 18 and not is_async
        # No memory space on a copy of `like`: gpu-to-llvm 19 and 22 fail on such an
        # alloc (`alloc_spaces` asks for that failure on fresh types).
        mtype, dyn = self.type_like(like)
        name = self.fresh("m")
        if is_async:
            deps = self.take_deps(scope, [], out)
            token = self.produce_token(scope, deps)
        else:
            deps, token = (), None
        out.append(prog.Alloc(self.op_id(), name, token, deps, shared, mtype, tuple(dyn)))
        return self.add_buffer(scope, _Buffer(name, mtype, shared, token,
                                              "shared" if shared else "device"))

    def _buffer_op(self, scope: _Scope, bufs: list[_Buffer], out: list[prog.Op], make: MakeOp,
                   launch: bool = False) -> None:
        pending = [b for b in bufs if b.last_token is not None]
        if not self.cfg.fanin and len({b.last_token for b in pending}) > 1:
            # One dependency at most: settle the others on the host first.
            self.sync_access(scope, [b for b in pending if b.last_token != pending[0].last_token],
                             out)
        # 16 lowers async ops with one dependency only; 19 also a sync launch.
        forced = self.cfg.supported is not None and not launch
        if self.is_async() or forced:
            required = [b.last_token for b in bufs if b.last_token]
            if launch and not self.cfg.launch_fanin:
                deps = self.launch_deps(scope, required, out)
            else:
                deps = self.take_deps(scope, required, out)
            token: str | None = self.produce_token(scope, deps)
        else:
            self.sync_access(scope, bufs, out)
            deps, token = (), None
        out.append(make(self.op_id(), token, deps))
        for b in bufs:
            b.last_token = token
            self.touch(scope, b)

    def launch_deps(self, scope: _Scope, required: list[str],
                    out: list[prog.Op]) -> tuple[str, ...]:
        """At most one dependency, as gpu-to-llvm (16-22) lowers a launch:
        several tokens are joined by a `gpu.wait async` first."""
        deps = list(dict.fromkeys(required))
        if len(deps) > 1:
            self.consume(scope, deps)
            token = self.produce_token(scope, tuple(deps))
            out.append(prog.Wait(self.op_id(), token, tuple(deps)))
            deps = [token]
        elif not deps and scope.tokens and self.coin():
            deps = [self.pick(scope.tokens)]
        self.consume(scope, deps)
        return tuple(deps)
