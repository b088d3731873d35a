"""`oracles.source_xdsl.fast_int` makes the integer values xDSL's own
interpreter makes: same value, width truncation and type."""

import pytest
from xdsl.dialects.builtin import IndexType, IntegerType, f32
from xdsl.interpreters.builtin import scalar_attr

from gpu_alloc_verify.oracles.source_xdsl.fast_int import int_result

VALUES = (0, 1, -1, 127, 128, 255, 256, -129, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 2**64 + 5)


@pytest.mark.parametrize("t", [IndexType(), IntegerType(1), IntegerType(8), IntegerType(32),
                               IntegerType(64)], ids=str)
def test_integer_results_are_xdsls(t: object) -> None:
    for bits in (32, 64):
        for v in VALUES:
            want, got = scalar_attr(v, t, bits), int_result(v, t, bits)  # type: ignore[arg-type]
            assert (got.value.data, got.type) == (want.value.data, want.type), (v, bits)


def test_a_float_result_is_left_to_xdsl() -> None:
    assert int_result(3, f32, 64) == scalar_attr(3, f32, 64)
