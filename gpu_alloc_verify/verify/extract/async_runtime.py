"""The async runtime lowering's calls and coroutine intrinsics, for the extractor.

`async-to-async-runtime` + `convert-async-to-llvm` turn each `async.execute`
into a coroutine function: it creates its token and values
(`mlirAsyncRuntimeCreateToken/Value`), hands its own resumption to the
runtime (`mlirAsyncRuntimeExecute`, or `...Await*AndExecute` behind an
operand), suspends (`llvm.intr.coro.suspend`, then a switch on its i8:
0 resumed, 1 destroyed, else suspended: back to the caller), and once
resumed runs the body, stores what it yields in the value's storage
(`mlirAsyncRuntimeGetValueStorage`) and emplaces token and values.  The
caller awaits and loads the value back from the same storage.

What upstream's `mlir/lib/ExecutionEngine/AsyncRuntime.cpp` does with them,
as far as streams and events go:

- tokens, values and groups are reference-counted runtime objects, never a
  stream or an event: creating one gives a fresh opaque value, AddRef and
  DropRef only count;
- `Execute`, `AwaitTokenAndExecute`, `AwaitValueAndExecute` and
  `AwaitAllInGroupAndExecute` run the coroutine's resume function (now, on
  the thread pool, or once the operand is ready); the runtime never destroys
  a coroutine (`llvm.intr.coro.destroy` is not called), so each suspension
  is resumed exactly once.  The resumption is modelled where the coroutine
  suspends: `coro.suspend` yields 0 (resumed) and the body goes on, run
  once, as the unlowered `async.execute` is (`calls._Extractor.async_execute`),
  and the resume functions (`llvm.intr.coro.resume`) do nothing more;
- a value's storage is one buffer per value object: the same slot whoever
  asks, so what the body stores the awaiting host loads;
- an error state is set only by `SetTokenError` / `SetValueError`, which the
  lowering calls only after an `Is*Error` of an operand was true: with no
  error to start from none is ever set, so `Is*Error` is false;
- awaiting, emplacing and the worker count touch no stream or event.

Other coroutine intrinsics (`coro.id`, `size`, `align`, `begin`, `save`,
`free`, `end`) manage the coroutine's frame: fresh values, never a handle.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc_verify.verify import smt
from gpu_alloc_verify.verify.extract.memory import Memory
from gpu_alloc_verify.verify.ir.attrs import source_loc, type_text
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IROp, IRValue
from gpu_alloc_verify.verify.model import fold
from gpu_alloc_verify.verify.model.values import as_value, literal, may_be_handle

# Upstream spells one of them `mlirAsyncRuntimGetNumWorkerThreads`.
_PREFIX = "mlirAsyncRuntim"
_CREATES = {"mlirAsyncRuntimeCreateToken", "mlirAsyncRuntimeCreateValue",
            "mlirAsyncRuntimeCreateGroup"}
_ERROR_TESTS = {"mlirAsyncRuntimeIsTokenError", "mlirAsyncRuntimeIsValueError",
                "mlirAsyncRuntimeIsGroupError"}
_STORAGE = "mlirAsyncRuntimeGetValueStorage"
# No result, no stream or event: reference counts, waits, state changes, and
# the Execute family (the resumption is modelled at coro.suspend).
_EFFECT_FREE = {"mlirAsyncRuntimeAddRef", "mlirAsyncRuntimeDropRef",
                "mlirAsyncRuntimeEmplaceToken", "mlirAsyncRuntimeEmplaceValue",
                "mlirAsyncRuntimeSetTokenError", "mlirAsyncRuntimeSetValueError",
                "mlirAsyncRuntimeAwaitToken", "mlirAsyncRuntimeAwaitValue",
                "mlirAsyncRuntimeAwaitAllInGroup", "mlirAsyncRuntimeExecute",
                "mlirAsyncRuntimeAwaitTokenAndExecute",
                "mlirAsyncRuntimeAwaitValueAndExecute",
                "mlirAsyncRuntimeAwaitAllInGroupAndExecute"}
_COUNTS = {"mlirAsyncRuntimeAddTokenToGroup", "mlirAsyncRuntimGetNumWorkerThreads"}
KNOWN = _CREATES | _ERROR_TESTS | {_STORAGE} | _EFFECT_FREE | _COUNTS
CORO_PREFIX = "llvm.intr.coro."
_STORAGE_ATTR = "_async_value_storage"  # value object -> its storage slot, per extractor


def is_async_runtime(callee: str) -> bool:
    """A function of upstream's async runtime this module models."""
    return callee.startswith(_PREFIX) and callee in KNOWN


def is_coroutine_op(name: str) -> bool:
    return name.startswith(CORO_PREFIX)


def runtime_call(x: Memory, op: IROp, guard: smt.BoolRef, callee: str,
                 operands: Sequence[IRValue]) -> None:
    """A call of an `mlirAsyncRuntime*` function (declared, not defined here)."""
    for v in operands:  # never a stream or event by its C type; if one were: not followed
        value = x.val(v)
        if may_be_handle(value):
            x.escape(value, guard, f"passed to @{callee}", source_loc(op))
    results = list(op.results)
    if callee == _STORAGE and results:
        x.define(results[0], _storage(x, x.val(operands[0])) if operands else x.fresh(),
                 guard)
    elif callee in _ERROR_TESTS and results:
        x.define(results[0], as_value(fold.bv(0, 1)), guard)
        x.define_cond(results[0], fold.FALSE, guard)
    else:  # a runtime object (token, value, group), a count: never a handle
        for r in results:
            x.define(r, x.fresh("r") if callee in _CREATES else x.fresh_for(r), guard)


def coroutine_op(x: Memory, op: IROp, guard: smt.BoolRef) -> None:
    """`llvm.intr.coro.*`: the frame's bookkeeping; `suspend` resumes (0)."""
    name = op_name(op)
    for r in op.results:
        if name == f"{CORO_PREFIX}suspend":
            x.define(r, as_value(fold.bv(0, 8)), guard)  # resumed: the body runs on
        elif type_text(r) == "i1":  # coro.end: whether it ran in a landing pad
            x.define(r, as_value(fold.bv(0, 1)), guard)
            x.define_cond(r, fold.FALSE, guard)
        else:
            x.define(r, x.fresh_for(r), guard)


def _storage(x: Memory, value: smt.ArithRef) -> smt.ArithRef:
    """The storage slot of the async value object `value`: one per object,
    a stack-like slot the extractor follows stores and loads through.  A
    value object not known exactly gets a pointer the analysis does not
    follow (what is stored through it escapes)."""
    key = literal(value)
    if key is None:
        return x.fresh()
    table: dict[int, smt.ArithRef] = getattr(x, _STORAGE_ATTR, None) or {}
    setattr(x, _STORAGE_ATTR, table)
    slot = table.get(key)
    if slot is None:
        slot = table[key] = x.fresh()
        x.slots.add(literal(slot))  # type: ignore[arg-type]
    return slot
