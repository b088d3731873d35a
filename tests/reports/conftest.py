"""Fixtures for the report tests: realistic results files and buggy mlir-opt wrappers.

Lowered text comes from a real `mlir-opt` (19, else any found) run with the
flags the harness uses; a violation is made by a wrapper script that edits
the tool's output the way a buggy lowering would (e.g. drops every
`mgpuStreamDestroy` call).
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

GENERIC_FLAGS = ["--mlir-print-op-generic", "--mlir-print-debuginfo", "--mlir-print-local-scope"]
T0 = 1_760_000_000.0  # a fixed campaign start time


def find_tool() -> str | None:
    for name in ("mlir-opt-19", "mlir-opt-22", "mlir-opt"):
        if shutil.which(name):
            return shutil.which(name)
    return None


MLIR_OPT = find_tool()
needs_mlir_opt = pytest.mark.skipif(MLIR_OPT is None, reason="no mlir-opt-19 (apt-get install "
                                    "mlir-19-tools)")

# Straight-line: a stream from gpu.wait async, awaited at op3.
PROG_STREAM = """\
module {
  func.func @f0() {
    %t0 = gpu.wait async loc("op0")
    %m0, %t1 = gpu.alloc async [%t0] () : memref<16xf32> loc("op1")
    %t2 = gpu.dealloc async [%t1] %m0 : memref<16xf32> loc("op2")
    gpu.wait [%t2] loc("op3")
    return
  }
}
"""

# The seed bug's program: a synchronous host_shared alloc.
PROG_SHARED = """\
module {
  func.func @f0() {
    %m0 = gpu.alloc host_shared () : memref<16xf32> loc("op0")
    return
  }
}
"""

# A synchronous, not host_shared alloc: mlir-opt 19 leaves it as gpu.alloc.
PROG_SYNC = """\
module {
  func.func @f0() {
    %m0 = gpu.alloc () : memref<16xf32> loc("op0")
    return
  }
}
"""

# A branch: the host_shared alloc happens only when %cond0 is true.
PROG_BRANCH = """\
module {
  func.func @f0(%cond0: i1) {
    scf.if %cond0 {
      %m0 = gpu.alloc host_shared () : memref<8xi32> loc("op1")
    } loc("op0")
    return
  }
}
"""


# A sync host_shared alloc next to a stream that another op created.
PROG_MIXED = """\
module {
  func.func @f0() {
    %t0 = gpu.wait async loc("op0")
    %m0 = gpu.alloc host_shared () : memref<16xf32> loc("op1")
    gpu.wait [%t0] loc("op2")
    return
  }
}
"""

PROGRAMS = {"stream": PROG_STREAM, "shared": PROG_SHARED, "sync": PROG_SYNC,
            "branch": PROG_BRANCH, "mixed": PROG_MIXED}


@pytest.fixture(scope="session")
def programs() -> dict[str, str]:
    """The sample programs by name (test modules cannot import conftest)."""
    return dict(PROGRAMS)


def write_script(path: Path, body: str) -> str:
    """An executable bash wrapper; `$REAL` is the real mlir-opt."""
    path.write_text(f"#!/bin/bash\nset -o pipefail\nREAL={MLIR_OPT}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


# Wrappers take the input file first (as `mlir-opt %s ...` in a RUN line).
WRAPPERS = {
    "drop-destroy": '"$REAL" "$@" | sed "/llvm.call.*mgpuStreamDestroy/d"',
    "double-destroy": '"$REAL" "$@" | sed "/llvm.call.*mgpuStreamDestroy/p"',
    "flip-flag": '"$REAL" "$@" | sed -E "s/(constant\\(|value = )1 : i8/\\10 : i8/"',
    "crash": 'echo "PLEASE submit a bug report" >&2; kill -ABRT $$',
    # The sync alloc's mgpuMemAlloc takes the stream %0 (custom and generic form).
    "borrow-stream": '"$REAL" "$@" | sed -E -e "s/(llvm.call @mgpuMemAlloc\\(%[0-9]+, )%[0-9]+/'
                     '\\1%0/" -e "s/(\\"llvm.call\\"\\(%[0-9]+, )%[0-9]+(, %[0-9]+\\) '
                     '<\\{[^}]*mgpuMemAlloc)/\\1%0\\2/"',
    # "Fixes" for the real tool's bugs, to show a reproducer passes once fixed:
    "plain-gpu-to-llvm": 'f=$1; shift; "$REAL" "$f" "${@/#--pass-pipeline=*/'
                         '--pass-pipeline=builtin.module(gpu-to-llvm)}"',
    "shared-alloc": 'f=$1; shift; sed -E "s/gpu\\.alloc +\\(/gpu.alloc host_shared (/" "$f" '
                    '| "$REAL" "$@"',
}


@pytest.fixture(scope="session")
def wrappers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    if MLIR_OPT is None:
        pytest.skip("no mlir-opt-19 (apt-get install mlir-19-tools)")
    d = tmp_path_factory.mktemp("wrappers")
    tools = {name: write_script(d / f"{name}.sh", body) for name, body in WRAPPERS.items()}
    tools["real"] = MLIR_OPT
    return tools


def lower(tool: str, program: str, pipeline: str, tmp: Path) -> tuple[int, str]:
    """(exit status, generic lowered text) as the harness would record it."""
    src = tmp / "input.mlir"
    src.write_text(program)
    proc = subprocess.run([tool, str(src), f"--pass-pipeline=builtin.module({pipeline})",
                           *GENERIC_FLAGS], capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout


@pytest.fixture(scope="session")
def make_violation(wrappers: dict[str, str], tmp_path_factory: pytest.TempPathFactory
                   ) -> Callable[..., dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("lower")

    def make(vid: str, invariant: str, tool: str, program: str, *,
             pipeline: str = "gpu-to-llvm", marked: list[str] | None = None,
             lowering: str | None = None,
             detail: str = "", counterexample: dict[str, Any] | None = None,
             confirmation: str = "") -> dict[str, Any]:
        _, lowered = lower(wrappers[tool], program, pipeline, tmp)
        if lowering is None:
            lowering = "mlir-opt-19" if tool == "real" else f"mlir-opt:{wrappers[tool]}"
        return {"kind": "violation", "campaign": vid.rsplit("-v", 1)[0], "id": vid,
                "invariant": invariant, "lowering": lowering, "pipeline": pipeline,
                "program": program, "lowered": lowered, "detail": detail,
                "counterexample": counterexample or {"path": {}},
                "marked_calls": marked or [], "confirmation": confirmation}

    return make


INVARIANT_IDS = ["sync-alloc-no-stream", "stream-no-leak", "host-shared-flag",
                 "lowering-complete", "lowering-no-crash"]


def program_record(campaign: str, k: int, program: str, features: list[str],
                   results: dict[str, tuple[str, dict[str, str]]]) -> dict[str, Any]:
    return {"kind": "program", "campaign": campaign, "id": f"{campaign}-p{k}",
            "program": program, "features": features,
            "results": {spec: {"status": st, "verdicts": v} for spec, (st, v) in results.items()}}


def summarize(programs: list[dict[str, Any]], violations: list[dict[str, Any]]
              ) -> tuple[dict[str, Any], dict[str, int]]:
    """The campaign-end summary and coverage the lead's writer would produce."""
    by_lowering: dict[str, dict[str, dict[str, int]]] = {}
    coverage: dict[str, int] = {}
    for p in programs:
        for f in p["features"]:
            coverage[f] = coverage.get(f, 0) + 1
        for spec, r in p["results"].items():
            for inv, verdict in r["verdicts"].items():
                cell = by_lowering.setdefault(spec, {}).setdefault(
                    inv, {"holds": 0, "violated": 0, "unknown": 0, "rejected": 0,
                          "not-applicable": 0})
                cell[verdict] += 1
    by_invariant: dict[str, dict[str, int]] = {}
    for row in by_lowering.values():
        for inv, counts in row.items():
            tot = by_invariant.setdefault(inv, dict.fromkeys(counts, 0))
            for verdict, n in counts.items():
                tot[verdict] += n
    keys = ("invariant", "lowering", "program", "lowered", "detail", "counterexample")
    return ({"examples": len(programs), "lowerings": list(by_lowering),
             "by_invariant": by_invariant, "by_lowering": by_lowering,
             "violations": [{k: v[k] for k in keys} for v in violations]}, coverage)


def verdicts(default: str = "holds", **over: str) -> dict[str, str]:
    out = dict.fromkeys(INVARIANT_IDS, default)
    out.update({k.replace("_", "-"): v for k, v in over.items()})
    return out


@pytest.fixture(scope="session")
def campaigns(make_violation: Callable[..., dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Two campaigns (nightly-1 complete, nightly-2 complete and latest) plus a killed one."""
    buggy, real = "mlir-opt:buggy", "mlir-opt-19"
    out: dict[str, list[dict[str, Any]]] = {}

    # nightly-1: 3 programs, one leak found on the buggy wrapper.
    c = "nightly-1"
    v1 = make_violation(f"{c}-v0", "stream-no-leak", "drop-destroy", PROG_STREAM,
                        marked=["op0"], detail="the stream created by op0 is never destroyed",
                        counterexample={"path": {}, "source_op": "op0"}, lowering=buggy)
    progs = [
        program_record(c, 0, PROG_STREAM, ["alloc.async", "alloc.deps=1", "wait.async"],
                       {buggy: ("ok", verdicts(stream_no_leak="violated")),
                        real: ("ok", verdicts())}),
        program_record(c, 1, PROG_SHARED, ["alloc.sync", "alloc.host_shared"],
                       {buggy: ("ok", verdicts()), real: ("ok", verdicts())}),
        program_record(c, 2, PROG_SYNC, ["alloc.sync"],
                       {buggy: ("ok", verdicts(lowering_complete="violated")),
                        real: ("ok", verdicts(lowering_complete="violated"))}),
    ]
    summary, cov = summarize(progs, [v1])
    out[c] = [
        {"kind": "campaign-start", "campaign": c, "time": T0, "lowerings": [buggy, real],
         "seed": 1, "runtime": "cuda", "pipeline": "gpu-to-llvm", "config": {"max_examples": 3}},
        *progs, v1,
        {"kind": "campaign-end", "campaign": c, "time": T0 + 95, "summary": summary,
         "coverage": cov},
    ]

    # nightly-2: the latest; four violations of four invariants.
    c = "nightly-2"
    vs = [
        make_violation(f"{c}-v0", "stream-no-leak", "drop-destroy", PROG_STREAM,
                       marked=["op0"], detail="the stream created by op0 is never destroyed",
                       lowering=buggy,
                       confirmation="confirmed by execution (native run): @f0(): "
                       "stream@op0#0 is live at exit",
                       counterexample={"path": {}, "source_op": "op0",
                                       "trace_source": ["wait op0 -> s0", "alloc op1 on s0",
                                                        "dealloc op2 on s0", "sync s0"],
                                       "trace_lowered": ["mgpuStreamCreate() = s0",
                                                         "mgpuMemAlloc(64, s0, 0)",
                                                         "mgpuMemFree(m0, s0)",
                                                         "mgpuStreamSynchronize(s0)"]}),
        make_violation(f"{c}-v1", "lowering-complete", "real", PROG_SYNC, marked=["op0"],
                       detail="gpu.alloc op0 is left unconverted although the tool exited 0"),
        make_violation(f"{c}-v2", "host-shared-flag", "flip-flag", PROG_BRANCH, marked=["op1"],
                       detail="op1 is host_shared but mgpuMemAlloc gets flag 0", lowering=buggy,
                       counterexample={"path": {"f0:%cond0": True}, "source_op": "op1",
                                       "schedule": ["op0 start", "op1 start", "op1 end"]}),
        make_violation(f"{c}-v3", "sync-alloc-no-stream", "real", PROG_SHARED, marked=["op0"],
                       pipeline="func.func(gpu-async-region),gpu-to-llvm",
                       detail="synchronous gpu.alloc op0 creates a stream <script>x</script>"),
    ]
    ok_all = verdicts()
    progs = [
        program_record(c, 0, PROG_STREAM, ["alloc.async", "alloc.deps=1", "wait.async"],
                       {buggy: ("ok", verdicts(stream_no_leak="violated")),
                        real: ("ok", ok_all)}),
        program_record(c, 1, PROG_SYNC, ["alloc.sync"],
                       {buggy: ("ok", verdicts(lowering_complete="violated")),
                        real: ("ok", verdicts(lowering_complete="violated"))}),
        program_record(c, 2, PROG_BRANCH, ["alloc.sync", "alloc.host_shared", "scf.if"],
                       {buggy: ("ok", verdicts(host_shared_flag="violated")),
                        real: ("ok", verdicts(host_shared_flag="unknown"))}),
        program_record(c, 3, PROG_SHARED, ["alloc.sync", "alloc.host_shared"],
                       {buggy: ("rejected", verdicts("rejected")),
                        real: ("ok", verdicts(sync_alloc_no_stream="violated",
                                              lowering_no_crash="not-applicable"))}),
    ]
    summary, cov = summarize(progs, vs)
    out[c] = [
        {"kind": "campaign-start", "campaign": c, "time": T0 + 86400,
         "lowerings": [buggy, real], "seed": None, "runtime": "cuda",
         "pipeline": "gpu-to-llvm", "config": {"max_examples": 4}},
        *progs, *vs,
        {"kind": "campaign-end", "campaign": c, "time": T0 + 86400 + 3725, "summary": summary,
         "coverage": cov},
    ]

    # killed: no campaign-end; counts must come from its program lines.
    c = "killed-3"
    out[c] = [
        {"kind": "campaign-start", "campaign": c, "time": T0 + 2 * 86400,
         "lowerings": [real], "seed": 7, "runtime": "cuda", "pipeline": "gpu-to-llvm",
         "config": {}},
        program_record(c, 0, PROG_SYNC, ["alloc.sync"],
                       {real: ("ok", verdicts(lowering_complete="violated"))}),
        program_record(c, 1, PROG_SHARED, ["alloc.sync", "alloc.host_shared"],
                       {real: ("ok", verdicts())}),
    ]
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)
    return path


@pytest.fixture
def results_file(tmp_path: Path, campaigns: dict[str, list[dict[str, Any]]]) -> Path:
    """nightly-1 then nightly-2 (latest), a junk line, and a truncated last line."""
    records = campaigns["nightly-1"] + campaigns["nightly-2"]
    text = "".join(json.dumps(r) + "\n" for r in records)
    text += "not json at all\n"
    partial = json.dumps({"kind": "program", "campaign": "nightly-2", "id": "x"})
    return write_jsonl(tmp_path / "results.jsonl", [], text + partial[: len(partial) // 2])
