"""What `verify.extract.calls` finds in a lowered module (runtime calls with their
guards, handles, leftovers of the gpu dialect, unexplored paths), and how it
reads an op's name-independent parts: location, attributes, types."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.model.fold import conj, neg
from gpu_alloc_verify.verify.model.op_specs import LEFTOVER_OPS

HANDLE_CREATORS = {"mgpuStreamCreate": "stream", "mgpuEventCreate": "event"}
# Gpu ops that, left in a lowered module, are unconverted.
GPU_RUNTIME_OPS = LEFTOVER_OPS
ESCAPE = "<escape>"
# A reason text, or a function that writes it: most are never shown.
Words = str | Callable[[], str]


def words(text: Words) -> str:
    return text() if callable(text) else text

# Host reads and writes of buffers are listed among the calls: they are
# points in host order that async-order needs.
HOST_ACCESS = ("host.load", "host.store")




# The note of a host access made by a call of a declared-only function: a
# host access only where its source op is one (a call of the same function).
EXTERNAL_CALL = "external call"


@dataclass
class Call:
    index: int
    func: str
    callee: str
    args: tuple[smt.ArithRef, ...]
    guard: smt.BoolRef
    source_op: str | None
    handle: int | None = None  # the handle this call creates, if any
    iters: tuple[int, ...] = ()  # iteration numbers of the enclosing unrolled loops
    note: str = ""  # an escape: where the value went
    flags: tuple[smt.BoolRef, smt.BoolRef] | None = None  # an escape: (destroys, uses)
    # The calls of module functions it runs inside (location of the call,
    # callee), outermost first: which activation of its source op it is.
    sites: tuple[tuple[str | None, str], ...] = ()
    # The arguments the call really passes, where `args` adds one the
    # checkers read uniformly (LLVM 16's two-argument mgpuMemAlloc).
    arity: int | None = None

    @property
    def is_host_access(self) -> bool:
        return self.callee in HOST_ACCESS

    @property
    def is_escape(self) -> bool:
        return self.callee == ESCAPE


@dataclass
class Residue:
    """A gpu runtime op or a `!gpu.async.token` value left by the lowering,
    anywhere in the module (`verify.extract.leftovers`): no path condition."""

    what: str
    func: str  # the function it is in; "" at module level
    source_op: str | None
    op: str = ""  # the op's name: `gpu.alloc`, `builtin.unrealized_conversion_cast`


@dataclass
class Cut:
    """Paths the extractor did not explore, and why."""

    guard: smt.BoolRef
    reason: str


@dataclass
class LoweredFacts:
    calls: list[Call] = field(default_factory=list)
    handles: dict[int, tuple[str, Call]] = field(default_factory=dict)
    residue: list[Residue] = field(default_factory=list)  # of the whole module
    cuts: list[Cut] = field(default_factory=list)
    unknown_values: set[int] = field(default_factory=set)  # distinct non-handle stand-ins
    unknowns: dict[str, Words] = field(default_factory=dict)  # "?n" -> what produced it
    # Calls through a pointer the analysis could not resolve: they may create
    # streams and events it does not see (so no leak verdict `holds`).
    hidden_creates: list[Cut] = field(default_factory=list)
    # Loops with runtime calls summarized by one iteration whose handles
    # live and die in it (`verify.extract.summary`): every invariant but
    # async-order is decided on it; the order across iterations is not.
    order_cuts: list[Cut] = field(default_factory=list)
    # What the paths that end satisfy: a summarized loop is left by one of
    # its exits, whose conditions hold of the round it leaves by.
    assumptions: list[smt.BoolRef] = field(default_factory=list)
    _explored: smt.BoolRef | None = None

    @property
    def explored(self) -> smt.BoolRef:
        """The paths every loop and call was followed on to the end."""
        if self._explored is None:
            self._explored = conj(*(neg(c.guard) for c in self.cuts), *self.assumptions)
        return self._explored

    def handles_of(self, kind: str) -> Iterable[tuple[int, Call]]:
        return ((h, c) for h, (k, c) in self.handles.items() if k == kind)

    def calls_to(self, *callees: str) -> list[Call]:
        return [c for c in self.calls if c.callee in callees]

    def escapes(self) -> list[Call]:
        return [c for c in self.calls if c.is_escape]


