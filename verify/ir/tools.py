"""Where the MLIR tools of each LLVM version are, and which version a binary is."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

KNOWN_VERSIONS = (22, 21, 20, 19, 18, 17, 16)


def find_mlir_opt(version: int | None = None) -> str | None:
    """Path of `mlir-opt-N` (or the newest mlir-opt when version is None)."""
    versions = KNOWN_VERSIONS if version is None else (version,)
    for v in versions:
        for candidate in (shutil.which(f"mlir-opt-{v}"), f"/usr/lib/llvm-{v}/bin/mlir-opt"):
            if candidate and os.access(candidate, os.X_OK):
                return candidate
    if version is None:
        return shutil.which("mlir-opt")
    return None


def tool_version(path: str) -> int | None:
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"LLVM version (\d+)", out)
    return int(m.group(1)) if m else None
