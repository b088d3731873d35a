"""The program space a certificate covers: every valid program of up to N
GPU async ops, over every op kind and variant this module lists.

A program is a sequence of abstract ops (`Step`).  Each step names the
values it uses and defines by small integers; `canonical.py` renames and
keys them, `to_program` turns one into the model's `Program`, which
prints as MLIR like a generated program does.

Validity is the generator's (`generators.programs`): values dominate their
uses; a buffer is never touched after its `gpu.dealloc`; an async op on a
buffer lists the token of the last async op that touched it among its
dependencies (any position: the first dependency is the stream upstream
reuses, so the order of a dependency list is part of the program); a
synchronous op on a buffer only runs once that token was awaited by a host
`gpu.wait`.  Tokens stay usable after they were awaited (depending on a
completed token is valid, and upstream's tests do it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations, permutations

# The kinds a certificate enumerates (the model's async op kinds), and the
# variants of each, recorded in the certificate as its feature set.
KINDS: dict[str, str] = {
    "wait": "gpu.wait: host wait on 1..3 tokens, or async on 0..3",
    "alloc": "gpu.alloc: sync or async on 0..3 tokens; host_shared or not; "
             "memory space 0 or 1",
    "dealloc": "gpu.dealloc of a live gpu.alloc'd buffer: sync or async",
    "memset": "gpu.memset of a buffer (allocated, or a function argument)",
    "memcpy": "gpu.memcpy between two buffers of one type",
    "launch": "gpu.launch_func of a read-modify-write kernel on one buffer: "
              "sync, or async on 0..3 tokens",
}
MAX_DEPS = 3
MAX_ARG_BUFFERS = 2
# Memory spaces of gpu.alloc: space 1 is opt-in (`certify --spaces`).  Upstream
# 19 and 22 emit invalid IR for every such alloc, and each failing program
# costs a lowering process of its own: it doubles the programs and takes the
# run from about a minute per lowering to about a quarter of an hour.
DEFAULT_SPACES: tuple[int | None, ...] = (None,)
WITH_SPACES: tuple[int | None, ...] = (None, 1)


@dataclass(frozen=True)
class Step:
    """One op: its kind, its variant (sync/async, host_shared, space...), the
    values it uses in order (tokens as dependencies, then buffers) and the
    values it defines (a buffer, then its token)."""

    kind: str
    variant: tuple[str, ...]
    deps: tuple[int, ...]
    buffers: tuple[int, ...]
    defines: tuple[int, ...]

    @property
    def is_async(self) -> bool:
        return "async" in self.variant


@dataclass(frozen=True)
class _Buf:
    value: int
    space: int | None
    from_alloc: bool
    last_token: int | None  # the token of the last async op that touched it, unawaited


@dataclass
class _State:
    steps: tuple[Step, ...] = ()
    next_value: int = 0
    tokens: tuple[int, ...] = ()  # every token defined so far
    pending: frozenset[int] = frozenset()  # tokens not yet awaited by the host
    covers: dict[int, frozenset[int]] = field(default_factory=dict)
    buffers: tuple[_Buf, ...] = ()  # live buffers, in order of definition
    args: int = 0
    spaces: tuple[int | None, ...] = DEFAULT_SPACES

    def fresh(self) -> tuple[int, _State]:
        return self.next_value, _replace(self, next_value=self.next_value + 1)


def _replace(state: _State, **changes: object) -> _State:
    fields = {k: getattr(state, k) for k in ("steps", "next_value", "tokens", "pending",
                                             "covers", "buffers", "args", "spaces")}
    fields.update(changes)
    return _State(**fields)  # type: ignore[arg-type]


def programs(max_ops: int, spaces: tuple[int | None, ...] = DEFAULT_SPACES
             ) -> Iterator[tuple[Step, ...]]:
    """Every valid op sequence of 1..`max_ops` ops, each once, depth first;
    `spaces`: the memory spaces a gpu.alloc may take (None: the default)."""
    yield from _extend(_State(spaces=spaces), max_ops)


def _extend(state: _State, left: int) -> Iterator[tuple[Step, ...]]:
    if left == 0:
        return
    for nxt in _successors(state):
        yield nxt.steps
        yield from _extend(nxt, left - 1)


def _dep_lists(tokens: tuple[int, ...], required: tuple[int, ...], at_least: int = 0
               ) -> Iterator[tuple[int, ...]]:
    """Every ordered dependency list of distinct tokens holding `required`."""
    for n in range(max(at_least, len(required)), min(MAX_DEPS, len(tokens)) + 1):
        for chosen in combinations(tokens, n):
            if all(r in chosen for r in required):
                yield from permutations(chosen)


def _successors(state: _State) -> Iterator[_State]:
    yield from _waits(state)
    yield from _allocs(state)
    yield from _buffer_ops(state)


def _emit(state: _State, step: Step, token: int | None, deps: tuple[int, ...],
          touched: tuple[int, ...] = (), freed: int | None = None,
          new_buffer: _Buf | None = None, args: int | None = None) -> _State:
    covers = dict(state.covers)
    pending = state.pending
    tokens = state.tokens
    if token is not None:
        covered = frozenset({token}).union(*(covers[d] for d in deps))
        covers[token] = covered
        pending = frozenset(t for t in pending if t not in covered) | {token}
        tokens = tokens + (token,)
    bufs = []
    for b in state.buffers:
        if b.value == freed:
            continue
        if b.value in touched:
            b = _Buf(b.value, b.space, b.from_alloc, token)
        bufs.append(b)
    if new_buffer is not None:
        bufs.append(new_buffer)
    return _replace(state, steps=state.steps + (step,), tokens=tokens, pending=pending,
                    covers=covers, buffers=tuple(bufs),
                    args=state.args if args is None else args)


def _waits(state: _State) -> Iterator[_State]:
    for deps in _dep_lists(state.tokens, (), at_least=1):
        # A host wait completes everything its tokens cover.
        done = frozenset().union(*(state.covers[d] for d in deps))
        bufs = tuple(_Buf(b.value, b.space, b.from_alloc,
                          None if b.last_token in done else b.last_token)
                     for b in state.buffers)
        yield _replace(state, steps=state.steps + (Step("wait", ("sync",), deps, (), ()),),
                       pending=state.pending - done, buffers=bufs)
    for deps in _dep_lists(state.tokens, ()):
        token, s = state.fresh()
        yield _emit(s, Step("wait", ("async",), deps, (), (token,)), token, deps)


def _allocs(state: _State) -> Iterator[_State]:
    for space in state.spaces:
        for shared in (False, True):
            variant = ("shared",) * shared + (f"space{space}",) * (space is not None)
            buf, s = state.fresh()
            new = _Buf(buf, space, True, None)
            yield _emit(s, Step("alloc", ("sync",) + variant, (), (), (buf,)), None, (),
                        new_buffer=new)
            for deps in _dep_lists(state.tokens, ()):
                token, s2 = s.fresh()
                yield _emit(s2, Step("alloc", ("async",) + variant, deps, (), (buf, token)),
                            token, deps, new_buffer=_Buf(buf, space, True, token))


def _candidates(state: _State, allocated_only: bool = False, like: _Buf | None = None
                ) -> Iterator[tuple[_Buf, _State, bool]]:
    """Buffers an op may take (of `like`'s type, other than `like`): a live
    one, or a new function argument (memory space 0); whether it is new."""
    for b in state.buffers:
        if allocated_only and not b.from_alloc:
            continue
        if like is not None and (b.value == like.value or b.space != like.space):
            continue
        yield b, state, False
    if allocated_only or state.args >= MAX_ARG_BUFFERS:
        return
    if like is None or like.space is None:
        value, s = state.fresh()
        yield _Buf(value, None, False, None), _replace(s, args=state.args + 1), True


def _buffer_ops(state: _State) -> Iterator[_State]:
    for buf, s, _ in _candidates(state, allocated_only=True):
        yield from _on_buffers(s, "dealloc", (buf,), (), freed=buf.value)
    for buf, s, new in _candidates(state):
        fresh = (buf,) if new else ()
        yield from _on_buffers(s, "memset", (buf,), (), new_args=fresh)
        yield from _on_buffers(s, "launch", (buf,), (), new_args=fresh)
        for src, s2, new2 in _candidates(s, like=buf):
            yield from _on_buffers(s2, "memcpy", (buf, src), (),
                                   new_args=fresh + ((src,) if new2 else ()))


def _on_buffers(state: _State, kind: str, bufs: tuple[_Buf, ...], variant: tuple[str, ...],
                freed: int | None = None, new_args: tuple[_Buf, ...] = ()) -> Iterator[_State]:
    values = tuple(b.value for b in bufs)
    live = state.buffers + tuple(b for b in new_args if b not in state.buffers)
    s0 = _replace(state, buffers=live)
    required = tuple(dict.fromkeys(b.last_token for b in bufs if b.last_token is not None))
    if not required:  # a synchronous op on buffers with async work pending is invalid
        yield _emit(s0, Step(kind, ("sync",) + variant, (), values, ()), None, (),
                    touched=values, freed=freed)
    for deps in _dep_lists(state.tokens, required):
        token, s = s0.fresh()
        yield _emit(s, Step(kind, ("async",) + variant, deps, values, (token,)), token, deps,
                    touched=values, freed=freed)
