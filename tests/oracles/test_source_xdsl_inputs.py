"""The source runner's inputs: an input is run once for each thing a run
reads, the size only where a buffer argument has a dynamic dimension."""

from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, f32

from gpu_alloc_verify.oracles.differential import DEFAULT_SIZE
from gpu_alloc_verify.oracles.source_xdsl.inputs import inputs, takes_size


def test_a_dynamic_buffer_gets_every_size() -> None:
    types = [MemRefType(f32, [-1])]
    assert takes_size(types)
    assert sorted(i.size for i in inputs(types, ["memref"])) == sorted({DEFAULT_SIZE, 0, 1})


def test_static_buffers_and_no_arguments_run_once() -> None:
    for types in ([MemRefType(f32, [64])], []):
        assert not takes_size(types)
        got = inputs(types, ["memref"] * len(types))
        assert [(i.scalars, i.size) for i in got] == [({}, DEFAULT_SIZE)]


def test_integers_still_vary_without_a_dynamic_buffer() -> None:
    types = [IndexType(), MemRefType(f32, [8])]
    got = inputs(types, ["int", "memref"])
    assert {i.size for i in got} == {DEFAULT_SIZE}
    assert {i.scalars[0] for i in got} == {DEFAULT_SIZE, 0, 1, 5}  # 5: one past the unroll bound


def test_integer_boundaries_kept() -> None:
    got = inputs([IntegerType(8)], ["int"])
    assert {-1, 127, -128} <= {i.scalars[0] for i in got}
