"""CUDA C renderings of the kernel catalogue (`verify.model.kernels`) and how a
launch's arguments reach them.

`cuda_source(ref)` is one translation unit with one `extern "C" __global__`
function named like the catalogue kernel (`scale_4xf32`), with the same
semantics as its `gpu.func`: thread `(i, j)`, `i = blockIdx.x * blockDim.x +
threadIdx.x` (64-bit), `j = threadIdx.y`, touches element `[i]` (`[i, j]`)
when `i` (and `j`) is below the first buffer's sizes (unsigned compares, as
`arith.cmpi ult`).  Element types: `__half` (cuda_fp16.h), `__nv_bfloat16`
(cuda_bf16.h), `float`, `double`, unsigned 8/16/32/64-bit integers for
i8..i64 (the same bytes; arithmetic wraps, as `arith.addi` does) and `long
long` for `index` (arithmetic done unsigned).  Half and bf16 arithmetic is
`__hadd`/`__hmul`: one correctly rounded op, as the interpreter computes it.

Marshalling (`cuda_arg_values`, `cuda_args`): a memref parameter of rank r
becomes 1 + 1 + 2r scalars, the aligned pointer, the offset, the r sizes and
the r strides (elements; `long long`), as the memref descriptor holds them
minus the allocated pointer; a scalar parameter travels as the bits of its
type in an unsigned integer of its width (`unsigned int factor_bits`,
reinterpreted in the kernel with `__uint_as_float`), so no float conversion
happens on the way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_alloc_verify.oracles.floats import FLOAT_BITS, ROUND, float_bits
from gpu_alloc_verify.oracles.kernel_api import ELEM_BYTES, KernelArg, MemRefView, Param
from gpu_alloc_verify.verify.model.kernels import SHAPES
from gpu_alloc_verify.verify.model.program import KernelRef

if TYPE_CHECKING:
    import numpy

C_TYPE = {"f16": "__half", "bf16": "__nv_bfloat16", "f32": "float", "f64": "double",
          "i8": "unsigned char", "i16": "unsigned short", "i32": "unsigned int",
          "i64": "unsigned long long", "index": "long long"}
BITS_TYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
             8: "unsigned long long"}
ARG_CODE = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}  # scalars by their width in bytes
FROM_BITS = {"f16": "__ushort_as_half({})", "bf16": "__ushort_as_bfloat16({})",
             "f32": "__uint_as_float({})", "f64": "__longlong_as_double((long long){})",
             "index": "(long long){}"}
HEADERS = {"f16": "#include <cuda_fp16.h>", "bf16": "#include <cuda_bf16.h>"}

# The in-bounds body of each shape; {at[name]} is the element of buffer `name`.
BODIES = {
    "fill": ["{at[out]} = value;"],
    "scale": ["const {T} x = {at[buf]};", "{at[buf]} = {mul};"],
    "add": ["const {T} x = {at[a]};", "const {T} y = {at[b]};", "{at[out]} = {add};"],
    "copy": ["{at[dst]} = {at[src]};"],
}


def _arith(elem: str, op: str, x: str, y: str) -> str:
    """`x op y` in `elem`, wrapping like `arith.addi`/`muli` and rounding once."""
    if elem in ("f16", "bf16"):
        return f"{'__hadd' if op == '+' else '__hmul'}({x}, {y})"
    if elem in ("f32", "f64"):
        return f"{x} {op} {y}"
    return f"({C_TYPE[elem]})((unsigned long long){x} {op} (unsigned long long){y})"


def entry_name(kernel_name: str) -> str:
    """The CUDA function of a kernel named "kernels::scale_4xf32": `scale_4xf32`."""
    return kernel_name.split("::")[-1].lstrip("@")


def cuda_source(ref: KernelRef) -> str:
    """The CUDA C translation unit of catalogue kernel `ref`."""
    shape = SHAPES[ref.shape]
    elem = ref.type.elem
    if elem not in C_TYPE:
        raise ValueError(f"no CUDA type for element type {elem}")
    t = C_TYPE[elem]
    rank = len(ref.type.shape)
    dims = range(rank)
    params: list[str] = []
    for b in shape.buffers:
        params.append(f"{t}* {b}")
        params.append(f"long long {b}_off")
        params += [f"long long {b}_n{k}" for k in dims]
        params += [f"long long {b}_s{k}" for k in dims]
    if shape.scalar:
        params.append(f"{BITS_TYPE[ELEM_BYTES[elem]]} {shape.scalar}_bits")
    idx = ("i", "j")
    at = {b: f"{b}[{b}_off + " + " + ".join(f"(long long){idx[k]} * {b}_s{k}" for k in dims)
             + "]" for b in shape.buffers}
    first = shape.buffers[0]
    cond = " && ".join(f"{idx[k]} < (unsigned long long){first}_n{k}" for k in dims)
    lines = [f"// {ref.name}: verify.model.kernels shape {shape.describe()} on {ref.type}"]
    if elem in HEADERS:
        lines.append(HEADERS[elem])
    lines.append(f'extern "C" __global__ void {ref.name}(')
    lines.append("    " + ",\n    ".join(params) + ")")
    lines.append("{")
    lines.append("  const unsigned long long i = "
                 "(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;")
    if rank == 2:
        lines.append("  const unsigned long long j = threadIdx.y;")
    lines.append(f"  if ({cond}) {{")
    if shape.scalar:
        conv = FROM_BITS.get(elem, "{}").format(f"{shape.scalar}_bits")
        lines.append(f"    const {t} {shape.scalar} = {conv};")
    fmt = {"T": t, "at": at, "mul": _arith(elem, "*", "x", shape.scalar or ""),
           "add": _arith(elem, "+", "x", "y")}
    lines += ["    " + ln.format(**fmt) for ln in BODIES[ref.shape]]
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def cuda_arg_values(params: Sequence[Param], args: Sequence[KernelArg]) -> list[tuple[str, int]]:
    """The kernel's C arguments as (code, value): code u8/u16/u32/u64 (unsigned of
    that width) or i64 (`long long`), value an int in the code's range."""
    if len(params) != len(args):
        raise TypeError(f"{len(params)} parameters, {len(args)} arguments")
    out: list[tuple[str, int]] = []
    for param, arg in zip(params, args, strict=True):
        if param.kind == "memref":
            if not isinstance(arg, MemRefView):
                raise TypeError(f"a memref argument expected for {param.type}, got {arg!r}")
            out.append(("u64", arg.ptr & ((1 << 64) - 1)))
            out.append(("i64", arg.offset))
            out += [("i64", s) for s in arg.sizes]
            out += [("i64", s) for s in arg.strides]
            continue
        if isinstance(arg, MemRefView):
            raise TypeError(f"a scalar argument expected for {param.type}, got {arg!r}")
        elem = param.elem
        nbytes = ELEM_BYTES.get(elem, 8 if elem == "index" else 0)
        if elem in FLOAT_BITS:
            x = float(arg)
            bits = float_bits(ROUND[elem](x) if x == x else x, elem)
            out.append((ARG_CODE[nbytes], bits))
        elif nbytes in ARG_CODE:
            out.append((ARG_CODE[nbytes], int(arg) & ((1 << (8 * nbytes)) - 1)))
        else:
            raise TypeError(f"no CUDA marshalling for a scalar of type {elem}")
    return out


def cuda_args(params: Sequence[Param], args: Sequence[KernelArg]) -> tuple[numpy.integer, ...]:
    """`cuda_arg_values` as the NumPy scalars `cupy.RawKernel` passes by value."""
    import numpy

    types = {"u8": numpy.uint8, "u16": numpy.uint16, "u32": numpy.uint32,
             "u64": numpy.uint64, "i64": numpy.int64}
    return tuple(types[code](value) for code, value in cuda_arg_values(params, args))
