"""The reference semantics' streams and token closure, shared by both source
interpreters (`oracles.source_interp`, `oracles.source_xdsl`).

An async op runs on a stream after the work behind its dependencies and
after nothing else: the stream of a dependency whose work is still that
stream's tail (the first op to consume a token continues its stream), else
a new stream waiting on each dependency's event.  Both order exactly the
same, but a chain of n ops stays on one queue instead of n (the simulator's
vector clocks grow with the queues: quadratic time and memory otherwise).

A token implies the instances its op waited on; what it implies in all is
the closure, walked only when a host wait awaits it (a set per token is
quadratic on long chains).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc_verify.oracles.runtime import Runtime


@dataclass
class TokenStreams:
    rt: Runtime
    streams: list[int] = field(default_factory=list)  # every stream made (to destroy)
    # Event -> the stream it was recorded on, while nothing came after it
    # there; stream -> the event at its tail.
    tail_of: dict[int, int] = field(default_factory=dict)
    last_on: dict[int, int] = field(default_factory=dict)
    implied: dict[int, tuple[int, ...]] = field(default_factory=dict)  # instance -> direct
    awaited: set[int] = field(default_factory=set)

    def stream_after(self, events: Sequence[int]) -> int:
        """A stream for work after the work behind `events` (the
        dependencies' events) and nothing else."""
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

    def recorded(self, event: int, stream: int) -> None:
        """`event` was just recorded on `stream`: it is the stream's tail."""
        if stream in self.last_on:
            del self.tail_of[self.last_on.pop(stream)]
        self.tail_of[event] = stream
        self.last_on[stream] = event

    def await_(self, inst: int) -> None:
        """`inst` and all it implies are awaited; each instance is walked once
        (awaited only grows)."""
        stack = [inst]
        while stack:
            i = stack.pop()
            if i not in self.awaited:
                self.awaited.add(i)
                stack.extend(self.implied[i])


__all__ = ["TokenStreams"]
