"""The source runner's reader (`oracles.source_xdsl.reader`) makes the
module xDSL's own parser makes: both print the same text, locations
included, on the corpus's files as mlir-opt prints them and on a long
function of repeated signatures."""

import shutil
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from gpu_alloc_verify.oracles.source_xdsl.reader import parse_source
from gpu_alloc_verify.verify.ir import parse as mlir
from gpu_alloc_verify.verify.source.user_file import from_text

CORPUS = Path(__file__).parents[1] / "corpus"
TOOL = shutil.which("mlir-opt-19")


def _printed(module: ModuleOp) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    return out.getvalue()


def _both(text: str) -> tuple[str, str]:
    xdsl = mlir.parse(text, side="source", reader="xdsl", opaque=False)
    return _printed(xdsl), _printed(parse_source(text))


def test_repeated_signatures_and_every_location_form() -> None:
    ops = "\n".join(
        f'    %t{i} = "gpu.memset"(%t{i - 1}, %arg0, %c) : (!gpu.async.token, memref<4xf32>, f32)'
        f' -> !gpu.async.token loc({loc})'
        for i, loc in enumerate(['"f.mlir":3:5', '"op7"', '"f.mlir":4:5', '"op8"("g.mlir":1:2)',
                                 'unknown', 'fused["f.mlir":9:1, "op9"]',
                                 '"sp ace.mlir":6:7', '"f.mlir":7:5'], start=1))
    text = f'''"builtin.module"() ({{
  "func.func"() <{{function_type = (memref<4xf32>) -> (), sym_name = "main"}}> ({{
  ^bb0(%arg0: memref<4xf32> loc("f.mlir":1:17)):
    %c = "arith.constant"() <{{value = 1.0 : f32}}> : () -> f32 loc("f.mlir":2:8)
    %t0 = "gpu.wait"() : () -> !gpu.async.token loc("f.mlir":2:9)
{ops}
    "gpu.wait"(%t8) : (!gpu.async.token) -> ()   loc("f.mlir":8:3)
    "func.return"() : () -> () loc("f.mlir":9:3)
  }}) : () -> () loc("f.mlir":1:1)
}}) : () -> () loc(unknown)
'''
    xdsl, ours = _both(text)
    assert 'loc("f.mlir":3:5)' in ours and 'loc("op8"("g.mlir":1:2))' in ours
    assert ours == xdsl


@pytest.mark.slow  # ~3 s: mlir-opt prints each file
@pytest.mark.skipif(TOOL is None, reason="mlir-opt-19 is not installed")
def test_the_corpus_reads_the_same() -> None:
    read = 0
    for path in sorted(CORPUS.glob("*.mlir"))[:40]:
        try:
            text = from_text(path.read_text(), path.name, TOOL).text
            expected = _printed(mlir.parse(text, side="source", reader="xdsl", opaque=False))
        except Exception:  # noqa: BLE001 - a file mlir-opt or xDSL rejects is not this test's
            continue
        assert _printed(parse_source(text)) == expected, path.name
        read += 1
    assert read >= 20


def test_op_keys_are_source_keys() -> None:
    """`state.op_key`'s reading of plain locations from their fields is
    `source_key`'s of their text, and every other form is left to it."""
    from gpu_alloc_verify.oracles.source_xdsl.state import op_key
    from gpu_alloc_verify.verify.ir.locations import source_key

    locs = ['"f.mlir":3:5', '"op7"', '"op8"("g.mlir":1:2)', 'unknown', 'fused["f.mlir":9:1, "op9"]',
            '"sp ace.mlir":6:7', '"q\\"uote.mlir":1:1', '"\\C3\\A9t\\C3\\A9.mlir":2:2',
            'callsite("op3" at "f.mlir":4:4)']
    ops = "\n".join(f'    "test.op"() : () -> () loc({loc})' for loc in locs)
    text = f'"builtin.module"() ({{\n{ops}\n}}) : () -> ()\n'
    module = parse_source(text)
    keys = [(op_key(op), source_key(op.location)) for op in module.ops]
    assert [k for k, _ in keys] == [k for _, k in keys]
    assert keys[0][0] == "f.mlir:3:5" and keys[1][0] == "op7" and keys[3][0] is None
