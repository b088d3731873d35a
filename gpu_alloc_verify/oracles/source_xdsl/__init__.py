"""The source side of `differential` for any module: the MLIR the user wrote,
run on xDSL's interpreter framework (`xdsl.interpreter`) over a `Runtime`.

xDSL's own implementations run `func`, `arith`, `scf`, `cf` and `builtin`;
`host_ops` replaces its `memref` ones with buffers in runtime memory (so the
runtime checks memory kinds, bounds and races) and models the standard
print externals; `gpu_ops` runs the gpu host ops as `oracles.source_interp`
maps them onto runtime calls; kernels run their own `gpu.func` bodies through
`oracles.kernel_interp`, the same kernel objects the lowered side launches.
`check` enumerates inputs (`inputs`) and compares each run with the lowered
module's on `oracles.lowered_interp`, as `oracles.differential` does.
"""

from gpu_alloc_verify.oracles.source_xdsl.check import check_text

__all__ = ["check_text"]
