"""The `lit.cfg.py` written beside exported lit tests.

The config is read on whatever machine runs `lit`, maybe years after the
export, so it names no path of the machine that wrote it (no venv, no
checkout, no FileCheck binary, no staging folder): it finds `mlir-opt`,
FileCheck and the Python that runs an `xdsl:NAME` lowering when lit loads it,
from the environment, `PATH` and `/usr/lib/llvm-N/bin`.  The one value
written in is the lowering the bugs were found on (a spec such as
`mlir-opt-19`), the default of `--param lowering=`.
"""

from __future__ import annotations

from pathlib import Path

# Kept free of `{}` formatting: the one placeholder is replaced by name.
_TEMPLATE = '''\
# ruff: noqa: F821 -- lit defines `config` and `lit_config`
# lit configuration written by gpu-alloc-verify (repro/lit_config.py).  It finds
# its tools when lit runs, on the machine that runs it:
#   lit -v DIR                                    # on @DEFAULT@, where the bugs were found
#   lit -v DIR --param lowering=xdsl:reference    # on a fixed lowering
#   lit -v DIR --param lowering=/path/to/mlir-opt # on your build
# (DIR is this folder.)  The environment may name them instead:
# GPU_ALLOC_VERIFY_LOWERING (as --param lowering), GPU_ALLOC_VERIFY_FILECHECK,
# GPU_ALLOC_VERIFY_PYTHON (a Python with gpu-alloc-verify, for xdsl:NAME).
import glob
import importlib.util
import os
import re
import shlex
import shutil
import sys

import lit.formats

config.name = "gpu-alloc-verify"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root
DEFAULT = @DEFAULT_REPR@
lowering = lit_config.params.get("lowering", os.environ.get("GPU_ALLOC_VERIFY_LOWERING", DEFAULT))


def _version(path):
    # tool-N on PATH, or /usr/lib/llvm-N/bin/tool
    m = re.search(r"-(\\d+)(?:/bin/[^/]+)?$", path)
    return int(m.group(1)) if m else -1


def _installed(tool, version=None):
    """The newest `tool-N` on PATH or /usr/lib/llvm-N/bin/tool (N = version if given)."""
    found = glob.glob(f"/usr/lib/llvm-[0-9]*/bin/{tool}")
    for d in os.environ.get("PATH", "").split(os.pathsep):
        found += glob.glob(os.path.join(d or ".", f"{tool}-[0-9]*"))
    found = [p for p in found if _version(p) >= 0 and os.access(p, os.X_OK)
             and (version is None or _version(p) == version)]
    return max(found, key=_version) if found else None


def _filecheck():
    beside_python = os.path.join(os.path.dirname(sys.executable), "filecheck")
    found = (os.environ.get("GPU_ALLOC_VERIFY_FILECHECK") or shutil.which("FileCheck")
             or _installed("FileCheck") or shutil.which("filecheck")
             or (beside_python if os.access(beside_python, os.X_OK) else None))
    if not found:
        lit_config.fatal("no FileCheck found: apt-get install llvm-N-tools, or pip install "
                         "filecheck, or set GPU_ALLOC_VERIFY_FILECHECK")
    return found


def _python():
    """A Python that imports gpu_alloc_verify: the environment's, lit's own, or
    the one that runs the `gpu-alloc-verify` command on PATH."""
    if os.environ.get("GPU_ALLOC_VERIFY_PYTHON"):
        return os.environ["GPU_ALLOC_VERIFY_PYTHON"]
    if importlib.util.find_spec("gpu_alloc_verify") is not None:
        return sys.executable
    command = shutil.which("gpu-alloc-verify")
    if command:
        with open(command, "rb") as f:
            first = f.readline().decode(errors="replace")
        if first.startswith("#!") and os.access(first[2:].split()[0], os.X_OK):
            return first[2:].split()[0]
    lit_config.fatal(f"{lowering} needs gpu-alloc-verify: run lit with the Python it is "
                     "installed in, put `gpu-alloc-verify` on PATH, or set "
                     "GPU_ALLOC_VERIFY_PYTHON")


def _checkout():
    """A source checkout this folder sits in (docs/findings-lit), if any."""
    d = config.test_source_root
    while os.path.dirname(d) != d:
        d = os.path.dirname(d)
        if os.path.isfile(os.path.join(d, "gpu_alloc_verify", "__init__.py")):
            return d
    return None


def _mlir_opt(spec):
    if spec.startswith("xdsl:"):
        root = _checkout()
        if root:  # its code, as the tests in it were proven with
            config.environment["PYTHONPATH"] = root
        python = shlex.quote(_python())
        return f"{python} -m gpu_alloc_verify.repro.lower_tool --lowering {spec}"
    m = re.fullmatch(r"mlir-opt(?:-(\\d+))?", spec)
    if m:
        version = int(m.group(1)) if m.group(1) else None
        found = _installed("mlir-opt", version) or (shutil.which("mlir-opt") if version is None
                                                    else None)
        if not found:
            lit_config.fatal(f"no {spec} found: apt-get install mlir-{version or 'N'}-tools, "
                             "or --param lowering=/path/to/mlir-opt")
        return found
    path = spec.split(":", 1)[1] if spec.startswith("mlir-opt:") else spec
    if not os.access(path, os.X_OK):
        lit_config.fatal(f"{path} is not an executable mlir-opt here: "
                         "--param lowering=mlir-opt-N or a path")
    return shlex.quote(path)


config.substitutions.append((r"(?<![\\w./-])mlir-opt(?![\\w./-])", _mlir_opt(lowering)))
config.substitutions.append((r"(?<![\\w./-])FileCheck(?![\\w./-])", _filecheck()))
'''


def lit_config_text(default_lowering: str) -> str:
    """The text of `lit.cfg.py` whose default lowering is `default_lowering`
    (a spec; a bare path is taken as `mlir-opt:PATH`)."""
    default = default_lowering
    if not default.startswith(("xdsl:", "mlir-opt")):
        default = f"mlir-opt:{default}"
    return (_TEMPLATE.replace("@DEFAULT_REPR@", repr(default))
            .replace("@DEFAULT@", default))


def write_lit_config(directory: str | Path, default_lowering: str) -> Path:
    """directory/lit.cfg.py: `lit -v directory` runs the tests on `default_lowering`;
    `--param lowering=SPEC` (or GPU_ALLOC_VERIFY_LOWERING) on another."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / "lit.cfg.py"
    path.write_text(lit_config_text(default_lowering), encoding="utf-8")
    return path


__all__ = ["lit_config_text", "write_lit_config"]
