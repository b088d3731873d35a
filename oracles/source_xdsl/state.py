"""What one source run shares across op implementations: the runtime, the
token bookkeeping of the reference semantics (`oracles.source_interp`'s
literal mapping: a stream per async op, waiting on its dependencies' events,
an event recorded after it for its token), the kernels and the output."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xdsl.interpreter import Interpreter, InterpreterFunctions

from gpu_alloc_verify.oracles.kernel_api import Kernel
from gpu_alloc_verify.oracles.runtime import Runtime
from gpu_alloc_verify.oracles.source_xdsl.values import Token, Unmodelled
from gpu_alloc_verify.verify.ir.locations import source_key

MAX_BYTES = 1 << 24  # one allocation past this: the input is skipped, not run


@dataclass
class State:
    rt: Runtime
    kernels: Mapping[str, Kernel]
    streams: list[int] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    produced: dict[int, str] = field(default_factory=dict)  # token instance -> op key
    awaited: set[int] = field(default_factory=set)
    prints: list[str] = field(default_factory=list)
    current: Any = None  # the op being interpreted (set by the run's listener)
    interpreter: Any = None  # for values an op uses from above (gpu.launch's body)
    launch_args: dict[int, Any] = field(default_factory=dict)  # gpu.launch -> what it passes
    globals: dict[str, Any] = field(default_factory=dict)  # memref.global name -> its view
    # Token instance -> those it implies; walked only when awaited (a set per
    # token would be quadratic in a chain's length).
    implied: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # Event -> the stream it was recorded on, while nothing came after it
    # there; stream -> the event at its tail.
    tail_of: dict[int, int] = field(default_factory=dict)
    last_on: dict[int, int] = field(default_factory=dict)

    def at(self, op: Any) -> None:
        """Calls that follow come from `op` (its location's key, as lowered ops carry it)."""
        self.rt.set_location(source_key(getattr(op, "location", None)))

    def stream_after(self, deps: Iterable[Any]) -> int:
        """A stream on which new work runs after `deps`' work and nothing else:
        the stream of a dependency whose work is still its tail, else a new
        one (`oracles.source_interp.stream_after`: the same orders, but a
        chain stays on one queue)."""
        events = [token(d).event for d in deps]
        kept = next((e for e in events if e in self.tail_of), None)
        if kept is None:
            s = self.rt.stream_create()
            self.streams.append(s)
        else:
            s = self.tail_of.pop(kept)  # this op's work comes after it now
            del self.last_on[s]
        for e in events:
            if e != kept:
                self.rt.stream_wait_event(s, e)
        return s

    def complete(self, op: Any, s: int, deps: Iterable[Any], is_async: bool) -> Token | None:
        """The op's token, or for a synchronous op the host waits for it."""
        if not is_async:
            self.rt.stream_synchronize(s)
            return None
        e = self.rt.event_create()
        self.events.append(e)
        self.rt.event_record(e, s)
        if s in self.last_on:
            del self.tail_of[self.last_on.pop(s)]
        self.tail_of[e] = s
        self.last_on[s] = e
        inst = len(self.produced)
        self.produced[inst] = source_key(getattr(op, "location", None)) or op.name
        self.implied[inst] = tuple(token(d).instance for d in deps)
        return Token(e, inst, self.implied[inst])

    def host_wait(self, deps: Iterable[Any], counts: bool = True) -> None:
        for d in deps:
            self.rt.event_synchronize(token(d).event)
            if counts:
                self.await_(token(d).instance)

    def await_(self, inst: int) -> None:
        """`inst` and all it implies are awaited; each instance is walked once
        (awaited only grows)."""
        stack = [inst]
        while stack:
            i = stack.pop()
            if i not in self.awaited:
                self.awaited.add(i)
                stack.extend(self.implied[i])

    def finish(self) -> list[str]:
        """Destroy what the run made; the token instances never awaited."""
        self.rt.set_location(None)
        for e in self.events:
            self.rt.event_destroy(e)
        for s in self.streams:
            self.rt.stream_destroy(s)
        return [self.produced[i] for i in sorted(set(self.produced) - self.awaited)]


def token(v: Any) -> Token:
    if not isinstance(v, Token):
        raise Unmodelled(f"a token that is no gpu op's ({v!r})")
    return v


_KEY = "gpu_alloc_verify.oracles.source_xdsl.state"


def attach(interpreter: Interpreter, st: State) -> None:
    st.interpreter = interpreter
    interpreter.set_data(InterpreterFunctions, _KEY, st)


def state(interpreter: Interpreter) -> State:
    s = interpreter.get_data(InterpreterFunctions, _KEY, lambda: None)
    if not isinstance(s, State):
        raise RuntimeError("source interpreter run without its state")
    return s
