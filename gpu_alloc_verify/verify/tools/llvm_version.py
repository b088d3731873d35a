"""Which LLVM release a lowering's output links against (its runtime wrappers)."""

from __future__ import annotations

import re
from functools import cache

from gpu_alloc_verify.verify.tools.runner import tool_version


def lowering_version(spec: str) -> int | None:
    """The LLVM major version whose wrappers a lowering's output links
    against: N for `mlir-opt-N`, what a built `mlir-opt:PATH` says with
    `--version`; None for an in-process re-creation (it stands for several
    versions) or a tool that does not say."""
    m = re.fullmatch(r"mlir-opt-(\d+)", spec)
    if m:
        return int(m.group(1))
    if spec.startswith("mlir-opt:"):
        return _tool_version(spec.removeprefix("mlir-opt:"))
    return None


@cache
def _tool_version(path: str) -> int | None:
    return tool_version(path)
