# ruff: noqa: F821, E501 -- lit defines `config` and `lit_config`; paths are as found
# lit configuration written by gpu-alloc-verify (repro/export.py).
#   lit -v docs/findings-lit                                  # on mlir-opt-19, where the bugs were found
#   lit -v docs/findings-lit --param lowering=xdsl:reference  # on a fixed lowering
#   lit -v docs/findings-lit --param lowering=/path/to/mlir-opt
import glob
import os
import re
import shutil
import sys

import lit.formats

config.name = "gpu-alloc-verify"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root
# Where this was written; another machine falls back to what it has.
PYTHON = '/work/main/.venv/bin/python' if os.access('/work/main/.venv/bin/python', os.X_OK) else sys.executable
ROOT = '/work/main'
lowering = lit_config.params.get("lowering", os.environ.get("GPU_ALLOC_VERIFY_LOWERING",
                                                            'mlir-opt-19'))
filecheck = os.environ.get("GPU_ALLOC_VERIFY_FILECHECK", '/usr/bin/FileCheck-14')
if not os.access(filecheck, os.X_OK):
    filecheck = shutil.which("FileCheck") or next(
        iter(sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"), reverse=True)), "FileCheck")


def _mlir_opt(spec):
    if spec.startswith("xdsl:"):
        if os.path.isdir(ROOT):
            config.environment["PYTHONPATH"] = ROOT
        return f"{PYTHON} -m gpu_alloc_verify.repro.lower_tool --lowering {spec}"
    m = re.fullmatch(r"mlir-opt(?:-(\d+))?", spec)
    if m:
        versions = [m.group(1)] if m.group(1) else ["22", "21", "20", "19", "18", "17", "16"]
        for v in versions:
            for cand in (shutil.which(f"mlir-opt-{v}"), f"/usr/lib/llvm-{v}/bin/mlir-opt"):
                if cand and os.access(cand, os.X_OK):
                    return cand
        found = shutil.which("mlir-opt")
        if found:
            return found
        lit_config.fatal(f"no {spec} found (apt-get install mlir-N-tools)")
    return spec.split(":", 1)[1] if spec.startswith("mlir-opt:") else spec


config.substitutions.append((r"(?<![\w./-])mlir-opt(?![\w./-])", _mlir_opt(lowering)))
config.substitutions.append((r"(?<![\w./-])FileCheck(?![\w./-])", filecheck))
