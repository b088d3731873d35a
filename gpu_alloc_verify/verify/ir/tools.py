"""Where the MLIR tools of each LLVM version are, and which version a binary
is: `verify.tools.runner` owns tool lookup and every process start; this
name stays for the stages (and tests) that have always imported it here."""

from __future__ import annotations

from gpu_alloc_verify.verify.tools.runner import KNOWN_VERSIONS, find_mlir_opt, tool_version

__all__ = ["KNOWN_VERSIONS", "find_mlir_opt", "tool_version"]
