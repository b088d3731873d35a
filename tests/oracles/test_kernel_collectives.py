"""Threads of a block meeting at gpu.shuffle, gpu.all_reduce,
gpu.subgroup_reduce and gpu.barrier (`oracles.kernel_collectives`), checked
against values worked out by hand from the GPU dialect's definitions."""

from __future__ import annotations

import struct
import subprocess

import pytest

from gpu_alloc_verify.oracles.kernel_api import KernelUnsupported, MemRefView
from gpu_alloc_verify.oracles.kernel_interp import load_kernel
from tests.conftest import need_mlir_opt


class _Memory:
    def __init__(self, n: int) -> None:
        self.data = bytearray(n)

    def load(self, ptr: int, nbytes: int) -> bytes | None:
        return bytes(self.data[ptr:ptr + nbytes])

    def store(self, ptr: int, data: bytes) -> None:
        self.data[ptr:ptr + len(data)] = data


def _run(body: str, threads: int, elem: str = "i32") -> list[int | float]:
    text = f"""
gpu.module @m {{
  gpu.func @k(%out: memref<{threads}x{elem}>) kernel {{
    %tid = gpu.thread_id x
{body}
    gpu.return
  }}
}}
"""
    # In generic form, as `check` hands kernels to the interpreter.
    generic = subprocess.run([need_mlir_opt(19), "--mlir-print-op-generic"], input=text,
                             capture_output=True, text=True, check=True, timeout=60).stdout
    mem = _Memory(4 * threads)
    view = MemRefView(0, 0, (threads,), (1,), elem)
    load_kernel(generic, "k").run((1, 1, 1), (threads, 1, 1), [view], mem)
    fmt = "<" + ("i" if elem == "i32" else "f") * threads
    return list(struct.unpack(fmt, bytes(mem.data)))


def test_shuffle_xor_takes_the_partner_lane_within_width() -> None:
    body = """
    %v = arith.index_cast %tid : index to i32
    %off = arith.constant 1 : i32
    %w = arith.constant 6 : i32
    %s, %ok = gpu.shuffle xor %v, %off, %w : i32
    %sel = arith.select %ok, %s, %v : i32
    memref.store %sel, %out[%tid] : memref<6xi32>
"""
    assert _run(body, 6) == [1, 0, 3, 2, 5, 4]


def test_shuffle_down_past_width_keeps_own_value() -> None:
    body = """
    %v = arith.index_cast %tid : index to i32
    %off = arith.constant 2 : i32
    %w = arith.constant 4 : i32
    %s, %ok = gpu.shuffle down %v, %off, %w : i32
    %c100 = arith.constant 100 : i32
    %e = arith.extui %ok : i1 to i32
    %m = arith.muli %e, %c100 : i32
    %r = arith.addi %s, %m : i32
    memref.store %r, %out[%tid] : memref<4xi32>
"""
    # lanes 0, 1 read lanes 2, 3 (valid: +100); lanes 2, 3 are past width: own value
    assert _run(body, 4) == [102, 103, 2, 3]


def test_all_reduce_add_gives_every_thread_the_block_sum() -> None:
    body = """
    %v = arith.index_cast %tid : index to i32
    %s = gpu.all_reduce add %v uniform {} : (i32) -> (i32)
    memref.store %s, %out[%tid] : memref<5xi32>
"""
    assert _run(body, 5) == [10] * 5


def test_all_reduce_maxnumf_and_a_barrier() -> None:
    body = """
    %i = arith.index_cast %tid : index to i32
    %f = arith.sitofp %i : i32 to f32
    %neg = arith.negf %f : f32
    gpu.barrier
    %m = gpu.all_reduce maxnumf %neg uniform {} : (f32) -> (f32)
    memref.store %m, %out[%tid] : memref<3xf32>
"""
    assert _run(body, 3, "f32") == [0.0, 0.0, 0.0]


def test_a_collective_some_threads_skip_has_no_outcome() -> None:
    body = """
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      gpu.barrier
    }
"""
    with pytest.raises(KernelUnsupported, match="barrier reached by 1 of 2 threads"):
        _run(body, 2)


def test_all_reduce_by_region_combines_with_the_region() -> None:
    body = """
    %v = arith.index_cast %tid : index to i32
    %m = gpu.all_reduce %v uniform {
    ^bb0(%l : i32, %r : i32):
      %gt = arith.cmpi sgt, %l, %r : i32
      %x = arith.select %gt, %l, %r : i32
      gpu.yield %x : i32
    } : (i32) -> (i32)
    memref.store %m, %out[%tid] : memref<4xi32>
"""
    assert _run(body, 4) == [3, 3, 3, 3]


def test_subgroup_mma_computes_a_times_b_plus_c() -> None:
    from gpu_alloc_verify.oracles import kernel_mma

    a = (1.0, 2.0, 3.0, 4.0)  # [[1, 2], [3, 4]]
    b = (5.0, 6.0, 7.0, 8.0)  # [[5, 6], [7, 8]]
    c = (1.0, 1.0, 1.0, 1.0)
    assert kernel_mma.compute(a, b, c, 2, 2, 2, "f32") == (20.0, 23.0, 44.0, 51.0)
    assert kernel_mma.matrix_type('!gpu.mma_matrix<16x16xf16, "AOp">') == (16, 16, "f16")
    mem = _Memory(64)
    kernel_mma.store(mem.store, (1.5, 2.5, 3.5, 4.5), 0, 2, 2, 4, "f32")  # leading dim 4
    got = kernel_mma.load(mem.load, 0, 2, 2, 4, "f32")
    assert got == (1.5, 2.5, 3.5, 4.5)
    assert struct.unpack("<4f", bytes(mem.data[16:32]))[:2] == (3.5, 4.5)  # row 1 at 4 elems


def test_vector_transfer_pads_past_the_dimension_and_writes_in_bounds_only() -> None:
    text = """
gpu.module @m {
  gpu.func @k(%out: memref<5xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %pad = arith.constant 7.0 : f32
    %v = vector.transfer_read %out[%c3], %pad : memref<5xf32>, vector<4xf32>
    %two = arith.constant dense<2.0> : vector<4xf32>
    %w = arith.mulf %v, %two : vector<4xf32>
    %s = vector.reduction <add>, %w : vector<4xf32> into f32
    memref.store %s, %out[%c0] : memref<5xf32>
    vector.transfer_write %w, %out[%c3] : vector<4xf32>, memref<5xf32>
    gpu.return
  }
}
"""
    generic = subprocess.run([need_mlir_opt(19), "--mlir-print-op-generic"], input=text,
                             capture_output=True, text=True, check=True, timeout=60).stdout
    mem = _Memory(20)
    mem.data[12:20] = struct.pack("<2f", 1.5, 2.5)  # out[3], out[4]
    load_kernel(generic, "k").run((1, 1, 1), (1, 1, 1), [MemRefView(0, 0, (5,), (1,), "f32")],
                                  mem)
    # lanes 0, 1 read out[3], out[4]; lanes 2, 3 (past the dimension) the padding 7;
    # doubled: (3, 5, 14, 14), summed 36 into out[0]; only lanes 0, 1 are written back.
    assert struct.unpack("<5f", bytes(mem.data)) == (36.0, 0.0, 0.0, 3.0, 5.0)
