"""The CuPy-backed runtime on a real CUDA GPU (skipped cleanly without one)."""

from __future__ import annotations

import pytest

from gpu_alloc_verify.oracles.cupy_runtime import cupy_available


def test_cupy_available_never_raises():
    assert isinstance(cupy_available(), bool)


needs_gpu = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cupy_available(), reason="needs CuPy and a CUDA GPU"),
]


@pytest.fixture
def rt():
    pytest.importorskip("cupy")
    from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

    runtime = CupyRuntime("cuda")
    yield runtime
    runtime.close()


class TestOnGpu:
    pytestmark = needs_gpu

    def test_memset_sync_and_host_read(self, rt):
        s = rt.stream_create()
        buf = rt.mem_alloc(64, s, True)
        rt.memset32(buf, 0x01020304, 16, s)
        rt.memset16(buf + 32, 0xABCD, 16, s)
        rt.stream_synchronize(s)
        assert rt.host_read(buf, 4) == bytes.fromhex("04030201")
        assert rt.host_read(buf + 32, 2) == bytes.fromhex("cdab")
        rt.stream_destroy(s)
        out = rt.outcome()
        assert out.errors == [] and out.live_streams == []
        assert out.allocations[0].kind == "managed"
        assert out.allocations[0].contents == "04030201*8,cdabcdab*8"

    def test_device_memory_is_not_host_accessible(self, rt):
        buf = rt.mem_alloc_sync(16, False)
        assert rt.host_read(buf, 4) is None
        assert [e.kind for e in rt.errors] == ["host-access-device-memory"]
        assert rt.outcome().allocations[0].kind == "device"

    def test_events_and_memcpy_between_streams(self, rt):
        a, b = rt.stream_create(), rt.stream_create()
        src = rt.mem_alloc(16, a, False)
        dst = rt.mem_alloc(16, b, True)
        rt.memset32(src, 9, 4, a)
        e = rt.event_create()
        rt.event_record(e, a)
        rt.stream_wait_event(b, e)
        rt.memcpy(dst, src, 16, b)
        rt.event_synchronize(e)
        rt.stream_synchronize(b)
        assert rt.host_read(dst, 16) == b"\x09\x00\x00\x00" * 4
        assert rt.errors == []

    def test_misuse_is_caught_before_it_reaches_cuda(self, rt):
        s = rt.stream_create()
        rt.stream_destroy(s)
        rt.stream_synchronize(s)
        rt.stream_destroy(s)
        rt.event_synchronize(0x1234)
        assert [e.kind for e in rt.errors] == [
            "use-after-destroy", "double-destroy", "invalid-handle"]

    def test_source_outcomes_match_the_simulator(self):
        from gpu_alloc_verify.oracles.campaign import sample_programs
        from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime
        from gpu_alloc_verify.oracles.differential import default_assignments, normalize
        from gpu_alloc_verify.oracles.simulated import SimulatedRuntime
        from gpu_alloc_verify.oracles.source_interp import run_function

        for program in sample_programs(20, seed=3):
            fn = program.functions[0]
            for args in default_assignments(fn)[:2]:
                gpu = CupyRuntime()
                try:
                    real = run_function(fn, args, gpu)
                finally:
                    gpu.close()
                sim = run_function(fn, args, SimulatedRuntime("cuda"))
                assert real.outcome is not None and sim.outcome is not None
                assert normalize(real.outcome) == normalize(sim.outcome), program.to_mlir()

    def test_differential_on_the_gpu(self, mlir_opt_19):
        from gpu_alloc_verify.oracles.campaign import run_campaign, sample_programs
        from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

        progs = sample_programs(15, seed=4, joins=False)
        (row,) = run_campaign(progs, mlir_opt_19, {"cupy": lambda seed: CupyRuntime()},
                              schedules=1)
        assert row.verdicts["holds"] == len(progs), row.examples
