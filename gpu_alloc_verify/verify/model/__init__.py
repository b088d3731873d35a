"""The model every stage shares, at the bottom of the import graph.

- `program`: the generator's programs (`Program`, its ops and types).
- `kernels`: the closed catalogue of kernel shapes generated programs launch.
- `verdicts`: `CheckResult`, `Violation`, verdict names.
- `errors`: the root error (`GpuAllocVerifyError`) and its kinds.
- `runtime_api`: the mgpu runtime calls as the checkers see them.
- `runtime_table`: the functions upstream's runtime wrappers export, per LLVM
  version and platform (`runtime_table.json`).
- `runtime_effects`: what each of them does (the hand-kept overlay).
- `fold`: Z3 terms with literal folding done in Python.
"""
