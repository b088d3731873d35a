"""CupyRuntime's glue, run against a stand-in for `cupy.cuda.runtime` on host memory.

No GPU here: the fake runs every call at once on ctypes buffers, which is one
legal CUDA schedule, so outcomes must equal the simulator's.  What only a GPU
can show (real asynchrony, real managed memory) is in test_cupy.py.
"""

from __future__ import annotations

import ctypes
import sys
import types
from itertools import count

import pytest

from gpu_alloc_verify.oracles.campaign import sample_programs
from gpu_alloc_verify.oracles.differential import default_assignments, normalize
from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
from gpu_alloc_verify.oracles.source_interp import run_function


class _FakeRuntime(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("cupy.cuda.runtime")
        self.buffers: dict[int, tuple[ctypes.Array[ctypes.c_char], int]] = {}
        self.handles = count(0x1000, 0x10)
        self.calls: list[str] = []

    def getDeviceCount(self) -> int:
        return 1

    def getDevice(self) -> int:
        return 0

    def deviceGetAttribute(self, attr: int, device: int) -> int:
        return 1

    def _handle(self, name: str) -> int:
        self.calls.append(name)
        return next(self.handles)

    def streamCreateWithFlags(self, flags: int) -> int:
        assert flags == 1
        return self._handle("streamCreate")

    def eventCreateWithFlags(self, flags: int) -> int:
        assert flags == 2
        return self._handle("eventCreate")

    def _alloc(self, size: int, kind: int) -> int:
        buf = ctypes.create_string_buffer(size)
        self.buffers[ctypes.addressof(buf)] = (buf, kind)
        return ctypes.addressof(buf)

    def malloc(self, size: int) -> int:
        return self._alloc(size, 2)

    def mallocManaged(self, size: int, flags: int) -> int:
        return self._alloc(size, 3)

    def free(self, ptr: int) -> None:
        del self.buffers[ptr]

    def pointerGetAttributes(self, ptr: int) -> types.SimpleNamespace:
        return types.SimpleNamespace(type=self.buffers[ptr][1])

    def memcpyAsync(self, dst: int, src: int, n: int, kind: int, stream: int) -> None:
        ctypes.memmove(dst, src, n)

    def memcpy(self, dst: int, src: int, n: int, kind: int) -> None:
        ctypes.memmove(dst, src, n)

    def memsetAsync(self, ptr: int, value: int, n: int, stream: int) -> None:
        ctypes.memset(ptr, value, n)

    def __getattr__(self, name: str):  # streamDestroy, eventRecord, deviceSynchronize...
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args: self.calls.append(name)


def _memset_driver(width: int):
    def memset(ptr: int, value: int, n: int, stream: object) -> int:
        ctypes.memmove(ptr, value.to_bytes(width, "little") * n, width * n)
        return 0

    return memset


@pytest.fixture
def fake_cupy(monkeypatch):
    runtime = _FakeRuntime()
    cuda = types.ModuleType("cupy.cuda")
    cuda.runtime = runtime  # type: ignore[attr-defined]
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda  # type: ignore[attr-defined]
    for name, module in (("cupy", cupy), ("cupy.cuda", cuda), ("cupy.cuda.runtime", runtime)):
        monkeypatch.setitem(sys.modules, name, module)
    driver = types.SimpleNamespace(cuMemsetD32Async=_memset_driver(4),
                                   cuMemsetD16Async=_memset_driver(2))
    monkeypatch.setattr("gpu_alloc_verify.oracles.cupy_runtime._driver", lambda: driver)
    return runtime


def test_available_with_the_fake(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import cupy_available

    assert cupy_available()


def test_cupy_runtime_only_runs_the_cuda_profile(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    with pytest.raises(ValueError, match="cuda profile only"):
        CupyRuntime("sycl")


def test_source_outcomes_through_the_glue_match_the_simulator(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    programs = sample_programs(25, seed=9)
    for program in programs:
        fn = program.functions[0]
        for args in default_assignments(fn)[:2]:
            rt = CupyRuntime()
            real = run_function(fn, args, rt)
            rt.close()
            sim = run_function(fn, args, SimulatedRuntime("cuda"))
            assert real.outcome is not None and sim.outcome is not None
            assert normalize(real.outcome) == normalize(sim.outcome), program.to_mlir()
    assert fake_cupy.buffers == {}, "close() frees what the program leaked"


def test_backend_failures_are_recorded(fake_cupy):
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    def boom(*args: object) -> None:
        raise RuntimeError("cudaErrorLaunchFailure")

    fake_cupy.streamSynchronize = boom  # type: ignore[attr-defined]
    rt = CupyRuntime()
    s = rt.stream_create()
    rt.stream_synchronize(s)
    assert [(e.kind, e.call) for e in rt.errors] == [("backend-error", "stream_synchronize")]


def test_differential_campaign_through_the_glue(fake_cupy, mlir_opt_19):
    from gpu_alloc_verify.oracles.campaign import run_campaign
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    programs = sample_programs(20, seed=4, joins=False)
    (row,) = run_campaign(programs, mlir_opt_19, {"cupy": lambda seed: CupyRuntime()},
                          schedules=1)
    assert row.verdicts["holds"] == len(programs), row.examples
