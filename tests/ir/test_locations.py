"""`verify.ir.locations`, the one reader of `loc(...)`, on every form, and
the harness's tree of "not modelled" errors under its root error."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)

from gpu_alloc_verify.oracles import fast_ir, kernel_api, llvm_values, lowered_interp, source_interp
from gpu_alloc_verify.verify.ir import (
    attrs,
    fastparse,
    ir_lines,
    locations,
    lowered_ir,
    xdsl_context,
)
from gpu_alloc_verify.verify.ir.locations import id_on_line, position, source_key, strip, where
from gpu_alloc_verify.verify.model.errors import (
    GpuAllocVerifyError,
    InterpreterDeclined,
    KernelDeclined,
    NotModelled,
    ReaderDeclined,
)

# (location text, source key, position for a reason text, `where`)
FORMS = [
    ('loc("op4")', "op4", None, "op4"),
    ('loc("k.mlir":3:5)', "k.mlir:3:5", "k.mlir:3:5", "k.mlir:3:5"),
    # Nested: the name is the key, the file inside it the position.
    ('loc("op4"("k.mlir":3:5))', "op4", "k.mlir:3:5", "k.mlir:3:5"),
    ('loc("op4"("inner"))', "op4", None, "op4"),
    ('loc("op4"(fused["a", "k.mlir":1:2]))', "op4", "k.mlir:1:2", "k.mlir:1:2"),
    # Fused: the first item with a key (the old text readers said None).
    ('loc(fused["k.mlir":3:5, "op4"])', "k.mlir:3:5", "k.mlir:3:5", "k.mlir:3:5"),
    ('loc(fused["op4", "k.mlir":3:5])', "op4", "k.mlir:3:5", "k.mlir:3:5"),
    ('loc(fused<"meta">[unknown, "op4"])', "op4", None, "op4"),
    ("loc(fused[])", None, None, "?"),
    # Call site (inlined code): the callee's key, the op that was inlined;
    # the first file location is the position.
    ('loc(callsite("op4" at "k.mlir":9:1))', "op4", "k.mlir:9:1", "k.mlir:9:1"),
    ('loc(callsite("a" at callsite("b" at "c":1:2)))', "a", "c:1:2", "c:1:2"),
    ("loc(unknown)", None, None, "?"),
    ("loc(#loc3)", None, None, "?"),
    ('loc( "op4" )', "op4", None, "op4"),
    # Escapes are decoded: `\"`, `\\` and hex bytes.
    ('loc("a\\"b\\41":1:2)', 'a"bA:1:2', 'a"bA:1:2', 'a"bA:1:2'),
    # A name keeps its `/` (the batch tag is dropped on printed lines only).
    ('loc("p0/op4")', "p0/op4", None, "p0/op4"),
    ("", None, None, "?"),
    ('loc("op4") trailing', None, None, "?"),
]


@pytest.mark.parametrize(("text", "key", "pos", "shown"), FORMS)
def test_each_form_of_location_text(text: str, key: str | None, pos: str | None,
                                    shown: str) -> None:
    assert source_key(text) == key
    assert position(text) == pos
    assert where(text) == shown


def test_xdsl_locations_read_as_their_text() -> None:
    name = NameLoc(StringAttr("op4"), NoneAttr())
    file = FileLineColLoc(StringAttr("k.mlir"), IntAttr(3), IntAttr(5))
    cases = [name, file, NameLoc(StringAttr("op4"), file), CallSiteLoc(name, file),
             FusedLoc(ArrayAttr([file, name]), NoneAttr()),
             FusedLoc(ArrayAttr([name, file]), StringAttr("meta")), UnknownLoc(),
             NameLoc(StringAttr('a"b'), NoneAttr())]
    for loc in cases:
        assert source_key(loc) == source_key(str(loc)), str(loc)
        assert where(loc) == where(str(loc)), str(loc)
    assert source_key(cases[-1]) == 'a"b'
    assert source_key(None) is None and where(None) == "?"


class _Op:
    def __init__(self, location: object) -> None:
        self.location = location


def test_op_readers_use_the_one_reader() -> None:
    """The extractor's, the lowered interpreter's and the fast model's
    readings agree on every form (they disagreed on fused locations)."""
    for text, key, _, shown in FORMS:
        op = _Op(text)
        assert attrs.source_loc(op) == key
        assert attrs.where(op) == shown
        assert lowered_interp.op_loc(op) == key
        assert fast_ir.loc_name(text) == key
    assert attrs.source_loc(object()) is None and attrs.where(object()) == "?"


LINES = [
    ('  %0 = "llvm.call"() <{callee = @f}> : () -> !llvm.ptr loc("op1")', "op1"),
    ('  %0 = llvm.call @f() : () -> !llvm.ptr loc("p0/op1")', "op1"),  # batch tag dropped
    ('  llvm.call @f() : () -> () loc("k.mlir":4:7)', "k.mlir:4:7"),
    ('  llvm.call @f() : () -> () loc("dir/k.mlir":4:7)', "dir/k.mlir:4:7"),
    ('  llvm.call @f() : () -> () loc("solver/step")', "solver/step"),  # was "step"
    ('  llvm.call @f() : () -> () loc("op2"("k.mlir":1:2))', "op2"),  # was None
    ('  llvm.call @f() : () -> () loc(fused["p1/op3", "op4"])', "op3"),  # was None
    ('  llvm.call @f() : () -> () loc(callsite("op4" at "k.mlir":1:2))', "op4"),
    ('^bb0(%a: i64 loc("a0"), %b: i1 loc(unknown)):', "a0"),  # the last one with a key
    ('  "x.y"() {d = "loc(\\"q\\")"} : () -> () loc("op5")', "op5"),
    ('  "x.y"() {d = "loc(\\"q\\")"} : () -> ()', None),  # text in a string is no location
    ("  llvm.return", None),
]


@pytest.mark.parametrize(("line", "key"), LINES)
def test_the_id_on_a_printed_line(line: str, key: str | None) -> None:
    assert id_on_line(line) == key
    assert ir_lines.loc_id(line) == key


def test_a_source_op_is_found_by_its_key() -> None:
    src = ir_lines.parse_source(
        'func.func @f() {\n'
        '  %t = gpu.wait async loc("solver/op1")\n'
        '  gpu.wait [%t] loc("op2"("k.mlir":3:5))\n'
        '}\n')
    assert [op.id for op in src.ops] == ["solver/op1", "op2"]
    assert src.by_id("solver/op1") is src.ops[0]
    assert src.by_id("k.mlir:3:9") is src.ops[1]  # by its line


@pytest.mark.parametrize(("line", "stripped"), [
    ('  %0 = llvm.call @f() : () -> i64 loc("op1")', "  %0 = llvm.call @f() : () -> i64"),
    ('^bb1(%s: !llvm.ptr loc("op3")):', "^bb1(%s: !llvm.ptr):"),
    ('  "x"() : () -> () loc(fused<{a = ")"}>["z", "k.mlir":1:2])', '  "x"() : () -> ()'),
    ('  "x"() : () -> () loc(#loc3)', '  "x"() : () -> ()'),
    ('  "x"() : () -> () loc(not a location)', '  "x"() : () -> ()'),
    ('  "x"() {d = " loc(q)"} : () -> ()', '  "x"() {d = " loc(q)"} : () -> ()'),
    ("  llvm.return", "  llvm.return"),
])
def test_locations_are_stripped_from_a_line(line: str, stripped: str) -> None:
    assert strip(line) == stripped
    assert ir_lines.strip_locs(line + "\n") == stripped + "\n"


def test_split_file_key() -> None:
    assert locations.split_file_key("dir/k.mlir:3:5") == ("dir/k.mlir", 3, 5)
    assert locations.split_file_key("op3") is None


def test_one_op_name_and_one_place_for_xdsl_contexts() -> None:
    assert lowered_interp.op_name is lowered_ir.op_name
    full, source = xdsl_context.all_dialects(), xdsl_context.gpu_unregistered()
    assert full is xdsl_context.all_dialects() and source is xdsl_context.gpu_unregistered()
    assert "gpu" in full.registered_dialect_names
    assert "gpu" not in source.registered_dialect_names
    module = lowered_interp.parse_module(
        '"builtin.module"() ({\n  "gpu.wait"() : () -> () loc("op1")\n}) : () -> ()')
    op = next(iter(module.body.block.ops))
    assert lowered_ir.op_name(op) == "gpu.wait" and lowered_interp.op_loc(op) == "op1"


# -- errors -------------------------------------------------------------------

DECLINES = [ReaderDeclined, InterpreterDeclined, KernelDeclined]


def test_every_not_modelled_error_is_a_harness_error() -> None:
    for cls in [NotModelled, *DECLINES, lowered_ir.LoweredParseError]:
        assert issubclass(cls, GpuAllocVerifyError), cls
    for cls in DECLINES:
        with pytest.raises(NotModelled):
            raise cls("x")
        with pytest.raises(GpuAllocVerifyError):
            raise cls("x")


def test_the_old_names_are_the_kinds() -> None:
    assert fastparse.Unsupported is fast_ir.FastUnsupported is ReaderDeclined
    assert llvm_values.Unsupported is source_interp.Unsupported is InterpreterDeclined
    assert kernel_api.KernelUnsupported is KernelDeclined


@pytest.mark.parametrize("raised", DECLINES)
def test_a_kind_is_caught_only_as_itself_or_a_base(raised: type[NotModelled]) -> None:
    for other in DECLINES:
        if other is not raised:
            assert not issubclass(raised, other)
            with pytest.raises(raised):
                try:
                    raise raised("x")
                except other:  # never taken: the kinds are distinct
                    pass


def test_int_width_says_none_for_other_types() -> None:
    assert llvm_values.int_width("i32") == 32
    assert llvm_values.int_width("index") == 64
    assert llvm_values.int_width("!llvm.ptr") == 64
    assert llvm_values.int_width("f32") is None
    assert llvm_values.int_width("!llvm.struct<(i64)>") is None


# -- the one reader of a memref type's text (verify.ir.types) -------------------
def test_memref_text_reads_every_form() -> None:
    from gpu_alloc_verify.verify.ir.types import MemRefText, memref_text

    assert memref_text("memref<4x?xf32>") == MemRefText((4, None), "f32")
    assert memref_text("memref<4x?xf32, 1>") == MemRefText((4, None), "f32", ("1",))
    assert memref_text("memref<16xbf16>") == MemRefText((16,), "bf16")
    assert memref_text("memref<index>") == MemRefText((), "index")
    strided = memref_text("memref<4x?xf32, strided<[?, 1], offset: ?>>")
    assert strided is not None and strided.rest == ("strided<[?,1],offset:?>",)
    assert memref_text("f32") is None and memref_text("memref<4x>") is None


def test_tagging_gives_every_op_a_key_of_its_own() -> None:
    """Shared, unknown and call-site op locations are wrapped in a name that
    is unique and still reads as the position; unique ones and block
    arguments are left alone."""
    from gpu_alloc_verify.verify.ir.locations import source_key, tag_locations

    text = "\n".join([
        '^bb0(%arg0: i1 loc("k.mlir":1:1)):',
        '  %0 = "gpu.wait"() : () -> !gpu.async.token loc("k.mlir":3:5)',
        '  %1 = "gpu.wait"() : () -> !gpu.async.token loc("k.mlir":3:5)',
        '  "gpu.wait"(%1) : (!gpu.async.token) -> () loc("k.mlir":9:1)',
        '  "gpu.wait"(%0) : (!gpu.async.token) -> () loc(callsite("h" at "k.mlir":11:2))',
        '  "gpu.wait"(%0) : (!gpu.async.token) -> () loc(unknown)',
        '  "gpu.wait"(%0) : (!gpu.async.token) -> () loc("k.mlir:3:5#1")',
    ])
    lines = tag_locations(text).split("\n")
    keys = [source_key(line[line.index("loc("):]) for line in lines]
    assert lines[0].endswith('loc("k.mlir":1:1)):')  # a block argument: untouched
    assert lines[1].endswith('loc("k.mlir:3:5#2"("k.mlir":3:5))')  # #1 is taken below
    assert keys[1:] == ["k.mlir:3:5#2", "k.mlir:3:5#3", "k.mlir:9:1", "h",
                        "loc#1", "k.mlir:3:5#1"]
    assert len(set(keys[1:])) == 6


def test_tagging_drops_fused_metadata_that_no_reader_reads() -> None:
    """`fused<"m">[...]` is valid MLIR neither xDSL nor the fast reader reads:
    the metadata names no op, so it goes (a string that says so stays)."""
    from gpu_alloc_verify.verify.ir.locations import source_key, tag_locations

    line = ('  %0 = "gpu.wait"() {note = "fused<x>"} : () -> !gpu.async.token '
            'loc(fused<"meta">["k.mlir":3:5, "x"])')
    tagged = tag_locations(line)
    assert tagged.endswith('loc(fused["k.mlir":3:5, "x"])')
    assert '{note = "fused<x>"}' in tagged
    assert source_key(tagged[tagged.index("loc("):]) == "k.mlir:3:5"


def test_a_source_with_fused_metadata_is_read(tmp_path) -> None:
    from gpu_alloc_verify.verify.campaign.check_file import CHECK_OPTIONS, check_file
    from gpu_alloc_verify.verify.lowerings.registry import resolve
    from tests.conftest import need_mlir_opt

    need_mlir_opt(19)
    f = tmp_path / "meta.mlir"
    f.write_text('func.func @main() {\n'
                 '  %t0 = gpu.wait async loc(fused<"meta">["k.mlir":3:5, "x"])\n'
                 '  gpu.wait [%t0]\n  return\n}\n')
    _, row = check_file(str(f), [resolve("mlir-opt-19")],
                        CHECK_OPTIONS.replace(invariants=("stream-no-leak",)))
    r = row["mlir-opt-19"].results["stream-no-leak"]
    assert r.verdict == "holds", r.reason  # was unknown: "the source is not read"
