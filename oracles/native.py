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
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from oracles.mgpu_calls import NormalizedCall, RawCall, normalize_trace
from verify.errors import EnvironmentProblem

SHIM_SOURCE = Path(__file__).parent / "native" / "mgpu_shim.c"
ENTRY = "__gav_entry"
FINISH_PIPELINE = (
    "builtin.module(convert-scf-to-cf,convert-cf-to-llvm,convert-arith-to-llvm,"
    "finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)"
)
NEWEST_FIRST = (22, 21, 20, 19, 18, 17)
NativeStatus = Literal["ok", "pipeline-failed", "translate-failed", "run-failed", "timeout"]
ArgSpec = tuple[str, int]  # (source type "i1" | "index", value)


@dataclass
class NativeRun:
    status: NativeStatus
    trace: list[NormalizedCall] = field(default_factory=list)
    raw_trace: list[RawCall] = field(default_factory=list)
    detail: str = ""


def _tool(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
        m = re.fullmatch(r"(.+)-(\d+)", name)
        if m:
            path = f"/usr/lib/llvm-{m.group(2)}/bin/{m.group(1)}"
            if os.access(path, os.X_OK):
                return path
    return None


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
    proc = subprocess.run(
        [cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(SHIM_SOURCE)],
        capture_output=True, text=True, timeout=120,
    )
    if proc.returncode != 0:
        raise EnvironmentProblem(f"cannot compile {SHIM_SOURCE.name}: {proc.stderr.strip()}")
    return lib


def entry_function(calls: Sequence[tuple[str, Sequence[ArgSpec]]]) -> str:
    """An LLVM-dialect `@__gav_entry()` calling each (function, typed args) in order."""
    lines = [f"  llvm.func @{ENTRY}() {{"]
    n = 0
    for name, args in calls:
        names, types = [], []
        for type_, value in args:
            llvm_type = "i1" if type_ == "i1" else "i64"
            constant = f"llvm.mlir.constant({int(value)} : {llvm_type}) : {llvm_type}"
            lines.append(f"    %a{n} = {constant}")
            names.append(f"%a{n}")
            types.append(llvm_type)
            n += 1
        lines.append(f"    llvm.call @{name}({', '.join(names)}) : ({', '.join(types)}) -> ()")
    lines += ["    llvm.return", "  }"]
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

    def close(self) -> None:
        self._dir.cleanup()

    def __enter__(self) -> NativeRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, cmd: list[str], stdin: str | None = None,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                              timeout=self.timeout_s, env=env)

    def run(self, lowered: str, calls: Sequence[tuple[str, Sequence[ArgSpec]]]) -> NativeRun:
        """Finish lowering `lowered` (gpu-to-llvm output), run `calls`, return the trace."""
        self._count += 1
        work = self.dir / f"run{self._count}"
        work.mkdir()
        try:
            return self._run_in(work, add_entry(lowered, calls))
        except subprocess.TimeoutExpired as e:
            return NativeRun("timeout", detail=f"{e.cmd[0]} took over {self.timeout_s}s")

    def _run_in(self, work: Path, text: str) -> NativeRun:
        if self.reprint_opt != self.tools.opt:
            proc = self._run([self.reprint_opt], stdin=text)
            if proc.returncode != 0:
                return NativeRun("pipeline-failed", detail=proc.stderr.strip())
            text = proc.stdout
        proc = self._run([self.tools.opt, f"--pass-pipeline={FINISH_PIPELINE}"], stdin=text)
        if proc.returncode != 0:
            return NativeRun("pipeline-failed", detail=proc.stderr.strip())
        llvm_mlir = work / "module.mlir"
        llvm_mlir.write_text(proc.stdout)
        if self.tools.translate:
            tr = self._run([self.tools.translate, "--mlir-to-llvmir", str(llvm_mlir),
                            "-o", str(work / "module.ll")])
            if tr.returncode != 0:
                return NativeRun("translate-failed", detail=tr.stderr.strip())
        trace_path = work / "trace.txt"
        env = {**os.environ, "MGPU_SHIM_TRACE": str(trace_path)}
        run = self._run([self.tools.runner, str(llvm_mlir), "-e", ENTRY,
                         "-entry-point-result=void", f"--shared-libs={self.shim}"], env=env)
        raw = parse_shim_trace(trace_path.read_text() if trace_path.exists() else "")
        if run.returncode != 0:
            return NativeRun("run-failed", normalize_trace(raw), raw,
                             f"exit {run.returncode}: {run.stderr.strip()[-2000:]}")
        return NativeRun("ok", normalize_trace(raw), raw)
