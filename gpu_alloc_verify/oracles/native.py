"""Native execution of real lowered code against a CPU shim of the mgpu runtime.

The lowered module the interpreter runs (the output of `gpu-to-llvm`) gets a
no-argument entry function that calls the program's functions with constant
arguments; the `mlir-opt` that lowered it prints it back in custom form (the
generic form of LLVM-dialect ops changes between versions, the custom form
much less), the toolchain's `mlir-opt` finishes the lowering to the LLVM
dialect, `mlir-translate --mlir-to-llvmir` checks that it translates, and
`mlir-cpu-runner` (LLVM 19) or `mlir-runner` (LLVM 20+) JIT-runs it with
`native/mgpu_shim.c`, compiled with the system C compiler, as the runtime.
The shim logs every call; `NativeRun.trace` is that log, normalized like the
interpreter's trace, so the two must be equal call for call.

Kernels: a lowered module that keeps a `gpu.module` and `gpu.launch_func`
(what `gpu.module(convert-gpu-to-nvvm),gpu-to-llvm` leaves on 19 and 22) is
finished with `KERNEL_PASSES` as well: `nvvm-attach-target` and
`gpu-module-to-binary{format=llvm}` turn the (now fully LLVM) `gpu.module`
into a `gpu.binary` holding NVVM bitcode, with no CUDA toolkit, ptxas or
GPU; the LLVM translation of `gpu.binary` / `gpu.launch_func` then emits
`mgpuModuleLoad`, `mgpuModuleGetFunction`, `mgpuLaunchKernel` and
`mgpuModuleUnload` (22: load and unload in a global constructor and
destructor; 19: around each launch).  The shim logs those calls and runs no
device code.  In the trace, each `mgpuLaunchKernel` becomes
`RawCall("launch", (gx, gy, gz, bx, by, bz, stream), "iiiiiip")` (normalized:
`("launch", (gx, gy, gz, bx, by, bz, "s0"))`, as the interpreter records a
launch); module load, function look-up and unload are setup, kept in
`NativeRun.setup` and not in the trace.  A launch without a stream operand
gets a stream from the translation itself (`mgpuStreamCreate`, launch,
`mgpuStreamSynchronize`, `mgpuStreamDestroy`): those calls are real, so they
are in the trace.  A toolchain that cannot serialize a `gpu.module` (before
LLVM 18, or built without the NVPTX target) reports status "unsupported" for
kernel programs.

The toolchain is the newest LLVM found (22 first): LLVM 19's
`convert-cf-to-llvm` cannot convert the index-typed blocks that
`convert-scf-to-cf` makes inside an `llvm.func` (and `gpu-to-llvm` has already
turned every function into one), so code with `scf.for` does not finish there.

Every tool failure is reported in `NativeRun.status` / `detail`, never raised
for one program; `NativeToolchain.find()` says what is missing.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from gpu_alloc_verify.oracles.mgpu_calls import NormalizedCall, RawCall, normalize_trace
from gpu_alloc_verify.verify.ir.text import has_kernels as text_has_kernels
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.tools.commands import (
    jit_runner_argv,
    mlir_opt_argv,
    mlir_translate_argv,
    module_pipeline,
)
from gpu_alloc_verify.verify.tools.runner import ToolResult, ToolTimedOut, find_tool, run_tool

SHIM_SOURCE = Path(__file__).parent / "native" / "mgpu_shim.c"
ENTRY = "__gav_entry"
BUFFER = "mgpuShimBuffer"  # the shim's caller-buffer allocator
FINISH_PIPELINE = (
    "builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,"
    "finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)"
)
KERNEL_PASSES = "nvvm-attach-target,gpu-module-to-binary{format=llvm}"
NEWEST_FIRST = (22, 21, 20, 19, 18, 17)
NativeStatus = Literal["ok", "pipeline-failed", "translate-failed", "run-failed", "timeout",
                       "unsupported"]
# (type, value): "i1" | "index" a constant, "ptr" a constant address,
# "buffer" a fresh zeroed buffer of `value` bytes, "alias" the argument at
# position `value` again (a descriptor's aligned pointer is its allocated one).
ArgSpec = tuple[str, int]
# Shim calls that set a kernel up: not runtime calls the interpreter traces.
SETUP_CALLS = frozenset({"mgpuModuleLoad", "mgpuModuleLoadJIT", "mgpuModuleGetFunction",
                         "mgpuModuleUnload"})
LAUNCH_KINDS = "piiiiiiipi"  # mgpuLaunchKernel(fn, gx, gy, gz, bx, by, bz, smem, stream, n)
_PROBE = """module attributes {gpu.container_module} {
  gpu.module @probe {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  llvm.func @main() {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    gpu.launch_func @probe::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64
    llvm.return
  }
}
"""


@dataclass
class NativeRun:
    status: NativeStatus
    trace: list[NormalizedCall] = field(default_factory=list)
    raw_trace: list[RawCall] = field(default_factory=list)
    detail: str = ""
    setup: list[RawCall] = field(default_factory=list)  # module load / look-up / unload


def has_kernels(lowered: str) -> bool:
    """Whether a lowered module still holds a `gpu.module` or `gpu.launch_func`."""
    return text_has_kernels(lowered)


def _tool(*names: str) -> str | None:
    # One lookup for every tool (the runner's); a name of its own here so that
    # tests can stand a missing tool in.
    return find_tool(*names)


@dataclass
class NativeToolchain:
    opt: str
    translate: str | None
    runner: str
    cc: str

    @staticmethod
    def find(version: int | None = None) -> NativeToolchain:
        """The tools of one LLVM version (default: the newest complete one)."""
        if version is None:
            for v in NEWEST_FIRST:
                if _tool(f"mlir-opt-{v}") and _tool(f"mlir-cpu-runner-{v}", f"mlir-runner-{v}"):
                    version = v
                    break
            else:
                version = 19
        opt = _tool(f"mlir-opt-{version}")
        translate = _tool(f"mlir-translate-{version}")
        runner = _tool(f"mlir-cpu-runner-{version}", f"mlir-runner-{version}")
        cc = _tool("cc", "gcc", "clang")
        missing = [n for n, p in (("mlir-opt", opt), ("mlir-cpu-runner or mlir-runner", runner),
                                  ("a C compiler", cc)) if p is None]
        if missing or opt is None or runner is None or cc is None:
            raise EnvironmentProblem(
                f"native execution needs {', '.join(missing)} (LLVM {version}); "
                f"install mlir-{version}-tools and gcc"
            )
        return NativeToolchain(opt, translate, runner, cc)


def build_shim(cc: str, directory: Path) -> Path:
    """Compile the shim into `directory`; returns the shared library's path."""
    lib = directory / "libmgpu_shim.so"
    proc = run_tool([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(SHIM_SOURCE)],
                    timeout_s=120)
    if proc.returncode != 0:
        raise EnvironmentProblem(f"cannot compile {SHIM_SOURCE.name}: {proc.stderr.strip()}")
    return lib


def entry_function(calls: Sequence[tuple[str, Sequence[ArgSpec]]]) -> str:
    """An LLVM-dialect `@__gav_entry()` calling each (function, typed args) in order."""
    lines = [f"  llvm.func @{ENTRY}() {{"]
    n = 0
    for name, args in calls:
        names: list[str] = []
        types: list[str] = []
        for type_, value in args:
            if type_ == "alias":
                names.append(names[value])
                types.append(types[value])
                continue
            llvm_type = "i1" if type_ == "i1" else "i64"
            constant = f"llvm.mlir.constant({int(value)} : {llvm_type}) : {llvm_type}"
            lines.append(f"    %a{n} = {constant}")
            if type_ == "ptr":  # a field of a lowered memref descriptor
                lines.append(f"    %p{n} = llvm.inttoptr %a{n} : i64 to !llvm.ptr")
                names.append(f"%p{n}")
                types.append("!llvm.ptr")
            elif type_ == "buffer":
                lines.append(f"    %p{n} = llvm.call @{BUFFER}(%a{n}) : (i64) -> !llvm.ptr")
                names.append(f"%p{n}")
                types.append("!llvm.ptr")
            else:
                names.append(f"%a{n}")
                types.append(llvm_type)
            n += 1
        lines.append(f"    llvm.call @{name}({', '.join(names)}) : ({', '.join(types)}) -> ()")
    lines += ["    llvm.return", "  }"]
    if any(t == "buffer" for _, args in calls for t, _ in args):
        lines.append(f"  llvm.func @{BUFFER}(i64) -> !llvm.ptr")
    return "\n".join(lines) + "\n"


def add_entry(lowered: str, calls: Sequence[tuple[str, Sequence[ArgSpec]]]) -> str:
    """Insert the entry function at the end of the lowered module's body."""
    text = lowered.rstrip()
    end = text.rfind("})")  # the generic module's closing brace
    if text.startswith('"builtin.module"') and end != -1:
        return text[:end] + entry_function(calls) + text[end:] + "\n"
    end = text.rfind("}")  # custom form: `module { ... }`
    return text[:end] + entry_function(calls) + text[end:] + "\n"


_LINE = re.compile(r"^(\w+)((?: [pi]:\S+)*)(?: = (\S+))?$")


def _pointer(text: str) -> int:
    return 0 if text in ("(nil)", "0", "0x0") else int(text, 16)


def parse_shim_trace(text: str) -> list[RawCall]:
    calls = []
    for line in text.splitlines():
        m = _LINE.match(line.strip())
        if not m:
            continue
        args, kinds = [], ""
        for item in m.group(2).split():
            kind, value = item.split(":", 1)
            kinds += kind
            args.append(_pointer(value) if kind == "p" else int(value))
        result = _pointer(m.group(3)) if m.group(3) else None
        calls.append(RawCall(m.group(1), tuple(args), kinds, result))
    return calls


def split_trace(raw: Sequence[RawCall]) -> tuple[list[RawCall], list[RawCall]]:
    """(runtime calls, setup calls): each launch as the interpreter records it."""
    calls, setup = [], []
    for call in raw:
        if call.callee in SETUP_CALLS:
            setup.append(call)
        elif call.callee == "mgpuLaunchKernel" and call.kinds == LAUNCH_KINDS:
            grid_block, stream = call.args[1:7], call.args[8]
            calls.append(RawCall("launch", (*grid_block, stream), "iiiiiip", None, call.loc))
        else:
            calls.append(call)
    return calls, setup


class NativeRunner:
    """Runs lowered modules natively; one compiled shim per runner."""

    def __init__(
        self,
        toolchain: NativeToolchain | None = None,
        reprint_opt: str | None = None,
        timeout_s: float = 60,
    ) -> None:
        """`reprint_opt`: the mlir-opt that made the lowered text (default: mlir-opt-19)."""
        self.tools = toolchain or NativeToolchain.find()
        self.reprint_opt = reprint_opt or _tool("mlir-opt-19") or self.tools.opt
        self.timeout_s = timeout_s
        self._dir = tempfile.TemporaryDirectory(prefix="gav-native-")
        self.dir = Path(self._dir.name)
        self.shim = build_shim(self.tools.cc, self.dir)
        self._count = 0
        self._kernel_problem: str | None = None
        self._kernels_probed = False

    def close(self) -> None:
        self._dir.cleanup()

    def __enter__(self) -> NativeRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, cmd: list[str], stdin: str | None = None,
             env: dict[str, str] | None = None) -> ToolResult:
        return run_tool(cmd, stdin=stdin, timeout_s=self.timeout_s, env=env)

    def kernel_problem(self) -> str | None:
        """Why this toolchain cannot run kernel programs (None: it can)."""
        if not self._kernels_probed:
            self._kernels_probed = True
            self._kernel_problem = self._probe_kernels()
        return self._kernel_problem

    def _probe_kernels(self) -> str | None:
        name = Path(self.tools.opt).name
        try:
            proc = self._run(mlir_opt_argv(self.tools.opt, pipeline=module_pipeline(KERNEL_PASSES)),
                             stdin=_PROBE)
            if proc.returncode != 0:
                first = (proc.stderr.strip().splitlines() or ["no message"])[0]
                return f"{self.tools.opt} cannot serialize a gpu.module ({KERNEL_PASSES}): {first}"
            if self.tools.translate:
                tr = self._run(mlir_translate_argv(self.tools.translate), stdin=proc.stdout)
                if tr.returncode != 0 or "mgpuLaunchKernel" not in tr.stdout:
                    first = (tr.stderr.strip().splitlines() or ["no launch call"])[0]
                    return f"{self.tools.translate} does not lower gpu.launch_func: {first}"
        except ToolTimedOut:
            return f"{name} timed out on the kernel probe"
        return None

    def run(self, lowered: str, calls: Sequence[tuple[str, Sequence[ArgSpec]]]) -> NativeRun:
        """Finish lowering `lowered` (gpu-to-llvm output), run `calls`, return the trace."""
        self._count += 1
        work = self.dir / f"run{self._count}"
        work.mkdir()
        kernels = has_kernels(lowered)
        if kernels:
            problem = self.kernel_problem()
            if problem is not None:
                return NativeRun("unsupported", detail=problem)
        try:
            return self._run_in(work, add_entry(lowered, calls), kernels)
        except ToolTimedOut as e:
            return NativeRun("timeout", detail=f"{e.argv[0]} took over {self.timeout_s}s")

    def _run_in(self, work: Path, text: str, kernels: bool = False) -> NativeRun:
        if self.reprint_opt != self.tools.opt:
            proc = self._run(mlir_opt_argv(self.reprint_opt), stdin=text)
            if proc.returncode != 0:
                return NativeRun("pipeline-failed", detail=proc.stderr.strip())
            text = proc.stdout
        pipeline = FINISH_PIPELINE
        if kernels:  # the gpu.module is all LLVM now: serialize it
            pipeline = f"{FINISH_PIPELINE[:-1]},{KERNEL_PASSES})"
        proc = self._run(mlir_opt_argv(self.tools.opt, pipeline=pipeline), stdin=text)
        if proc.returncode != 0:
            return NativeRun("pipeline-failed", detail=proc.stderr.strip())
        llvm_mlir = work / "module.mlir"
        llvm_mlir.write_text(proc.stdout)
        if self.tools.translate:
            tr = self._run(mlir_translate_argv(self.tools.translate, str(llvm_mlir),
                                               str(work / "module.ll")))
            if tr.returncode != 0:
                return NativeRun("translate-failed", detail=tr.stderr.strip())
        trace_path = work / "trace.txt"
        env = {**os.environ, "MGPU_SHIM_TRACE": str(trace_path)}
        run = self._run(jit_runner_argv(self.tools.runner, str(llvm_mlir), ENTRY,
                                        [str(self.shim)]), env=env)
        raw, setup = split_trace(
            parse_shim_trace(trace_path.read_text() if trace_path.exists() else ""))
        if run.returncode != 0:
            return NativeRun("run-failed", normalize_trace(raw), raw,
                             f"exit {run.returncode}: {run.stderr.strip()[-2000:]}", setup)
        return NativeRun("ok", normalize_trace(raw), raw, setup=setup)
