"""`differential` for a module outside the generator's model: each function
with a body, on each input of `inputs`, run from the source text
(`machine`) and from the lowered module (`oracles.lowered_interp`), each on
a fresh runtime of the same factory, lazy schedule (why one schedule stands
for all: `oracles.differential._compare`), compared as
`oracles.differential` compares (`outcome_differences`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from gpu_alloc_verify.oracles.differential import RuntimeFactory, outcome_differences
from gpu_alloc_verify.oracles.kernel_api import Kernel, KernelUnsupported, MemRefView
from gpu_alloc_verify.oracles.llvm_values import prop, type_name
from gpu_alloc_verify.oracles.lowered_gpu import full_symbol
from gpu_alloc_verify.oracles.lowered_interp import (
    LoweredRun,
    op_loc,
    parse_module,
    read_fast,
    run_function,
)
from gpu_alloc_verify.oracles.mismatch import observables
from gpu_alloc_verify.oracles.runtime import DEVICE_RACE, HOST_RACE
from gpu_alloc_verify.oracles.source_xdsl.inputs import Input, inputs
from gpu_alloc_verify.oracles.source_xdsl.launch import lowered_signature
from gpu_alloc_verify.oracles.source_xdsl.machine import (
    XRun,
    argument_kind,
    bind,
    functions,
    kernels_of,
    launch_sites,
    parse,
    run,
    unmodelled_externals,
)
from gpu_alloc_verify.oracles.source_xdsl.values import TooLarge, Unmodelled
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.model import budget
from gpu_alloc_verify.verify.model.harness_defects import message_in_words, record, record_text
from gpu_alloc_verify.verify.model.verdicts import CheckResult, InvariantId, Verdict, Violation

INV = InvariantId.DIFFERENTIAL


def _unknown(reason: str) -> CheckResult:
    return CheckResult(INV, Verdict.UNKNOWN, reason=reason)


def check_text(source: str, lowered: str, factory: RuntimeFactory) -> CheckResult:
    """The verdict for source text (generic form) against lowered text."""
    try:
        return _check(source, lowered, factory)
    except budget.OutOfTime as e:
        return _unknown(str(e))
    except Exception as e:  # noqa: BLE001 - an oracle fault is unknown, never a crash
        return _unknown(record("the differential oracle", "", "?", e))


def _check(source: str, lowered: str, factory: RuntimeFactory) -> CheckResult:
    try:
        module = parse(source)
    except Exception as e:  # noqa: BLE001 - xDSL raises several error types
        return _unknown(f"the source interpreter cannot read the module: "
                        f"{message_in_words(e)}")
    externals = unmodelled_externals(module)
    if externals:
        return _unknown("the source calls external function(s) the interpreter does not "
                        f"model: {', '.join('@' + n for n in externals)}")
    try:
        kernels = kernels_of(source, module)
    except KernelUnsupported as e:
        return _unknown(f"the source interpreter does not run {e}")
    fns = functions(module)
    if not fns:
        return CheckResult(INV, Verdict.NOT_APPLICABLE, reason="the module has no function to run")
    lowered_module: Any = read_fast(lowered)
    if lowered_module is None:  # the fast reader declines: xDSL's parse
        try:
            lowered_module = parse_module(lowered)
        except Exception as e:  # noqa: BLE001 - a bad module is a verdict, not a crash
            return _unknown(f"unparsable lowered module: {message_in_words(e)}")
    try:
        kernels = _with_outlined(kernels, launch_sites(module), lowered_module)
    except KernelUnsupported as e:
        return _unknown(str(e))
    # A function taking a token runs only from a caller that made the token
    # (no input can stand for one): it is covered through its callers.
    callees = [fn for fn in fns if any(_is_token_type(t) for t in fn.function_type.inputs.data)]
    if len(callees) == len(fns):
        return _unknown(f"@{fns[0].sym_name.data} takes an argument of type "
                        f"!gpu.async.token, and every function does")
    fns = [fn for fn in fns if fn not in callees]
    runs = skipped = 0
    why_skipped: list[str] = []
    for fn in fns:
        try:
            kinds = [argument_kind(t) for t in fn.function_type.inputs.data]
        except Unmodelled as e:
            return _unknown(f"@{fn.sym_name.data} takes {e}")
        todo = list(inputs(list(fn.function_type.inputs.data), kinds))
        for k, inp in enumerate(todo):
            result = _one(module, fn, inp, factory, kernels, lowered_module)
            if isinstance(result, tuple):  # the fast reader declined: xDSL's parse
                lowered_module = parse_module(lowered)
                kernels = _with_outlined(kernels, launch_sites(module), lowered_module)
                result = _one(module, fn, inp, factory, kernels, lowered_module)
            if isinstance(result, Skipped):
                skipped += 1
                why_skipped.append(result.why)
                if result.why.endswith("s interpreting"):  # the other inputs run as long
                    skipped += len(todo) - k - 1
                    break
            elif isinstance(result, CheckResult):
                return result
            else:
                runs += 1
    if runs == 0:
        return _unknown(f"every input ({skipped}) is past the interpreters' budgets or "
                        f"breaks an op's precondition (the first: {why_skipped[0]})"
                        if why_skipped else "no input to run")
    return CheckResult(INV, Verdict.HOLDS, coverage=(
        f"{runs} input(s) over {len(fns)} function(s): every i1 assignment, dynamic sizes and "
        f"integers 0, 1, 3, 5 and integer boundaries within 16 per function; lazy "
        f"schedule stands for every schedule"
        f"{f'; {skipped} skipped (budgets, preconditions)' if skipped else ''}"
        f"{f'; {len(callees)} taking a token run only from their callers' if callees else ''}"))


def _is_token_type(t: object) -> bool:
    return "gpu.async.token" in str(t)


@dataclass(frozen=True)
class Skipped:
    """An input past a budget or an op's precondition, and which."""

    why: str


def _one(module: ModuleOp, fn: func.FuncOp, inp: Input, factory: RuntimeFactory,
         kernels: dict[str, Kernel], lowered: Any
         ) -> CheckResult | Skipped | tuple[()] | None:
    """One input: a verdict that ends the check, Skipped, None (same
    outcome), or () when the fast reader's model of the lowered text declined."""
    name = fn.sym_name.data
    names = [f"%arg{k}" for k in range(len(fn.function_type.inputs.data))]
    rt = factory(0)
    try:
        src = run(module, fn, inp.scalars, bind(fn, inp.scalars, rt, inp.size), rt, kernels)
    except TooLarge as e:  # an argument past the bytes a run may make
        return Skipped(f"source interpreter: {e}")
    finally:
        rt.close()
    if src.status == "skipped":
        return Skipped(f"source interpreter: {src.reason}")
    if src.status != "ok" or src.outcome is None:
        return _unknown(f"@{name} with {inp.show(names)}: {src.reason}")
    races = [f"{e.kind} at {e.loc or '?'}" for e in src.outcome.errors
             if e.kind in (HOST_RACE, DEVICE_RACE)]
    if races:
        return _unknown(f"the source itself races ({', '.join(races[:2])}) with "
                        f"{inp.show(names)}: no one outcome to compare with")
    rt = factory(0)
    try:
        views = bind(fn, inp.scalars, rt, inp.size)
        args = _lowered_args(views, inp)
        try:
            low = run_function(lowered, name, args, rt, kernels=kernels)
        except fastparse.Unsupported:
            return ()
    finally:
        rt.close()
    if low.status != "ok" or low.outcome is None:
        if low.reason.startswith("the time limit"):
            return _unknown(low.reason)
        if "steps" in low.reason:
            return Skipped(f"lowered interpreter: {low.reason}")
        if low.status == "error":  # an exception outside any op: kept only as text
            return _unknown(record_text("the lowered-IR interpreter", low.reason))
        return _unknown(f"lowered interpreter: {low.status}: {low.reason}")
    found = _mismatch(name, inp, names, src, low)
    if found is None:
        return None
    shown = found["observables"][0] if found["observables"] else None
    what = (f"{shown['observable']}: source {shown['source']}, lowered {shown['lowered']}"
            if shown else ", ".join(found["differences"]))
    return CheckResult(INV, Verdict.VIOLATED, [Violation(
        INV, f"@{name} with {inp.show(names)}, lazy schedule: {what}", found)])


def _with_outlined(kernels: dict[str, Kernel], sites: dict[str, str],
                   lowered: Any) -> dict[str, Kernel]:
    """`kernels` and, under the symbol of each lowered `gpu.launch_func` that
    carries an un-outlined launch's location, that launch's kernel.  Where
    the lowered module still holds the outlined kernel's LLVM function, its
    parameters must be the ones outlining's order gives (KernelUnsupported
    otherwise: the two sides would pass different values)."""
    if not sites:
        return kernels
    out = dict(kernels)
    funcs: dict[str, list[str]] = {}  # "module::function" -> its argument types
    for mod in lowered.walk():
        if op_name(mod) != "gpu.module":
            continue
        outer = getattr(prop(mod, "sym_name"), "data", None)
        for op in mod.walk():
            if op_name(op) in ("llvm.func", "gpu.func") and op.regions and \
                    op.regions[0].blocks:
                sym = getattr(prop(op, "sym_name"), "data", None)
                if isinstance(sym, str):
                    funcs[f"{outer}::{sym}"] = [type_name(a.type)
                                                for a in op.regions[0].blocks[0].args]
    for op in lowered.walk():
        key = op_loc(op) if op_name(op) == "gpu.launch_func" else None
        if key is None or key not in sites:
            continue
        symbol = full_symbol(op)
        kernel = kernels[sites[key]]
        got, want = funcs.get(symbol), lowered_signature(kernel)
        if got is not None and got != want:
            raise KernelUnsupported(
                f"the outlined kernel @{symbol} takes ({', '.join(got)}), not the "
                f"({', '.join(want)}) upstream's outlining order gives the gpu.launch at {key}")
        if out.get(symbol, kernel) is not kernel:
            raise KernelUnsupported(f"kernel @{symbol} names two kernels")
        out[symbol] = kernel
    return out


def _lowered_args(views: list[MemRefView | None], inp: Input) -> list[Any]:
    """As `func-to-llvm` passes them: a memref as its descriptor's fields."""
    out: list[Any] = []
    for k, v in enumerate(views):
        if v is not None:
            out += [v.ptr, v.ptr, v.offset, *v.sizes, *v.strides]
        else:
            value = inp.scalars[k]
            out.append(value if isinstance(value, float) else int(value) & ((1 << 64) - 1))
    return out


def _mismatch(name: str, inp: Input, names: list[str], src: XRun,
              low: LoweredRun) -> dict[str, Any] | None:
    assert src.outcome is not None and low.outcome is not None
    diffs, s_norm, l_norm, _ = outcome_differences(src, low)
    if not diffs:
        return None
    return {
        "function": name,
        "args": {names[k]: v for k, v in inp.scalars.items()},
        "dynamic_sizes": inp.size,
        "schedule": 0,
        "schedule_name": "lazy schedule",
        "profile": low.outcome.profile,
        "differences": diffs,
        "observables": observables(s_norm, l_norm, diffs),
        "unawaited_tokens": src.unawaited,
        "source": s_norm,
        "source_returned": [str(v) for v in src.returned],
        "source_prints": src.prints,
        "lowered": l_norm,
        "lowered_trace": [[callee, list(a)] for callee, a in low.trace],
        "lowered_errors": [[e.kind, e.call, e.loc, e.detail] for e in low.outcome.errors],
    }
