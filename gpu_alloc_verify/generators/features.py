"""Which behaviours a program exercises: the coverage figures of a run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.kernels import SHAPE_NAMES
from gpu_alloc_verify.verify.model.op_specs import ASYNC_FEATURES

# The tag stem of each async op kind (`alloc.sync`, `alloc.deps=1`, ...).
_KIND = ASYNC_FEATURES


def _signature(fn: prog.Function) -> set[str]:
    out: set[str] = set()
    for arg in fn.args:
        if isinstance(arg.type, prog.MemRefType):
            out.add("arg.memref")
            if arg.type.space is not None:
                out.add("arg.memref.space")
        elif arg.type not in ("i1", "index"):
            out.add("arg.scalar")
    if fn.results:
        out.add("result")
    return out


def _launch(op: prog.Launch) -> set[str]:
    out = {f"kernel.{op.kernel.shape}"}
    if any(isinstance(s, str) for s in op.grid):
        out.add("launch.grid.value")
    return out


def _outer_tokens_used(loop: prog.For) -> bool:
    """Some op of the loop body depends on a token defined before the loop."""
    inside = {a for a, _ in loop.iter_args}
    for op in prog.walk_ops(loop.body):
        if isinstance(op, prog.ASYNC_OPS):
            if any(d not in inside for d in op.deps):
                return True
            if op.token is not None:
                inside.add(op.token)
        elif isinstance(op, (prog.If, prog.For)):
            inside |= set(op.results)
    return False


def _async_features(op: prog.AsyncOp, out: set[str], uses: Counter[str]) -> None:
    kind = _KIND[type(op)]
    mode = "async" if op.token is not None else "sync"
    out.add(f"{kind}.{mode}")
    out.add(f"{kind}.deps={min(len(op.deps), 3)}")
    uses.update(op.deps)
    if len(op.deps) > 1:
        # Many tokens into an async op; a host wait on many is ordinary.
        out.add("token.fan-in" if op.token is not None else "wait.sync.many")


def _alloc_features(op: prog.Alloc, out: set[str], uses: Counter[str]) -> None:
    _async_features(op, out, uses)
    out.add(f"alloc.host_shared={str(op.host_shared).lower()}")
    out.add("alloc.dynamic" if op.type.num_dynamic else "alloc.static")
    out.add(f"alloc.elem={op.type.elem}")


def _launch_features(op: prog.Launch, out: set[str], uses: Counter[str]) -> None:
    _async_features(op, out, uses)
    out |= _launch(op)


def _host_alloc_features(op: prog.HostAlloc, out: set[str], uses: Counter[str]) -> None:
    out.add("host.alloc")


def _host_dealloc_features(op: prog.HostDealloc, out: set[str], uses: Counter[str]) -> None:
    out.add("host.dealloc")


def _dim_features(op: prog.Dim, out: set[str], uses: Counter[str]) -> None:
    out.add("memref.dim")


def _host_store_features(op: prog.HostStore, out: set[str], uses: Counter[str]) -> None:
    out.add("host.store")


def _host_load_features(op: prog.HostLoad, out: set[str], uses: Counter[str]) -> None:
    out.add("host.load")


def _if_features(op: prog.If, out: set[str], uses: Counter[str]) -> None:
    out.add("scf.if.else" if op.orelse else "scf.if")
    if op.results:
        out.add("scf.if.yield-token")


def _for_features(op: prog.For, out: set[str], uses: Counter[str]) -> None:
    out.add("scf.for")
    if op.iter_args:
        out.add("scf.for.iter-token")
    if _outer_tokens_used(op):
        out.add("token.into-loop")


# The feature tags of each kind of op (`OP_KINDS`; tests/model/test_op_dispatch.py);
# each also counts the tokens the op uses, for "token.fan-out".
_OP_FEATURES: dict[type, Callable[[Any, set[str], Counter[str]], None]] = {
    prog.Wait: _async_features, prog.Alloc: _alloc_features, prog.Dealloc: _async_features,
    prog.Memset: _async_features, prog.Memcpy: _async_features, prog.Launch: _launch_features,
    prog.HostAlloc: _host_alloc_features, prog.HostDealloc: _host_dealloc_features,
    prog.Dim: _dim_features, prog.HostStore: _host_store_features,
    prog.HostLoad: _host_load_features, prog.If: _if_features, prog.For: _for_features,
}


def features(program: prog.Program) -> list[str]:
    out: set[str] = {f"functions={len(program.functions)}"}
    for fn in program.functions:
        out |= _signature(fn)
    uses: Counter[str] = Counter()
    for op in program.walk():
        add = prog.op_handler(_OP_FEATURES, op, "generators.features", "feature rule")
        add(op, out, uses)
    if any(isinstance(op, prog.Alloc) and op.token is not None and not op.deps
           for op in program.walk()):
        out.add("alloc.async.no-deps")
    if any(n > 1 for n in uses.values()):
        out.add("token.fan-out")
    out |= {f"tag.{t}" for t in program.tags}
    return sorted(out)


KNOWN_FEATURES = sorted(
    [f"{k}.{m}" for k in _KIND.values() for m in ("sync", "async")]
    # A launch takes one dependency at most unless `GenConfig.launch_fanin`.
    + [f"{k}.deps={n}" for k in _KIND.values() for n in range(2 if k == "launch" else 4)]
    + ["alloc.host_shared=true", "alloc.host_shared=false", "alloc.dynamic", "alloc.static",
       "host.store", "host.load", "scf.if", "scf.if.else", "scf.for", "token.fan-in",
       "token.fan-out", "tag.unawaited-token", "host.alloc", "host.dealloc", "memref.dim",
       "arg.memref", "arg.memref.space", "arg.scalar", "result", "launch.grid.value",
       "alloc.async.no-deps"]
    + [f"kernel.{shape}" for shape in SHAPE_NAMES]
)
# Reached with `GenConfig(cf_tokens=True)` only.
CF_TOKEN_FEATURES = ["scf.if.yield-token", "scf.for.iter-token", "token.into-loop"]
