/* A CPU stand-in for MLIR's GPU runtime wrappers, for native test runs.
 *
 * Lowered code calls mgpu* entry points; this library implements them on
 * the host (streams and events are heap tokens, device memory is heap
 * memory, every operation runs at once) and appends one line per call to the
 * file named by $MGPU_SHIM_TRACE:
 *
 *     <callee> <kind>:<value> ... [= <result>]
 *
 * with kind "p" (pointer, hex) or "i" (integer, decimal), so that the harness
 * can compare the call sequence with its interpreter's.  Signatures follow
 * LLVM 17 and later: mgpuMemAlloc(size, stream, isHostShared).
 *
 * Kernels: the code the LLVM translation of `gpu.binary` / `gpu.launch_func`
 * emits (SelectObjectAttr) loads the module (mgpuModuleLoad, or
 * mgpuModuleLoadJIT for PTX; in a global constructor from LLVM 20 on, around
 * each launch before), looks the kernel up (mgpuModuleGetFunction), launches
 * it (mgpuLaunchKernel) and unloads the module (mgpuModuleUnload).  The shim
 * never runs device code (it has no device, and the binary is NVVM bitcode or
 * PTX): a launch only logs its grid, block and stream, and the kernel's
 * effects on memory do not happen.  Module and function handles are heap
 * tokens; the harness drops those setup calls from the trace it compares.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *trace_file(void) {
  static FILE *f = NULL;
  static int opened = 0;
  if (!opened) {
    const char *path = getenv("MGPU_SHIM_TRACE");
    opened = 1;
    f = path ? fopen(path, "w") : NULL;
  }
  return f;
}

#define LOG(...)                                                               \
  do {                                                                         \
    FILE *f_ = trace_file();                                                   \
    if (f_) {                                                                  \
      fprintf(f_, __VA_ARGS__);                                                \
      fflush(f_);                                                              \
    }                                                                          \
  } while (0)

static void *new_handle(void) { return malloc(16); }

void *mgpuStreamCreate(void) {
  void *s = new_handle();
  LOG("mgpuStreamCreate = %p\n", s);
  return s;
}

/* Handles are never freed: a double destroy or a use after destroy must
 * not end the run, so that the harness sees every call the code makes and
 * judges the handle's life from the trace.  No stream is ever dereferenced
 * here: the null stream and the runtimes' own small stream handles (cuda.h's
 * CU_STREAM_LEGACY 1 and CU_STREAM_PER_THREAD 2, HIP's hipStreamPerThread 2)
 * run like any stream, and so does any other integer; whether the profile
 * takes it is judged on replay (oracles/replay.py, the profile's
 * special_streams), as a real wrapper would accept or refuse it. */
void mgpuStreamDestroy(void *stream) {
  LOG("mgpuStreamDestroy p:%p\n", stream);
}

void mgpuStreamSynchronize(void *stream) {
  LOG("mgpuStreamSynchronize p:%p\n", stream);
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  LOG("mgpuStreamWaitEvent p:%p p:%p\n", stream, event);
}

void *mgpuEventCreate(void) {
  void *e = new_handle();
  LOG("mgpuEventCreate = %p\n", e);
  return e;
}

void mgpuEventDestroy(void *event) {
  LOG("mgpuEventDestroy p:%p\n", event);
}

/* A caller's buffer for a memref argument of the entry function (not a
 * runtime call: not logged). */
void *mgpuShimBuffer(uint64_t bytes) { return calloc(bytes ? bytes : 1, 1); }

void mgpuEventSynchronize(void *event) {
  LOG("mgpuEventSynchronize p:%p\n", event);
}

void mgpuEventRecord(void *event, void *stream) {
  LOG("mgpuEventRecord p:%p p:%p\n", event, stream);
}

void *mgpuMemAlloc(uint64_t size, void *stream, int8_t is_host_shared) {
  void *p = calloc(size ? size : 1, 1);
  LOG("mgpuMemAlloc i:%llu p:%p i:%d = %p\n", (unsigned long long)size, stream,
      (int)(is_host_shared & 1), p);
  return p;
}

void *mgpuMemAllocAsync(uint64_t size, void *stream, int8_t is_host_shared) {
  void *p = calloc(size ? size : 1, 1);
  LOG("mgpuMemAllocAsync i:%llu p:%p i:%d = %p\n", (unsigned long long)size,
      stream, (int)(is_host_shared & 1), p);
  return p;
}

void mgpuMemFree(void *ptr, void *stream) {
  LOG("mgpuMemFree p:%p p:%p\n", ptr, stream);
  free(ptr);
}

void mgpuMemcpy(void *dst, void *src, uint64_t bytes, void *stream) {
  LOG("mgpuMemcpy p:%p p:%p i:%llu p:%p\n", dst, src, (unsigned long long)bytes,
      stream);
  memmove(dst, src, bytes);
}

void mgpuMemset32(void *dst, uint32_t value, uint64_t count, void *stream) {
  LOG("mgpuMemset32 p:%p i:%u i:%llu p:%p\n", dst, value,
      (unsigned long long)count, stream);
  uint32_t *d = (uint32_t *)dst;
  for (uint64_t i = 0; i < count; ++i)
    d[i] = value;
}

void mgpuMemset16(void *dst, uint16_t value, uint64_t count, void *stream) {
  LOG("mgpuMemset16 p:%p i:%u i:%llu p:%p\n", dst, (unsigned)value,
      (unsigned long long)count, stream);
  uint16_t *d = (uint16_t *)dst;
  for (uint64_t i = 0; i < count; ++i)
    d[i] = value;
}

/* -- modules and kernel launches (logged, never executed) ----------------- */

void *mgpuModuleLoad(void *data, uint64_t size) {
  void *m = new_handle();
  LOG("mgpuModuleLoad p:%p i:%llu = %p\n", data, (unsigned long long)size, m);
  return m;
}

void *mgpuModuleLoadJIT(void *data, int32_t opt_level) {
  void *m = new_handle();
  LOG("mgpuModuleLoadJIT p:%p i:%d = %p\n", data, (int)opt_level, m);
  return m;
}

void mgpuModuleUnload(void *module) {
  LOG("mgpuModuleUnload p:%p\n", module);
  free(module);
}

/* One handle per look-up: the launch names its function by this handle. */
void *mgpuModuleGetFunction(void *module, const char *name) {
  (void)name;
  void *fn = new_handle();
  LOG("mgpuModuleGetFunction p:%p = %p\n", module, fn);
  return fn;
}

void mgpuLaunchKernel(void *function, intptr_t grid_x, intptr_t grid_y,
                      intptr_t grid_z, intptr_t block_x, intptr_t block_y,
                      intptr_t block_z, int32_t smem, void *stream,
                      void **params, void **extra, uint64_t param_count) {
  (void)params;
  (void)extra;
  LOG("mgpuLaunchKernel p:%p i:%lld i:%lld i:%lld i:%lld i:%lld i:%lld i:%d "
      "p:%p i:%llu\n",
      function, (long long)grid_x, (long long)grid_y, (long long)grid_z,
      (long long)block_x, (long long)block_y, (long long)block_z, (int)smem,
      stream, (unsigned long long)param_count);
}
