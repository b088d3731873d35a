"""Lowerings under test (stage: lower): a program or a user's module in,
LLVM-dialect runtime calls out (`base.Lowering`, `base.LoweringOutcome`).

- `mlir_opt`: a real `mlir-opt` of any version with any pass pipeline, in
  batches, hangs bisected; `registry`: `--lowering` specs to lowerings;
  `pass_pipeline`: `--pipeline` parsed in mlir-opt's grammar; `tool_passes`:
  which passes a given mlir-opt binary has.
- `xdsl_lowering`: in-process re-creations of upstream's history on xDSL
  (`xdsl_build` builds the module, `xdsl_gpu_ops` its gpu ops, `xdsl_patterns`
  / `xdsl_convert` / `xdsl_std` / `xdsl_kernels` / `xdsl_split_api` rewrite it,
  `xdsl_print` and `xdsl_fastir` print and read it).
"""
