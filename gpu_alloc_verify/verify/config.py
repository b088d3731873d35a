"""Project defaults from `[tool.gpu-alloc-verify]` in pyproject.toml.

The table is looked up from the current directory upwards: the nearest
pyproject.toml that has it wins (as pytest finds `[tool.pytest.ini_options]`).
Command-line flags override every key.

    [tool.gpu-alloc-verify]
    lowerings = ["mlir-opt-19", "mlir-opt-22"]
    pipeline = "gpu.module(convert-gpu-to-nvvm),gpu-to-llvm"
    runtime = "cuda"
    max-examples = 500
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.model.errors import UsageError

TABLE = "gpu-alloc-verify"
RUNTIMES = ("cuda", "hip", "sycl")
KEYS = ("lowerings", "pipeline", "runtime", "max-examples")


@dataclass
class Config:
    path: Path | None = None  # the pyproject.toml it came from; None: no table found
    lowerings: list[str] | None = None
    pipeline: str | None = None
    runtime: str | None = None
    max_examples: int | None = None
    keys: list[str] = field(default_factory=list)  # the keys the table set


def find_pyproject(start: Path | None = None) -> tuple[Path, dict[str, Any]] | None:
    """The nearest pyproject.toml at or above `start` (default: the current
    directory) that has a `[tool.gpu-alloc-verify]` table, with that table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            with open(candidate, "rb") as f:
                data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise UsageError(f"{candidate}: not valid TOML: {e}") from None
        table = data.get("tool", {}).get(TABLE) if isinstance(data.get("tool"), dict) else None
        if table is not None:
            return candidate, table
    return None


def load_config(start: Path | None = None) -> Config:
    """The defaults of the nearest `[tool.gpu-alloc-verify]` table, checked:
    an unknown key or a value of the wrong type is a usage error naming the
    file and the key."""
    found = find_pyproject(start)
    if found is None:
        return Config()
    path, table = found
    where = f"{path} [tool.{TABLE}]"
    if not isinstance(table, dict):
        raise UsageError(f"{where}: must be a table")
    unknown = [k for k in table if k not in KEYS]
    if unknown:
        raise UsageError(f"{where}: unknown key {', '.join(repr(k) for k in unknown)}; "
                         f"valid: {', '.join(KEYS)}")
    cfg = Config(path=path, keys=list(table))
    if "lowerings" in table:
        value = table["lowerings"]
        if (not isinstance(value, list) or not value
                or not all(isinstance(s, str) and s for s in value)):
            raise UsageError(f"{where}: lowerings must be a non-empty list of lowering specs "
                             f"(strings), not {value!r}")
        cfg.lowerings = list(value)
    if "pipeline" in table:
        value = table["pipeline"]
        if not isinstance(value, str) or not value.strip():
            raise UsageError(f"{where}: pipeline must be a non-empty string, not {value!r}")
        cfg.pipeline = value
    if "runtime" in table:
        value = table["runtime"]
        if value not in RUNTIMES:
            raise UsageError(f"{where}: runtime must be one of {', '.join(RUNTIMES)}, "
                             f"not {value!r}")
        cfg.runtime = value
    if "max-examples" in table:
        value = table["max-examples"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"{where}: max-examples must be a positive integer, not {value!r}")
        cfg.max_examples = value
    return cfg
