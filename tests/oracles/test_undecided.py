"""Every construct an undecided `differential` may name is one the README
lists, and the reasons the oracles give map to one each."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_alloc_verify.oracles.undecided import CONSTRUCTS, construct_of

README = (Path(__file__).parents[2] / "README.md").read_text()


def test_the_readme_lists_every_construct() -> None:
    flat = " ".join(README.split())
    for c in CONSTRUCTS:
        assert " ".join(c.readme.split()) in flat, c.key


@pytest.mark.parametrize(("reason", "key"), [
    ("@spmv with {dynamic sizes=3}: op gpu.create_csr is not modelled", "sparse"),
    ("@main with {dynamic sizes=3}: op async.execute is not modelled", "async-execute"),
    ("the source interpreter does not run the gpu.launch at f.mlir:3:3: kernel @k uses "
     "gpu.shuffle", "kernel-op"),
    ("the source calls external function(s) the interpreter does not model: @checksum",
     "external-function"),
    ("the source itself races (device-race at f.mlir:4:5) with {}: no one outcome",
     "source-race"),
    ("every input (3) is past the interpreters' budgets or breaks an op's precondition",
     "budget"),
    ("@phase with {%arg0=3.0}: op math.sincos is not modelled", "host-op"),
    ("lowered interpreter: unsupported: op llvm.intr.foo", "lowered-op"),
])
def test_reasons_name_their_construct(reason: str, key: str) -> None:
    found = construct_of(reason)
    assert found is not None and found.key == key


def test_a_reason_naming_nothing_listed_is_none() -> None:
    assert construct_of("differential oracle fault: KeyError: 3") is None
