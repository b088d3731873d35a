"""One runtime table (issues 25/26): the functions upstream's wrappers export,
per LLVM version and platform, read from `*RuntimeWrappers.cpp`
(`verify/model/runtime_table.json`), with what each does
(`runtime_effects`).  Both `runtime_api.SIGNATURES` and the oracles'
`mgpu_calls.SIGNATURES` are derived from it, and `runtime-contract` asks it
which calls a runtime's wrapper accepts."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from gpu_alloc_verify.oracles import mgpu_calls
from gpu_alloc_verify.verify import api
from gpu_alloc_verify.verify.model import runtime_api, runtime_table
from gpu_alloc_verify.verify.model.runtime_effects import EFFECTS
from gpu_alloc_verify.verify.model.verdicts import CheckResult
from gpu_alloc_verify.verify.tools.llvm_version import lowering_version
from tests.builders import check
from tests.conftest import need_mlir_opt
from tests.invariants.test_contract_handles import EVENT, EVENT_DESTROY, ONE_STREAM, _main

CONTRACT = "runtime-contract"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "read_runtime_wrappers.py"
# The calls the checkers model in detail: upstream at the 19 release.
CORE = [("mgpuStreamCreate", 0), ("mgpuStreamDestroy", 1), ("mgpuStreamSynchronize", 1),
        ("mgpuStreamWaitEvent", 2), ("mgpuEventCreate", 0), ("mgpuEventDestroy", 1),
        ("mgpuEventSynchronize", 1), ("mgpuEventRecord", 2), ("mgpuMemAlloc", 3),
        ("mgpuMemFree", 2), ("mgpuMemcpy", 4), ("mgpuMemset32", 4), ("mgpuMemset16", 4),
        ("mgpuLaunchKernel", 12), ("mgpuModuleLoad", 2)]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("read_runtime_wrappers", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _names(version: int, platform: str) -> set[str]:
    return {f.name for f in runtime_table.exported(version, platform)}


def test_the_table_parses_with_a_source_for_every_version_and_platform() -> None:
    got = {(e.version, e.platform): e for e in runtime_table.entries()}
    assert set(got) == {(v, p) for v in (16, 19, 22) for p in runtime_table.PLATFORMS}
    for e in got.values():
        if e.absent:
            assert not e.functions
            continue
        assert re.fullmatch(r"[0-9a-f]{40}", e.commit), e
        assert e.repo.endswith("llvm-project") and e.functions, e
        names = [f.name for f in e.functions]
        assert len(names) == len(set(names)) and all(n.startswith("mgpu") for n in names), e
    assert got[(16, "sycl")].absent and got[(19, "levelzero")].absent
    assert got[(22, "levelzero")].functions


def test_every_exported_function_has_its_effects_annotated() -> None:
    missing = {f.name for f in runtime_table.all_functions()} - set(EFFECTS)
    assert not missing, f"annotate in runtime_effects.EFFECTS: {sorted(missing)}"


def test_checker_signatures_are_upstream_functions_or_proposals() -> None:
    cuda = set().union(*(_names(v, "cuda") for v in runtime_table.versions()))
    for callee, arity in runtime_api.SIGNATURES:
        if callee == runtime_api.LAUNCH or (callee, arity) in runtime_api.PROPOSED_SIGNATURES:
            continue
        assert any(runtime_api.is_real(callee, arity, v, p) for v in runtime_table.versions()
                   for p in runtime_table.PLATFORMS), (callee, arity)
        if callee in cuda:
            assert callee in _names(19, "cuda"), callee
    for callee, arity in CORE:
        assert runtime_api.is_real(callee, arity, 19, "cuda"), (callee, arity)


def test_the_split_api_is_proposed_not_real() -> None:
    assert runtime_api.PROPOSED_SIGNATURES == {
        ("mgpuMemAllocAsync", 3), ("mgpuMemFreeAsync", 2), ("mgpuMemset64", 4),
        ("mgpuMemAlloc", 2), ("mgpuMemFree", 1)}
    for callee, arity in runtime_api.PROPOSED_SIGNATURES - {("mgpuMemAlloc", 2)}:
        assert not any(runtime_api.is_real(callee, arity, v, p) for v in (16, 19, 22)
                       for p in runtime_table.PLATFORMS), callee
    # mgpuMemAlloc(size, stream) is LLVM 16's own, gone by 19.
    assert runtime_api.is_real("mgpuMemAlloc", 2, 16, "cuda")
    assert not runtime_api.is_real("mgpuMemAlloc", 2, 19, "cuda")
    assert runtime_api.is_real("mgpuMemAlloc", 3, 19, "hip")


def test_llvm16_mgpu_mem_alloc_agrees_in_both_derived_tables() -> None:
    fn = next(f for f in runtime_table.exported(16, "cuda") if f.name == "mgpuMemAlloc")
    assert [p.type for p in fn.params] == ["uint64_t", "CUstream"]
    assert fn.params[1].unused  # CUstream /*stream*/: allocation ignores it
    assert runtime_api.real_roles("mgpuMemAlloc", 2, 16, "cuda") == ("size", "stream")
    assert fn.kinds == "ip" and "ip" in mgpu_calls.SIGNATURES["mgpuMemAlloc"]
    # The proposal sharing its arity: (size, host_shared), kinds "ii".
    assert runtime_api.roles("mgpuMemAlloc", 2) == ("size", "flag")
    assert set(mgpu_calls.SIGNATURES["mgpuMemAlloc"]) == {"ipi", "ip", "ii"}
    # Kinds follow roles: every stream or event role is a pointer.
    for (callee, arity), sig in runtime_api.SIGNATURES.items():
        kinds = [k for k in mgpu_calls.SIGNATURES.get(callee, ()) if len(k) == arity]
        for k in kinds:
            assert all(k[i] == "p" for i, r in enumerate(sig) if r in ("stream", "event")), \
                (callee, k, sig)


def test_the_oracles_still_refuse_calls_they_do_not_simulate() -> None:
    assert "mgpuCreateSparseEnv" in mgpu_calls.SIGNATURES
    with pytest.raises(mgpu_calls.UnknownCall, match="mgpuCreateSparseEnv"):
        mgpu_calls.dispatch(None, "mgpuCreateSparseEnv", [], "")  # type: ignore[arg-type]
    # Choosing the (only) device is a call they run, as nothing to observe.
    assert mgpu_calls.dispatch(None, "mgpuSetDefaultDevice", [0], "i") is None  # type: ignore[arg-type]


def test_hip_table_has_its_own_functions() -> None:
    hip = _names(22, "hip")
    assert {"mgpuMemGetDeviceMemRef1dFloat", "mgpuMemGetDeviceMemRef1dInt32",
            "mgpuLaunchKernelRT", "mgpuSetDefaultDevice"} <= hip
    assert {c for c, _ in CORE} <= hip | {"mgpuMemset16"}
    assert "mgpuCreateDnVec" not in hip and "mgpuMemset16" not in hip
    # HIP's mgpuMemAlloc ignores both stream and host_shared.
    alloc = next(f for f in runtime_table.exported(19, "hip") if f.name == "mgpuMemAlloc")
    assert [p.unused for p in alloc.params] == [False, True, True]
    assert not {"mgpuEventCreate", "mgpuMemcpy"} & _names(19, "sycl")


def test_sycl_22_exports_the_memcpy_of_its_pr_and_19_does_not() -> None:
    # llvm/llvm-project#141647 (LLVM 21, 22) added mgpuMemcpy(dst, src, bytes, queue).
    memcpy = next(f for f in runtime_table.exported(22, "sycl") if f.name == "mgpuMemcpy")
    assert "141647" in memcpy.added_by
    assert runtime_api.roles_of(memcpy) == ("ptr", "ptr", "size", "stream")
    assert runtime_api.knows("sycl", "mgpuMemcpy", 4, 22)
    assert not runtime_api.knows("sycl", "mgpuMemcpy", 4, 19)
    # No version read (an in-process lowering): any version's exports.
    assert runtime_api.knows("sycl", "mgpuMemcpy", 4, None)
    assert lowering_version("mlir-opt-22") == 22
    assert lowering_version("xdsl:pr69969") is None


# Real lowered IR: mlir-opt-19 lowers gpu.set_default_device and a cuSPARSE
# dense vector to mgpuSetDefaultDevice and mgpuCreateDnVec/mgpuDestroyDnVec,
# whose last argument is the stream.
SPARSE = """
func.func @main(%n: index) {
  %d = arith.constant 0 : i32
  gpu.set_default_device %d loc("op0")
  %t0 = gpu.wait async loc("op1")
  %m, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf64> loc("op2")
  %dn, %t2 = gpu.create_dn_tensor async [%t1] %m, %n : index into memref<?xf64> loc("op3")
  %t3 = gpu.destroy_dn_tensor async [%t2] %dn loc("op4")
  %t4 = gpu.dealloc async [%t3] %m : memref<?xf64> loc("op5")
  gpu.wait [%t4] loc("op6")
  return
}
"""


def _real(runtime: str) -> CheckResult:
    need_mlir_opt(19)
    j = api.judgement(SPARSE, api.lowering("mlir-opt-19"), [CONTRACT], runtime=runtime)
    return j.results[CONTRACT]


def test_set_default_device_and_cusparse_calls_are_no_violation_under_cuda() -> None:
    r = _real("cuda")
    assert r.verdict == "holds", r


def test_cusparse_calls_are_violations_where_the_wrapper_has_none() -> None:
    r = _real("hip")
    assert r.verdict == "violated"
    assert sorted(v.detail for v in r.violations) == [
        "hip runtime at LLVM 19 has no mgpuCreateDnVec taking 4 argument(s)",
        "hip runtime at LLVM 19 has no mgpuDestroyDnVec taking 2 argument(s)"]
    details = [v.detail for v in _real("sycl").violations]
    assert "sycl runtime at LLVM 19 has no mgpuSetDefaultDevice taking 1 argument(s)" in details


DN_VEC = ('    %n = llvm.mlir.constant(4 : i64) : i64 loc("op2")\n'
          '    %z = llvm.mlir.zero : !llvm.ptr loc("op2")\n'
          '    %dt = llvm.mlir.constant(1 : i32) : i32 loc("op2")\n'
          '    %v = llvm.call @mgpuCreateDnVec(%n, %z, %dt, %s) : (i64, !llvm.ptr, i32, '
          '!llvm.ptr) -> !llvm.ptr loc("op2")\n')
SPARSE_DECLS = """
  llvm.func @mgpuCreateDnVec(i64, !llvm.ptr, i32, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuDestroyDnVec(!llvm.ptr, !llvm.ptr)
  llvm.func @mgpuFooBar(!llvm.ptr)
"""


def _hand(body: str) -> CheckResult:
    return check(ONE_STREAM, _main(body) + SPARSE_DECLS)[CONTRACT]


def test_an_invented_mgpu_function_is_a_violation() -> None:
    r = _hand('    llvm.call @mgpuFooBar(%s) : (!llvm.ptr) -> () loc("op2")\n')
    assert r.verdict == "violated"
    assert r.violations[0].detail.startswith("cuda runtime has no mgpuFooBar")


def test_the_stream_of_a_sparse_call_is_still_checked_as_a_handle() -> None:
    good = DN_VEC + '    llvm.call @mgpuDestroyDnVec(%v, %s) : (!llvm.ptr, !llvm.ptr) -> () ' \
        'loc("op2")\n'
    assert _hand(good).verdict == "holds"
    bad = DN_VEC + EVENT + '    llvm.call @mgpuDestroyDnVec(%v, %e) : (!llvm.ptr, ' \
        '!llvm.ptr) -> () loc("op2")\n' + EVENT_DESTROY
    r = _hand(bad)
    assert r.verdict == "violated"
    assert any("mgpuDestroyDnVec" in v.detail and "an event where a stream is expected"
               in v.detail for v in r.violations), r


@pytest.mark.parametrize("version", [19, 22])
def test_every_callee_the_installed_lowering_declares_is_in_the_table(version: int) -> None:
    """What mlir-opt-N's gpu-to-llvm declares is exported at N, kinds alike."""
    tool = need_mlir_opt(version)
    out = subprocess.run([tool, "--gpu-to-llvm", "-"], input=SPARSE + """
func.func @more(%h: memref<4xf32>, %m: memref<4xf32>, %v: f32) {
  %t = gpu.wait async
  %t1 = gpu.memcpy async [%t] %m, %h : memref<4xf32>, memref<4xf32>
  %t2 = gpu.memset async [%t1] %m, %v : memref<4xf32>, f32
  %u = memref.cast %h : memref<4xf32> to memref<*xf32>
  gpu.host_register %u : memref<*xf32>
  gpu.wait [%t2]
  return
}
""", capture_output=True, text=True, check=True).stdout
    decls = re.findall(r"llvm\.func @(mgpu\w+)\(([^)]*)\)", out)
    assert len(decls) >= 10, out
    for name, types in decls:
        kinds = "".join("p" if "ptr" in t else "i" for t in types.split(",") if t.strip())
        fn = [f for f in runtime_table.exported(version, "cuda") if f.name == name]
        assert fn and fn[0].kinds == kinds, (name, kinds, fn)


def test_the_generator_reads_exports_guards_and_unused_names() -> None:
    fns = _script().parse_wrappers("""
// extern "C" void mgpuInAComment(int x) {}
template <typename T> void mgpuMemGetDevicePointer(T *hostPtr, T **devicePtr) {}
extern "C" void mgpuPrototype(void *p);
#ifdef MLIR_ENABLE_CUDA_CUSPARSE
extern MLIR_CUDA_WRAPPERS_EXPORT "C" void mgpuEventRecord(CUevent event,
                                                          CUstream stream) {}
#else
extern "C" MLIR_CUDA_WRAPPERS_EXPORT void *
mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/, bool isHostShared) {
  fprintf(stderr, "// not a comment");
}
#endif
extern "C" StridedMemRefType<float, 1>
mgpuMemGetDeviceMemRef1dFloat(StridedMemRefType<char, 1> *d, void ** /*extra*/) {}
""")
    assert [f["name"] for f in fns] == ["mgpuEventRecord", "mgpuMemAlloc",
                                        "mgpuMemGetDeviceMemRef1dFloat"]
    rec, alloc, get = fns
    assert rec["guard"] == "MLIR_ENABLE_CUDA_CUSPARSE" and rec["returns"] == "void"
    assert alloc["guard"] == "!(MLIR_ENABLE_CUDA_CUSPARSE)" and alloc["returns"] == "void *"
    assert alloc["params"] == [{"type": "uint64_t", "name": "sizeBytes"},
                               {"type": "CUstream", "name": "stream", "unused": True},
                               {"type": "bool", "name": "isHostShared"}]
    assert "guard" not in get and get["returns"] == "StridedMemRefType<float, 1>"
    assert get["params"] == [{"type": "StridedMemRefType<char, 1> *", "name": "d"},
                             {"type": "void **", "name": "extra", "unused": True}]


def test_the_calls_that_order_work_come_from_the_table() -> None:
    # The schedule reads these calls' handles by position: the table's roles
    # must put them there, and no other known call may order work.
    from gpu_alloc_verify.verify.model.runtime_api import (
        allocates_at_once,
        ignores_stream,
        order_kind,
        roles,
    )
    from gpu_alloc_verify.verify.model.runtime_effects import EFFECTS

    expected = {("mgpuEventRecord", 2): ("record", ("event", "stream")),
                ("mgpuStreamWaitEvent", 2): ("wait-event", ("stream", "event")),
                ("mgpuEventSynchronize", 1): ("sync-event", ("event",)),
                ("mgpuStreamSynchronize", 1): ("sync-stream", ("stream",))}
    for (name, arity), (kind, sig) in expected.items():
        assert order_kind(name, arity) == kind
        assert roles(name, arity) == sig
    ordering = {name for name, e in EFFECTS.items() if e.orders}
    assert ordering == {name for name, _ in expected}
    # ... at those arities only, in every version and platform read.
    assert {k for k in runtime_api.SIGNATURES if k[0] in ordering} == set(expected)
    assert {n for n in EFFECTS if allocates_at_once(n)} == {"mgpuMemAlloc"}
    assert {n for n in EFFECTS if ignores_stream(n)} == {"mgpuMemAlloc", "mgpuMemFree"}
