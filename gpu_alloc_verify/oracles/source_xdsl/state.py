"""What one source run shares across op implementations: the runtime, the
token bookkeeping of the reference semantics (as `oracles.source_interp`'s:
each async op on a stream after its dependencies' work and nothing else,
`oracles.token_streams`, and an event recorded after it for its token),
the kernels and the output."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import FileLineColLoc, NameLoc, NoneAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.ir import Operation, SSAValue

from gpu_alloc_verify.oracles.kernel_api import Kernel, MemRefView
from gpu_alloc_verify.oracles.runtime import Runtime
from gpu_alloc_verify.oracles.source_xdsl.values import SourceValue, Token, Unmodelled
from gpu_alloc_verify.oracles.token_streams import TokenStreams
from gpu_alloc_verify.verify.ir.locations import file_key, source_key

MAX_BYTES = 1 << 24  # one allocation past this: the input is skipped, not run


@dataclass
class State:
    rt: Runtime
    kernels: Mapping[str, Kernel]
    events: list[int] = field(default_factory=list)
    produced: dict[int, str] = field(default_factory=dict)  # token instance -> op key
    prints: list[str] = field(default_factory=list)
    current: Operation | None = None  # the op being interpreted (set by the run's listener)
    interpreter: Any = None  # for values an op uses from above (gpu.launch's body)
    # gpu.launch (by id) -> the values it passes
    launch_args: dict[int, list[SSAValue]] = field(default_factory=dict)
    globals: dict[str, MemRefView] = field(default_factory=dict)  # memref.global name -> its view
    # The streams made and the token closure (`oracles.token_streams`).
    tokens: TokenStreams = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = TokenStreams(self.rt)

    def at(self, op: Operation) -> None:
        """Calls that follow come from `op` (its location's key, as lowered ops carry it)."""
        self.rt.set_location(op_key(op))

    def stream_after(self, deps: Iterable[SourceValue]) -> int:
        return self.tokens.stream_after([token(d).event for d in deps])

    def complete(self, op: Operation, s: int, deps: Iterable[SourceValue],
                 is_async: bool) -> Token | None:
        """The op's token, or for a synchronous op the host waits for it."""
        if not is_async:
            self.rt.stream_synchronize(s)
            return None
        e = self.rt.event_create()
        self.events.append(e)
        self.rt.event_record(e, s)
        self.tokens.recorded(e, s)
        inst = len(self.produced)
        self.produced[inst] = op_key(op) or op.name
        implied = self.tokens.implied[inst] = tuple(token(d).instance for d in deps)
        return Token(e, inst, implied)

    def host_wait(self, deps: Iterable[SourceValue], counts: bool = True) -> None:
        for d in deps:
            self.rt.event_synchronize(token(d).event)
            if counts:
                        self.tokens.await_(token(d).instance)

    def finish(self) -> list[str]:
        """Destroy what the run made; the token instances never awaited."""
        self.rt.set_location(None)
        for e in self.events:
            self.rt.event_destroy(e)
        for s in self.tokens.streams:
            self.rt.stream_destroy(s)
        return [self.produced[i] for i in sorted(set(self.produced) - self.tokens.awaited)]


def op_key(op: Operation) -> str | None:
    """`source_key` of the op's location.  A plain file or name location
    (printable ASCII, no quote or backslash: its printed text reads back
    as itself) is keyed from its fields; `source_key` reads any other from
    the text xDSL prints, which for each distinct location costs a print."""
    loc = getattr(op, "location", None)
    if isinstance(loc, FileLineColLoc):
        name = loc.filename.data
        if _plain(name):
            return file_key(name, loc.line.data, loc.column.data)
    elif isinstance(loc, NameLoc) and isinstance(loc.location, NoneAttr):
        name = loc.desc.data
        if _plain(name):
            return name
    return source_key(loc)


def _plain(text: str) -> bool:
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def token(v: object) -> Token:
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
