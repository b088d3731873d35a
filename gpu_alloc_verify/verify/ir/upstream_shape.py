"""A reduced reproducer in the shape of an upstream MLIR test case.

Upstream adds a `-split-input-file` case to the existing test file of the
pass it fixes (`mlir/test/Conversion/GPUCommon/lower-wait-to-gpu-runtime-
calls.mlir`, ...): a function named for what it tests, no `module {}`
unless something needs one, memory space 0 unless the space is the point,
that file's RUN line, and CHECK lines next to the ops they pin.  Here the
program text is brought to that shape (`shaped`), and the RUN line and
upstream file are chosen from the root cause (`upstream_file`, `run_line`).
The shaped program is judged again by the caller: a change that loses the
violation is not kept.
"""

from __future__ import annotations

import re

from gpu_alloc_verify.verify.tools.commands import lit_run_line

GPU_COMMON = "mlir/test/Conversion/GPUCommon"
# The upstream test file a case of each op's lowering belongs in.
_FILES = (
    (("gpu-async-region",), "mlir/test/Dialect/GPU/async-region.mlir"),
    (("memref-dealloc", "memref-alloc"), "mlir/test/Conversion/MemRefToLLVM/memref-to-llvm.mlir"),
    (("alloc", "dealloc"), f"{GPU_COMMON}/lower-alloc-to-gpu-runtime-calls.mlir"),
    (("memset",), f"{GPU_COMMON}/lower-memset-to-gpu-runtime-calls.mlir"),
    (("memcpy",), f"{GPU_COMMON}/lower-memcpy-to-gpu-runtime-calls.mlir"),
    (("launch",), f"{GPU_COMMON}/lower-launch-func-to-gpu-runtime-calls.mlir"),
)
WAIT_FILE = f"{GPU_COMMON}/lower-wait-to-gpu-runtime-calls.mlir"
_MODULE = re.compile(r"^module\s*\{\s*$")
_SPACE = re.compile(r"memref<([^<>]*?),\s*1\s*>")
_FUNC = re.compile(r"func\.func (?:private )?@([\w.$-]+)")
# `-split-input-file`'s marker: a line of `// -----` alone.
_SPLIT_MARKER = re.compile(r"(?m)^// -----\s*$")
SPLIT_MARKER = "// -----\n"


def upstream_file(slug: str, pass_name: str = "gpu-to-llvm") -> str:
    """The upstream test file a case for root cause `slug` belongs in."""
    words = slug.split("-")
    for keys, path in _FILES:
        if pass_name in keys or any("-".join(words[i:i + len(k.split("-"))]) == k
                                    for k in keys for i in range(len(words))):
            return path
    return WAIT_FILE


def run_line(pipeline: str) -> str:
    """The RUN line of upstream's GPUCommon tests for `pipeline`: the pass
    flag itself for gpu-to-llvm alone, else the pipeline; split input."""
    if pipeline.strip() in ("gpu-to-llvm", "builtin.module(gpu-to-llvm)"):
        return "// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s"
    return lit_run_line(pipeline).replace(" | FileCheck", " -split-input-file | FileCheck")


def split_cases(text: str) -> list[str]:
    """The cases of a `-split-input-file` file, cut at its `// -----` lines."""
    return _SPLIT_MARKER.split(text)


def function_name(slug: str) -> str:
    """`stream-destroyed-while-aliased` -> `stream_destroyed_while_aliased`."""
    return re.sub(r"[^a-z0-9]+", "_", slug.lower()).strip("_") or "case"


def shaped(program: str, slug: str, keep_space: bool) -> str:
    """`program` as an upstream case: out of a bare `module {}`, functions
    named after `slug`, memrefs in memory space 0 unless `keep_space`."""
    text = unwrap_module(program)
    names = list(dict.fromkeys(_FUNC.findall(text)))
    base = function_name(slug)
    for k, name in enumerate(names):
        new = base if len(names) == 1 else f"{base}_{k}"
        text = re.sub(rf"@{re.escape(name)}(?![\w.$-])", f"@{new}", text)
    if not keep_space:
        text = _SPACE.sub(r"memref<\1>", text)
    return text


def unwrap_module(program: str) -> str:
    """The body of a `module {` ... `}` without attributes, dedented; the text
    as it is when its module carries attributes or is not the only top op."""
    lines = program.rstrip("\n").splitlines()
    heads = [i for i, ln in enumerate(lines) if ln.strip()]
    if not heads or not _MODULE.match(lines[heads[0]].strip()) \
            or lines[heads[-1]].strip() != "}":
        return program
    body = lines[heads[0] + 1:heads[-1]]
    if any("gpu.module" in ln for ln in body):
        return program  # a kernel module needs the container attribute
    pad = min((len(ln) - len(ln.lstrip()) for ln in body if ln.strip()), default=0)
    return "\n".join(ln[pad:] for ln in body) + "\n"
