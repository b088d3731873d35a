"""Programs every `gpu-to-llvm` from LLVM 17 on lowers completely, and campaigns.

`generators.programs` explores the whole language; much of what it makes is
left half-converted by upstream `mlir-opt` (sync non-shared allocs, ops with
zero or two dependencies).  The differential oracle runs such a module with
the leftovers' source meaning (`oracles.lowered_gpu`), but the native oracle
cannot translate it, and comparisons are sharpest where everything is
lowered.  `lowerable_programs` keeps to the shapes upstream converts: token chains
started by `gpu.wait async`, async allocs/memsets/memcpys/deallocs with
exactly one dependency, joins (`gpu.wait async [a, b]`), synchronous
host_shared allocs read and written on the host once awaited, and `scf.if` /
`scf.for` around self-contained chains.  Programs are race-free by
construction: a buffer is used on one chain at a time, and on another only
after a host wait.

`run_campaign` lowers a batch with a `Lowering` and tallies the differential
verdicts per runtime factory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from hypothesis import strategies as st

from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.verdicts import Verdict

if TYPE_CHECKING:
    from gpu_alloc_verify.oracles.differential import RuntimeFactory
    from gpu_alloc_verify.verify.lowerings.base import Lowering

TYPES = (prog.MemRefType((16,), "i32"), prog.MemRefType((4, 4), "f32"),
         prog.MemRefType((16,), "f16"))
DYNAMIC = prog.MemRefType((None,), "i32")


@dataclass
class _Buf:
    name: str
    type: prog.MemRefType
    shared: bool
    chain: str | None = None  # token of the chain it is pending on, None: settled
    dyn: tuple[str, ...] = ()


@dataclass
class _State:
    chains: list[str] = field(default_factory=list)  # live chain tokens
    bufs: list[_Buf] = field(default_factory=list)


class _Gen:
    def __init__(self, draw: st.DrawFn, joins: bool, control: bool, dynamic: bool) -> None:
        self.draw = draw
        self.joins = joins
        self.control = control
        self.dynamic = dynamic
        self.n = 0
        self.args: list[prog.Arg] = []

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"%{prefix}{self.n}" if prefix != "op" else f"op{self.n}"

    def usable(self, s: _State, chain: str) -> list[_Buf]:
        return [b for b in s.bufs if b.chain in (None, chain)]

    def advance(self, s: _State, chain: str, token: str, touched: list[_Buf]) -> None:
        s.chains[s.chains.index(chain)] = token
        for b in s.bufs:
            if b.chain == chain or b in touched:
                b.chain = token

    def sync(self, s: _State, chain: str, out: list[prog.Op]) -> None:
        out.append(prog.Wait(self.fresh("op"), None, (chain,)))
        s.chains.remove(chain)
        for b in s.bufs:
            if b.chain == chain:
                b.chain = None

    def body(self, s: _State, budget: int, depth: int, out: list[prog.Op]) -> None:
        kinds = ["chain", "alloc", "alloc", "shared", "memset", "memset", "memcpy", "memcpy",
                 "dealloc", "sync", "host", "host"]
        if self.joins:
            kinds.append("join")
        if self.control and depth < 2:
            kinds += ["if", "for"]
        for _ in range(budget):
            kind = self.draw(st.sampled_from(kinds))
            _STEPS[kind](self, s, out, depth)
        for chain in list(s.chains):
            self.sync(s, chain, out)

    def pick_chain(self, s: _State, out: list[prog.Op]) -> str:
        if not s.chains or self.draw(st.integers(0, 3)) == 0:
            token = self.fresh("t")
            out.append(prog.Wait(self.fresh("op"), token, ()))
            s.chains.append(token)
        return self.draw(st.sampled_from(s.chains))

    def op_chain(self, s: _State, out: list[prog.Op], depth: int) -> None:
        token = self.fresh("t")
        out.append(prog.Wait(self.fresh("op"), token, ()))
        s.chains.append(token)

    def op_alloc(self, s: _State, out: list[prog.Op], depth: int) -> None:
        chain = self.pick_chain(s, out)
        dyn: tuple[str, ...] = ()
        if self.dynamic and self.draw(st.integers(0, 4)) == 0:
            mtype = DYNAMIC
            dyn = ("%size0",)
            if not any(a.name == "%size0" for a in self.args):
                self.args.append(prog.Arg("%size0", "index"))
        else:
            mtype = self.static_type(s)
        name, token = self.fresh("m"), self.fresh("t")
        out.append(prog.Alloc(self.fresh("op"), name, token, (chain,), False, mtype, dyn))
        buf = _Buf(name, mtype, False, chain, dyn)
        s.bufs.append(buf)
        self.advance(s, chain, token, [buf])

    def static_type(self, s: _State) -> prog.MemRefType:
        """Often the type of a buffer in scope, so that memcpys find a partner."""
        seen = [b.type for b in s.bufs if not b.dyn]
        reuse: bool = bool(seen) and self.draw(st.booleans())
        return self.draw(st.sampled_from(seen if reuse else list(TYPES)))

    def op_shared(self, s: _State, out: list[prog.Op], depth: int) -> None:
        mtype = self.static_type(s)
        name = self.fresh("m")
        out.append(prog.Alloc(self.fresh("op"), name, None, (), True, mtype))
        s.bufs.append(_Buf(name, mtype, True))

    def op_memset(self, s: _State, out: list[prog.Op], depth: int) -> None:
        chain = self.pick_chain(s, out)
        bufs = self.usable(s, chain)
        if not bufs:
            return
        buf = self.draw(st.sampled_from(bufs))
        token = self.fresh("t")
        value = self.draw(st.integers(0, 7))
        out.append(prog.Memset(self.fresh("op"), token, (chain,), buf.name, buf.type, value))
        self.advance(s, chain, token, [buf])

    def op_memcpy(self, s: _State, out: list[prog.Op], depth: int) -> None:
        chain = self.pick_chain(s, out)
        bufs = [b for b in self.usable(s, chain) if not b.dyn]
        pairs = [(d, c) for d in bufs for c in bufs if d is not c and d.type == c.type]
        if not pairs:
            return
        dst, src = self.draw(st.sampled_from(pairs))
        token = self.fresh("t")
        out.append(prog.Memcpy(self.fresh("op"), token, (chain,), dst.name, src.name, dst.type))
        self.advance(s, chain, token, [dst, src])

    def op_dealloc(self, s: _State, out: list[prog.Op], depth: int) -> None:
        chain = self.pick_chain(s, out)
        bufs = [b for b in self.usable(s, chain) if not b.shared]
        if not bufs:
            return
        buf = self.draw(st.sampled_from(bufs))
        token = self.fresh("t")
        out.append(prog.Dealloc(self.fresh("op"), token, (chain,), buf.name, buf.type))
        s.bufs.remove(buf)
        self.advance(s, chain, token, [])

    def op_sync(self, s: _State, out: list[prog.Op], depth: int) -> None:
        if s.chains:
            self.sync(s, self.draw(st.sampled_from(s.chains)), out)

    def op_join(self, s: _State, out: list[prog.Op], depth: int) -> None:
        if len(s.chains) < 2:
            return
        a, b = self.draw(st.lists(st.sampled_from(s.chains), min_size=2, max_size=2,
                                  unique=True))
        token = self.fresh("t")
        out.append(prog.Wait(self.fresh("op"), token, (a, b)))
        s.chains = [c for c in s.chains if c not in (a, b)] + [token]
        for buf in s.bufs:
            if buf.chain in (a, b):
                buf.chain = token

    def op_host(self, s: _State, out: list[prog.Op], depth: int) -> None:
        shared = [b for b in s.bufs if b.shared]
        if not shared:
            self.op_shared(s, out, depth)
            shared = [s.bufs[-1]]
        buf = self.draw(st.sampled_from(shared))
        if buf.chain is not None:
            self.sync(s, buf.chain, out)
        if self.draw(st.booleans()):
            value = self.draw(st.integers(0, 7))
            out.append(prog.HostStore(self.fresh("op"), buf.name, buf.type, value))
        else:
            out.append(prog.HostLoad(self.fresh("op"), self.fresh("v"), buf.name, buf.type))

    def region(self, s: _State, depth: int) -> tuple[prog.Op, ...]:
        # A region sees the settled outer buffers and frees none of them.
        inner = _State(bufs=[_Buf(b.name, b.type, True, None, b.dyn)
                             for b in s.bufs if b.chain is None and b.shared])
        ops: list[prog.Op] = []
        self.body(inner, self.draw(st.integers(1, 3)), depth + 1, ops)
        return tuple(ops)

    def op_if(self, s: _State, out: list[prog.Op], depth: int) -> None:
        cond = f"%cond{sum(a.type == 'i1' for a in self.args)}"
        self.args.append(prog.Arg(cond, "i1"))
        op_id = self.fresh("op")
        then = self.region(s, depth)
        orelse = self.region(s, depth) if self.draw(st.booleans()) else ()
        out.append(prog.If(op_id, cond, then, orelse))

    def op_for(self, s: _State, out: list[prog.Op], depth: int) -> None:
        op_id = self.fresh("op")
        iv = self.fresh("i")
        trip = self.draw(st.integers(0, 2))
        out.append(prog.For(op_id, iv, trip, self.region(s, depth)))


# What each step `_Gen.body` draws adds: one op kind, or a chain's start,
# a host wait ("sync") or a join of two chains.
_STEPS: dict[str, Callable[[_Gen, _State, list[prog.Op], int], None]] = {
    "chain": _Gen.op_chain, "alloc": _Gen.op_alloc, "shared": _Gen.op_shared,
    "memset": _Gen.op_memset, "memcpy": _Gen.op_memcpy, "dealloc": _Gen.op_dealloc,
    "sync": _Gen.op_sync, "join": _Gen.op_join, "host": _Gen.op_host, "if": _Gen.op_if,
    "for": _Gen.op_for,
}


@st.composite
def lowerable_programs(
    draw: st.DrawFn,
    max_ops: int = 10,
    joins: bool = True,
    control: bool = True,
    dynamic: bool = True,
) -> prog.Program:
    """One function `@f0` that upstream `gpu-to-llvm` (LLVM 17-22) lowers fully."""
    gen = _Gen(draw, joins, control, dynamic)
    out: list[prog.Op] = []
    gen.body(_State(), draw(st.integers(1, max_ops)), 0, out)
    return prog.Program((prog.Function("f0", tuple(gen.args), tuple(out)),))


class ProgramOptions(TypedDict, total=False):
    """What `lowerable_programs` takes besides `draw` (`sample_programs` passes it on)."""

    max_ops: int
    joins: bool
    control: bool
    dynamic: bool


def sample_programs(n: int, seed: int = 0,
                    **options: Unpack[ProgramOptions]) -> list[prog.Program]:
    """`n` programs drawn from `lowerable_programs`, the same for the same seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    found: list[prog.Program] = []

    @hypothesis_seed(seed)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              derandomize=False, suppress_health_check=list(HealthCheck))
    @given(lowerable_programs(**options))
    def collect(program: prog.Program) -> None:
        found.append(program)

    collect()
    return found[:n]


@dataclass
class CampaignRow:
    runtime: str
    verdicts: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, Any]] = field(default_factory=list)  # first mismatches


def run_campaign(
    programs: Sequence[prog.Program],
    lowering: Lowering,
    factories: Mapping[str, RuntimeFactory],
    schedules: int = 2,
    keep: int = 3,
) -> list[CampaignRow]:
    """Lower `programs` in one batch; the differential verdicts per runtime."""
    from gpu_alloc_verify.oracles.differential import check

    outcomes = lowering.lower_batch(list(programs))
    rows = []
    for name, factory in factories.items():
        row = CampaignRow(name)
        for program, lowered in zip(programs, outcomes, strict=True):
            if lowered.status != "ok":
                row.verdicts[f"lowering {lowered.status}"] += 1
                continue
            # The text, not a module parsed once: check() reads it with the
            # fast reader, cheaper per runtime than one xDSL parse.
            result = check(program, lowered.lowered, factory, schedules=schedules)
            row.verdicts[result.verdict] += 1
            if result.verdict == Verdict.VIOLATED and len(row.examples) < keep:
                row.examples.append({"program": program.to_mlir(),
                                     **result.violations[0].counterexample})
        rows.append(row)
    return rows
