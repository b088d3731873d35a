"""Running a lowered function whose source is outside the executable model.

The generator's `Program` model knows each argument's type; a user's module
that uses ops outside it has none, but the source facts name every lowered
argument under the calling convention (`SourceFacts.lowered_arg_names`:
`%buf.allocated`, `%buf.aligned`, `%buf.offset`, `%buf.size0`, ...,
`%buf.stride0`, ...; a scalar keeps its own label).  That is enough to call
the lowered function: a memref gets a managed buffer large enough for any
access the lowered code makes within DEFAULT_SIZE per dimension, an `i1`
its input, an integer its input or DEFAULT_SIZE.  What needs the source
itself (its un-awaited tokens, its races) is not known on such a run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_alloc_verify.oracles.differential import DEFAULT_SIZE
from gpu_alloc_verify.oracles.runtime import Runtime

BUFFER_BYTES = 1 << 12  # per memref argument: DEFAULT_SIZE ** rank elements of any type fit


def source_groups(labels: list[str]) -> list[tuple[str, int]]:
    """(source label, rank) in order; rank -1 for a scalar."""
    out: list[tuple[str, int]] = []
    k = 0
    while k < len(labels):
        label = labels[k]
        if label.endswith(".allocated"):
            base = label[: -len(".allocated")]
            rank = sum(1 for other in labels if other.startswith(f"{base}.size"))
            out.append((base, rank))
            k += 3 + 2 * rank
        elif label.endswith(".rank"):
            out.append((label[: -len(".rank")], -2))  # unranked: not passed
            k += 2
        else:
            out.append((label, -1))
            k += 1
    return out


def lowered_arguments(labels: list[str], types: list[str], inputs: Mapping[str, Any],
                      rt: Runtime) -> list[Any] | str:
    """The lowered function's positional arguments (`types`: their printed
    types), buffers made on `rt`; or why they cannot be made."""
    args: list[Any] = []
    for base, rank in source_groups(labels):
        if rank == -2:
            return f"{base} is an unranked memref"
        if rank >= 0:
            rt.set_location(base)
            ptr = rt.host_alloc(BUFFER_BYTES, "managed")
            rt.set_location(None)
            sizes = [DEFAULT_SIZE] * rank
            strides = [DEFAULT_SIZE ** (rank - 1 - d) for d in range(rank)]
            args += [ptr, ptr, 0, *sizes, *strides]
            continue
        t = types[len(args)] if len(args) < len(types) else ""
        if t == "i1":
            args.append(bool(inputs.get(base, False)))
        elif t.startswith(("f", "bf")):
            args.append(float(inputs.get(base, DEFAULT_SIZE)))
        elif t == "index" or (t.startswith("i") and t[1:].isdigit()):
            args.append(int(inputs.get(base, DEFAULT_SIZE)))
        else:
            return f"argument {base} of type {t or '?'} is not passed"
    if len(args) != len(types):
        return f"the lowered function takes {len(types)} argument(s), the source gives {len(args)}"
    return args


def function_types(module: Any, function: str) -> list[str] | None:
    """The printed argument types of `function` in a lowered module."""
    from gpu_alloc_verify.oracles.llvm_values import prop, type_name
    from gpu_alloc_verify.verify.ir.lowered_ir import module_ops, op_name

    if not hasattr(module, "walk"):  # text nothing could read
        return None
    for op in module_ops(module):
        if op_name(op) in ("llvm.func", "func.func"):
            sym = getattr(prop(op, "sym_name"), "data", None)
            if sym == function and op.regions and op.regions[0].blocks:
                return [type_name(a.type) for a in op.regions[0].blocks[0].args]
    return None
