"""Which behaviours a program exercises: the coverage figures of a run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from gpu_alloc_verify.verify.model import program as prog
from gpu_alloc_verify.verify.model.kernels import SHAPE_NAMES
from gpu_alloc_verify.verify.model.op_specs import ASYNC_FEATURES, BY_KIND

# The tag stem of each async op kind (`alloc.sync`, `alloc.deps=1`, ...).
_KIND = ASYNC_FEATURES


def _signature(fn: prog.Function) -> set[str]:
    out: set[str] = set()
    if fn.private:
        out.add("func.callee")
    for arg in (*fn.args, *fn.results):
        if arg.type == prog.TOKEN_TYPE:
            out.add("func.token-across-call")
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


def _types_features(types: tuple[prog.MemRefType, ...], out: set[str]) -> None:
    """Memory spaces and views among the buffer types an op works on."""
    for t in types:
        if t.space is not None:
            out.add("memref.space")
        if t.layout:
            out.add("memref.strided")


def _async_features(op: prog.AsyncOp, out: set[str], uses: Counter[str]) -> None:
    kind = _KIND[type(op)]
    mode = "async" if op.token is not None else "sync"
    out.add(f"{kind}.{mode}")
    out.add(f"{kind}.deps={min(len(op.deps), 3)}")
    uses.update(op.deps)
    if isinstance(op, prog.Memcpy):
        _types_features((op.type, op.source_type), out)
    elif not isinstance(op, (prog.Wait, prog.Launch)):
        _types_features((op.type,), out)
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
    if op.form == "cf":
        out.add("cf.cond_br")
        if op.results:
            out.add("cf.block-arg-token")
        return
    out.add("scf.if.else" if op.orelse else "scf.if")
    if op.results:
        out.add("scf.if.yield-token")


def _for_features(op: prog.For, out: set[str], uses: Counter[str]) -> None:
    out.add({"scf": "scf.for", "while": "scf.while", "cf": "cf.loop"}[op.form])
    if op.trip_arg is not None:
        out.add("loop.trips-from-arg")
    if op.iter_args:
        out.add({"scf": "scf.for.iter-token", "while": "scf.while.token",
                 "cf": "cf.block-arg-token"}[op.form])
    if _outer_tokens_used(op):
        out.add("token.into-loop")


def _view_features(op: prog.View, out: set[str], uses: Counter[str]) -> None:
    out.add(f"memref.{op.kind}")


def _execute_features(op: prog.Execute, out: set[str], uses: Counter[str]) -> None:
    out.add("async.execute")
    if op.deps:
        out.add("async.execute.token-deps")
    if op.operands:
        out.add("async.execute.value-operands")
    if op.results:
        out.add("async.execute.yield-token")


def _await_features(op: prog.Await, out: set[str], uses: Counter[str]) -> None:
    out.add("async.await.value" if op.result is not None else "async.await.token")


def _call_features(op: prog.Call, out: set[str], uses: Counter[str]) -> None:
    out.add("func.call")
    uses.update(a for a, t in zip(op.args, op.arg_types, strict=True) if t == prog.TOKEN_TYPE)
    if any(isinstance(t, prog.MemRefType) for t in op.result_types):
        out.add("func.call.returns-memref")


def _host_register_features(op: prog.HostRegister, out: set[str], uses: Counter[str]) -> None:
    out.add(BY_KIND["host_register"].feature or "host_register")


def _set_device_features(op: prog.SetDevice, out: set[str], uses: Counter[str]) -> None:
    out.add(BY_KIND["set_default_device"].feature or "set_default_device")


def _gpu_launch_features(op: prog.GpuLaunch, out: set[str], uses: Counter[str]) -> None:
    out.add("gpu.launch.async" if op.token is not None else "gpu.launch.sync")
    uses.update(op.deps)


# The feature tags of each kind of op (`OP_KINDS`; tests/model/test_op_dispatch.py);
# each also counts the tokens the op uses, for "token.fan-out".
_OP_FEATURES: dict[type, Callable[[Any, set[str], Counter[str]], None]] = {
    prog.Wait: _async_features, prog.Alloc: _alloc_features, prog.Dealloc: _async_features,
    prog.Memset: _async_features, prog.Memcpy: _async_features, prog.Launch: _launch_features,
    prog.HostAlloc: _host_alloc_features, prog.HostDealloc: _host_dealloc_features,
    prog.Dim: _dim_features, prog.HostStore: _host_store_features,
    prog.HostLoad: _host_load_features, prog.If: _if_features, prog.For: _for_features,
    prog.View: _view_features, prog.Execute: _execute_features, prog.Await: _await_features,
    prog.Call: _call_features, prog.HostRegister: _host_register_features,
    prog.SetDevice: _set_device_features, prog.GpuLaunch: _gpu_launch_features,
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


SWARM_PREFIX = "tag.swarm."


def needed_switches(feature_sets: list[list[str]]) -> list[str]:
    """The swarm switches and kinds on in every one of a root cause's
    programs (their recorded `features`): what the cause may need, read as
    swarm testing reads it (a switch some triggering program had off is not
    needed).  Empty for programs drawn without swarm."""
    sets = [{f.removeprefix(SWARM_PREFIX) for f in fs if f.startswith(SWARM_PREFIX)}
            for fs in feature_sets]
    if not sets or not all(sets):
        return []
    return sorted(set.intersection(*sets))


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
# Reached by the swarm campaign's generator (`GenConfig.swarm_default()`) only:
# the host code of issue 40, judged from its text.
HOST_CODE_FEATURES = sorted(
    ["memref.space", "memref.strided", "cf.cond_br", "cf.block-arg-token", "scf.while",
     "scf.while.token", "cf.loop", "loop.trips-from-arg", "async.execute",
     "async.execute.token-deps", "async.execute.value-operands", "async.execute.yield-token",
     "async.await.value", "async.await.token", "func.call", "func.callee",
     "func.token-across-call", "func.call.returns-memref", "gpu.launch.async",
     "gpu.launch.sync"]
    + [BY_KIND[k].feature or k for k in ("host_register", "set_default_device")]
    + [f"memref.{kind}" for kind in prog.VIEW_KINDS])
