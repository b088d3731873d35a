"""Reference semantics and runtimes: execute source and lowered programs, compare.

- `runtime`: the `Runtime` protocol (the mgpu API), profiles, `Outcome`.
- `checked`: handle, pointer and profile checks shared by every runtime.
- `simulated`: `SimulatedRuntime`, lazy FIFO streams run by a seeded scheduler.
- `cupy_runtime`: `CupyRuntime` on a real CUDA GPU (CuPy imported lazily).
- `source_interp`: a source `Program` under the gpu dialect's semantics.
- `lowered_interp`: a lowered (LLVM-dialect) module, mgpu calls on a runtime,
  on xDSL's interpreter framework: `lowered_xdsl` holds one implementation
  per op, `mgpu_calls.RuntimeCalls` one external function per runtime call;
  `lowered_gpu`: the `gpu.launch_func` and leftover `gpu.*` ops in it.
- `kernel_api`: what a runtime needs to launch a kernel (the contract);
  `kernel_interp`: `gpu.func` bodies run over the grid; `kernel_cuda`: the
  catalogue's kernels as CUDA C for CuPy.
- `mismatch`: what differs between two outcomes, observable by observable.
- `mgpu_calls`: mgpu signatures, dispatch, traces and their normalization.
- `differential`: the `differential` invariant (source vs lowered outcomes).
- `native` (+ `native/mgpu_shim.c`): real lowered code JIT-run on a CPU shim.
- `campaign`: programs upstream lowers fully, and campaigns over runtimes.
"""
