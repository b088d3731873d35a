"""Real-code constructs of generated programs (issue 14): kernels and launches,
buffers and scalars passed in, results, host buffers, memory spaces.

Checked against the real tools: what the printer emits parses on 16, 19 and
22; each construct is generated only for the versions that lower it (16:
`gpu-to-llvm`; 19 and 22: `gpu.module(convert-gpu-to-nvvm),gpu-to-llvm`);
the in-process lowerings treat `gpu.launch_func` as 19 and 22 do, and
`xdsl:split-api` lowers everything.
"""

from __future__ import annotations

import itertools
import re
import subprocess
from collections import Counter

import pytest
from hypothesis import HealthCheck, find, settings

from gpu_alloc_verify.generators.features import features
from gpu_alloc_verify.generators.programs import GenConfig, programs
from gpu_alloc_verify.oracles.differential import check as differential
from gpu_alloc_verify.verify.lowerings.mlir_opt import SPLIT
from gpu_alloc_verify.verify.lowerings.xdsl_convert import ConversionFailed
from gpu_alloc_verify.verify.lowerings.xdsl_lowering import resolve_xdsl
from gpu_alloc_verify.verify.model.kernels import SHAPE_NAMES, SHAPES, kernel_ref, kernel_text
from gpu_alloc_verify.verify.model.program import (
    ELEMENT_TYPES,
    Alloc,
    Arg,
    Dim,
    Function,
    HostAlloc,
    HostDealloc,
    HostLoad,
    KernelRef,
    Launch,
    Memcpy,
    MemRefType,
    Program,
    Wait,
)
from tests.conftest import collect_programs, need_mlir_opt

KERNEL_PIPELINE = "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"
_RUNTIME_OP = re.compile(r"\bgpu\.(alloc|dealloc|memcpy|memset|wait)\b")


def _opt(version: int, texts: list[str], pipeline: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    args = [need_mlir_opt(version), "--split-input-file"]
    if pipeline:
        args.append(f"--pass-pipeline=builtin.module({pipeline})")
    return subprocess.run(args, input=f"\n{SPLIT}\n".join(texts), capture_output=True,
                          text=True, timeout=600)


def _each(version: int, texts: list[str], pipeline: str) -> list[subprocess.CompletedProcess[str]]:
    """One run per text: a failure names its program."""
    return [_opt(version, [t], pipeline) for t in texts]


# -- a program with every construct -------------------------------------------------------

F32 = MemRefType((16,), "f32")
DYN = MemRefType((None,), "f32")
SPACE = MemRefType((4, 4), "i32", space=1)


def every_construct() -> Program:
    scale, add = kernel_ref("scale", F32), kernel_ref("add", DYN)
    fill = kernel_ref("fill", SPACE)
    body = (
        HostAlloc("op1", "%h1", F32),
        Wait("op2", "%t1", ()),
        Alloc("op3", "%m1", "%t2", ("%t1",), False, F32),
        Memcpy("op4", "%t3", ("%t2",), "%m1", "%h1", F32),
        Launch("op5", "%t4", ("%t3",), scale, ("%m1",), "%x0", (2, 1, 1), (8, 1, 1)),
        Memcpy("op6", "%t5", ("%t4",), "%h1", "%m1", F32),
        Dim("op7", "%d1", "%buf0", DYN, 0),
        Launch("op8", "%t6", (), add, ("%buf0", "%buf0", "%buf0"), None, ("%d1", 1, 1),
               (64, 1, 1)),
        Wait("op9", None, ("%t5", "%t6")),
        Launch("op10", None, (), fill, ("%buf1",), 3, (1, 1, 1), (4, 4, 1)),
        HostLoad("op11", "%v1", "%h1", F32),
        HostDealloc("op12", "%h1", F32),
    )
    args = (Arg("%buf0", DYN), Arg("%buf1", SPACE), Arg("%x0", "f32"))
    return Program((Function("f0", args, body, (Arg("%v1", "f32"),)),))


def test_printer_prints_every_construct_in_custom_form() -> None:
    text = every_construct().to_mlir()
    for expected in [
        "module attributes {gpu.container_module} {",
        "gpu.module @kernels {",
        "gpu.func @scale_16xf32(%buf: memref<16xf32>, %factor: f32) kernel {",
        "gpu.func @add_Dxf32(%a: memref<?xf32>, %b: memref<?xf32>, %out: memref<?xf32>) kernel",
        "gpu.func @fill_4x4xi32_s1(%out: memref<4x4xi32, 1>, %value: i32) kernel {",
        "func.func @f0(%buf0: memref<?xf32>, %buf1: memref<4x4xi32, 1>, %x0: f32) -> f32 {",
        '%h1 = memref.alloc() : memref<16xf32> loc("op1")',
        '%t4 = gpu.launch_func async [%t3] @kernels::@scale_16xf32 blocks in (%c2, %c1, %c1) '
        'threads in (%c8, %c1, %c1) args(%m1 : memref<16xf32>, %x0 : f32) loc("op5")',
        '%d1 = memref.dim %buf0, %c0 : memref<?xf32> loc("op7")',
        "blocks in (%d1, %c1, %c1) threads in (%c64, %c1, %c1)",
        "gpu.launch_func @kernels::@fill_4x4xi32_s1 blocks in (%c1, %c1, %c1) threads in "
        '(%c4, %c4, %c1) args(%buf1 : memref<4x4xi32, 1>, %cst_i32_3 : i32) loc("op10")',
        'memref.dealloc %h1 : memref<16xf32> loc("op12")',
        "return %v1 : f32",
    ]:
        assert expected in text, (expected, text)
    ids = re.findall(r'loc\("(op\d+)"\)', text)
    assert len(ids) == len(set(ids)) == 12


def test_printer_emits_only_what_is_used() -> None:
    text = every_construct().to_mlir()
    for const in re.findall(r"(%c\w+) = arith.constant", text.split("func.func")[1]):
        assert text.count(const) > 1, const  # defined and used
    no_kernels = Program((Function("f0", (), (Wait("op1", "%t1", ()),
                                              Wait("op2", None, ("%t1",)))),),)
    plain = no_kernels.to_mlir()
    assert "arith.constant" not in plain and "gpu.module" not in plain
    assert plain.startswith("module {")


@pytest.mark.parametrize("version", [16, 19, 22])
def test_every_construct_parses(version: int) -> None:
    proc = _opt(version, [every_construct().to_mlir()])
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("version", [19, 22])
def test_every_construct_lowers_on_19_and_22(version: int) -> None:
    proc = _opt(version, [every_construct().to_mlir()], KERNEL_PIPELINE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("gpu.launch_func") == 3
    assert not _RUNTIME_OP.search(proc.stdout)
    assert "llvm.call @malloc" in proc.stdout and "llvm.call @free" in proc.stdout


# -- the kernel catalogue --------------------------------------------------------------


def catalogue() -> list[Program]:
    """Every shape at every element type, rank and memory space, launched once."""
    out = []
    shapes = [(4,), (None,), (16, 4), (None, 4)]
    for shape, elem, dims, space in itertools.product(SHAPE_NAMES, (*ELEMENT_TYPES, "bf16"),
                                                      shapes, (None, 1)):
        t = MemRefType(dims, elem, space)
        kernel = kernel_ref(shape, t)
        args = tuple(Arg(f"%buf{i}", t) for i in range(len(SHAPES[shape].buffers)))
        scalar = 3 if SHAPES[shape].scalar else None
        launch = Launch("op1", "%t1", (), kernel, tuple(a.name for a in args), scalar,
                        (2, 1, 1), (4, 4 if len(dims) == 2 else 1, 1))
        body = (launch, Wait("op2", None, ("%t1",)))
        out.append(Program((Function("f0", args, body),)))
    return out


def test_catalogue_is_small_and_closed() -> None:
    assert SHAPE_NAMES == ("fill", "scale", "add", "copy")
    for shape in SHAPES.values():
        assert shape.writes, shape  # every kernel leaves something behind
        assert set(shape.reads) | set(shape.writes) <= set(range(len(shape.buffers)))
    with pytest.raises(KeyError, match="the catalogue has fill, scale, add, copy"):
        kernel_ref("transpose", F32)
    text = kernel_text(KernelRef("scale", MemRefType((None, 4), "f16")))
    assert "gpu.thread_id y" in text and "arith.mulf %x, %factor : f16" in text
    assert "scf.if %in2 {" in text and "gpu.return" in text


@pytest.mark.slow
@pytest.mark.parametrize("version", [19, 22])
def test_every_catalogue_kernel_parses_and_lowers(version: int) -> None:
    texts = [p.to_mlir() for p in catalogue()]
    assert _opt(version, texts).returncode == 0
    proc = _opt(version, texts, KERNEL_PIPELINE)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_16_parses_the_catalogue_and_rejects_kernels() -> None:
    texts = [p.to_mlir() for p in catalogue()[:8]]
    assert _opt(16, texts).returncode == 0
    for proc in _each(16, texts[:2], KERNEL_PIPELINE):
        assert proc.returncode == 1
        assert "'gpu.module' op missing gpu.binary attribute" in proc.stderr


# -- generated programs ----------------------------------------------------------------


def test_default_programs_launch_kernels() -> None:
    counts: Counter[str] = Counter()
    for p in collect_programs(150, GenConfig(max_ops=12, max_functions=2)):
        counts.update(features(p))
    assert counts["launch.async"] and counts["launch.sync"], counts
    for feature in ["kernel.fill", "kernel.scale", "kernel.add", "kernel.copy", "arg.memref",
                    "arg.memref.space", "result", "host.alloc", "memref.dim",
                    "launch.grid.value", "token.fan-in", "token.fan-out"]:
        assert counts[feature], (feature, counts)
    assert not counts["launch.deps=2"]  # joined by a gpu.wait async first


@pytest.mark.parametrize("version", [19, 22])
def test_default_programs_lower_on_19_and_22(version: int) -> None:
    texts = [p.to_mlir() for p in collect_programs(80, GenConfig(max_ops=10))]
    proc = _opt(version, texts, KERNEL_PIPELINE)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("version", [19, 22])
def test_supported_by_19_lowers_completely_on_19_and_22(version: int) -> None:
    progs = collect_programs(80, GenConfig(max_ops=10).supported_by(19))
    assert sum(bool(p.kernels) for p in progs) > 10
    proc = _opt(version, [p.to_mlir() for p in progs], KERNEL_PIPELINE)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not _RUNTIME_OP.search(proc.stdout)


def test_supported_by_16_has_no_kernels_and_lowers_completely_on_16() -> None:
    progs = collect_programs(80, GenConfig(max_ops=10).supported_by(16))
    assert not any(p.kernels for p in progs)
    assert any(isinstance(op, HostAlloc) for p in progs for op in p.walk())
    proc = _opt(16, [p.to_mlir() for p in progs], "gpu-to-llvm")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not _RUNTIME_OP.search(proc.stdout)


def test_launch_fanin_is_refused_by_19_as_a_whole() -> None:
    progs = [p for p in collect_programs(150, GenConfig(max_ops=10, launch_fanin=True))
             if any(isinstance(op, Launch) and len(op.deps) > 1 for op in p.walk())]
    assert progs
    for proc in _each(19, [p.to_mlir() for p in progs[:3]], KERNEL_PIPELINE):
        assert "failed to legalize operation 'gpu.launch_func'" in proc.stderr


def test_token_discipline_holds_for_launches() -> None:
    """A launch depends on the last token on each of its buffers, and host
    buffers never reach a kernel."""
    for p in collect_programs(150, GenConfig(max_ops=12)):
        host = {op.result for op in p.walk() if isinstance(op, HostAlloc)}
        for op in p.walk():
            if isinstance(op, Launch):
                assert not host & set(op.buffers), p.to_mlir()
                assert len(op.deps) <= 1 and (op.token or not op.deps), p.to_mlir()


def test_shrinking_deletes_launches_whole() -> None:
    def has_launch(p: Program) -> bool:
        return any(isinstance(op, Launch) for op in p.walk())

    # Derandomized: about 1 search in 30 ends at a launch on an argument
    # buffer (one op), another local minimum; a fixed seed makes it one answer.
    smallest = find(programs(GenConfig(max_ops=10)), has_launch,
                    settings=settings(database=None, max_examples=2000, derandomize=True,
                                      suppress_health_check=list(HealthCheck)))
    # A sync alloc and a sync launch of the simplest shape on it.
    assert smallest.op_count() == 2, smallest.to_mlir()
    alloc, launch = smallest.walk()
    assert isinstance(alloc, Alloc) and alloc.token is None
    assert isinstance(launch, Launch) and launch.token is None and not launch.deps
    assert launch.kernel.shape == "fill" and launch.buffers == (alloc.result,)


# -- in-process lowerings ----------------------------------------------------------------


def _launch_program(deps: int, is_async: bool) -> Program:
    t = MemRefType((16,), "f32")
    waits = tuple(Wait(f"op{i + 1}", f"%t{i + 1}", ()) for i in range(deps))
    token = "%tl" if is_async else None
    launch = Launch(f"op{deps + 1}", token, tuple(w.token or "" for w in waits),
                    kernel_ref("fill", t), ("%buf0",), 1, (1, 1, 1), (16, 1, 1))
    tail = (Wait(f"op{deps + 2}", None, (token,)),) if token else ()
    return Program((Function("f0", (Arg("%buf0", t),), (*waits, launch, *tail)),))


def _stream_of_launch(text: str) -> str | None:
    m = re.search(r'"gpu.launch_func"\((.*?)\) <\{.*operandSegmentSizes = array<i32: '
                  r'([\d, ]+)>', text)
    assert m, text
    *_, has_stream = (int(n) for n in m.group(2).split(","))
    return m.group(1).split(", ")[-1] if has_stream else None


def _creator(text: str, value: str) -> str:
    m = re.search(rf'{re.escape(value)} = "llvm.call"\(.*callee = @(\w+).*loc\("(op\d+)"\)', text)
    assert m, (value, text)
    return f"{m.group(1)}@{m.group(2)}"


@pytest.mark.parametrize(("deps", "is_async", "stream"), [
    (0, False, None), (0, True, "mgpuStreamCreate@op1"), (1, True, "mgpuStreamCreate@op1")])
def test_pr69969_lowers_launches_as_19_does(deps: int, is_async: bool,
                                            stream: str | None) -> None:
    out = resolve_xdsl("xdsl:pr69969").lower_module(_launch_program(deps, is_async))
    from gpu_alloc_verify.verify.lowerings.xdsl_print import print_generic

    text = print_generic(out)
    found = _stream_of_launch(text)
    assert (found and _creator(text, found)) == stream
    assert "gpu.async.token" not in text
    # the kernel's buffer as its descriptor's five fields, then the scalar
    assert re.search(r'"gpu.launch_func".*: \(i64, i64, i64, i64, i64, i64, !llvm.ptr, '
                     r'!llvm.ptr, i64, i64, i64, f32', text)


@pytest.mark.parametrize("deps,is_async", [(2, True), (1, False)])
def test_upstream_variants_refuse_what_19_refuses(deps: int, is_async: bool) -> None:
    program = _launch_program(deps, is_async)
    if not is_async:  # a sync launch with a dependency
        launch = program.functions[0].body[1]
        assert isinstance(launch, Launch)
        program = Program((Function("f0", program.functions[0].args,
                                    (program.functions[0].body[0],
                                     Launch(launch.id, None, ("%t1",), launch.kernel,
                                            launch.buffers, launch.scalar, launch.grid,
                                            launch.block))),),)
    with pytest.raises(ConversionFailed, match="failed to legalize operation 'gpu.launch_func'"):
        resolve_xdsl("xdsl:pr69969").lower_module(program)


def test_llvm16_refuses_kernels_as_16_does() -> None:
    with pytest.raises(ConversionFailed, match="missing gpu.binary attribute"):
        resolve_xdsl("xdsl:llvm16").lower_module(_launch_program(1, True))


def test_split_api_lowers_every_launch_on_a_stream_it_settles() -> None:
    lowering = resolve_xdsl("xdsl:split-api")
    progs = collect_programs(100, GenConfig(max_ops=12, launch_fanin=True))
    assert any(len(op.deps) > 1 for p in progs for op in p.walk() if isinstance(op, Launch))
    for program in [*progs, every_construct()]:
        out = lowering.lower(program)
        assert out.status == "ok", out.diagnostics
        assert not _RUNTIME_OP.search(out.lowered.replace('"gpu.launch_func"', ""))
        assert "gpu.async.token" not in out.lowered
        for line in out.lowered.splitlines():
            if '"gpu.launch_func"' in line:
                assert re.search(r"array<i32: [\d, ]+, 1>", line), line  # on a stream


def test_split_api_sync_launch_synchronizes_and_destroys_its_stream() -> None:
    out = resolve_xdsl("xdsl:split-api").lower(_launch_program(0, False))
    calls = re.findall(r'callee = @(\w+).*loc\("op1"\)', out.lowered)
    assert calls == ["mgpuStreamCreate", "mgpuStreamSynchronize", "mgpuStreamDestroy"]


def test_host_buffers_lower_to_malloc_and_free() -> None:
    out = resolve_xdsl("xdsl:pr69969").lower(every_construct())
    assert out.status == "ok"
    assert re.search(r'callee = @malloc.*loc\("op1"\)', out.lowered)
    assert re.search(r'callee = @free.*loc\("op12"\)', out.lowered)
    assert '"llvm.return"(%' in out.lowered  # the loaded value is returned
    proc = _opt(19, [out.lowered])
    assert proc.returncode == 0, proc.stderr


# -- reference semantics -----------------------------------------------------------------


def test_differential_runs_every_construct() -> None:
    """Kernels, memref and scalar arguments, host buffers, results: all run
    (issue 15), and the holds says what it covered."""
    lowered = resolve_xdsl("xdsl:split-api").lower(every_construct())
    result = differential(every_construct(), lowered.lowered)
    assert result.verdict == "holds", result.reason
    assert result.coverage.startswith("exhaustive")
    kernel_only = _launch_program(1, True)
    kernel_only = Program((Function("f0", (), (Alloc("op0", "%buf0", None, (), True, F32),
                                                *kernel_only.functions[0].body)),),)
    result = differential(kernel_only, resolve_xdsl("xdsl:split-api").lower(kernel_only).lowered)
    assert result.verdict == "holds", result.reason


def test_differential_never_crashes_on_generated_programs() -> None:
    lowering = resolve_xdsl("xdsl:split-api")
    verdicts: Counter[str] = Counter()
    for p in collect_programs(60, GenConfig(max_ops=10)):
        result = differential(p, lowering.lower(p).lowered)
        verdicts[result.verdict] += 1
        assert result.verdict != "violated", (p.to_mlir(), result)
    # Only a source that races itself has no one outcome to compare with.
    assert verdicts["holds"] >= 0.9 * sum(verdicts.values()), verdicts


@pytest.mark.slow
def test_kernel_bodies_as_19_converts_them_parse_with_19() -> None:
    from gpu_alloc_verify.verify.lowerings.xdsl_build import memref_type
    from gpu_alloc_verify.verify.lowerings.xdsl_kernels import kernel_module
    from gpu_alloc_verify.verify.lowerings.xdsl_print import print_generic

    kernels = tuple(p.kernels[0] for p in catalogue())
    module = kernel_module(kernels, {k: memref_type(k.type) for k in kernels}, bodies=True)
    text = print_generic(module)
    for register in ("tid.x", "tid.y", "ctaid.x", "ntid.x"):
        assert f'"nvvm.read.ptx.sreg.{register}"' in text
    wrapped = f'"builtin.module"() ({{\n{text}\n}}) {{gpu.container_module}} : () -> ()'
    proc = _opt(19, [wrapped])
    assert proc.returncode == 0, proc.stderr[-3000:]
