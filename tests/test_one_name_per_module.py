"""Every module of the product has exactly one importable name (issue 39).

The product's folders used to be reached through symlinks, so from the
repository root `verify.model.verdicts` and
`gpu_alloc_verify.verify.model.verdicts` were two modules with two `Verdict`
classes.  Here every module is imported, from the repository root (where a
stray top-level folder would be importable), in a fresh interpreter, and each
file must be loaded under one name only, the one its path gives.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "gpu_alloc_verify"
# Entry scripts run the CLI when imported: their name is still checked below,
# through the parent package's files, not by importing them.
_ENTRY = "__main__"

_PROBE = r"""
import importlib, json, os, sys
names = json.loads(sys.argv[1])
failed = {}
for name in names:
    try:
        importlib.import_module(name)
    except Exception as err:  # an optional extra (CuPy) may be missing: reported, not fatal
        failed[name] = f"{type(err).__name__}: {err}"
by_file = {}
for key, mod in list(sys.modules.items()):
    path = getattr(mod, "__file__", None)
    if path:
        by_file.setdefault(os.path.realpath(path), []).append(key)
tops = {t: importlib.util.find_spec(t) is not None
        for t in ("verify", "generators", "oracles", "reports", "repro")}
print(json.dumps({"failed": failed, "by_file": by_file, "tops": tops}))
"""


def module_names() -> list[str]:
    """The dotted name of every module file of the product, from its path."""
    names = []
    for path in sorted(PKG.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == _ENTRY:
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_each_module_imports_under_its_one_name() -> None:
    names = module_names()
    assert len(names) > 100, "the walk found too few modules"
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(names)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.splitlines()[-1])
    optional = {n: e for n, e in seen["failed"].items() if "cupy" in e.lower()}
    assert {n: e for n, e in seen["failed"].items() if n not in optional} == {}
    ours = {f: keys for f, keys in seen["by_file"].items()
            if Path(f).is_relative_to(PKG.resolve())}
    twice = {f: keys for f, keys in ours.items() if len(keys) > 1}
    assert twice == {}, f"a file loaded under several names: {twice}"
    assert not any(seen["tops"].values()), (
        f"a product folder is importable at the top from the root: {seen['tops']}")
    loaded = {keys[0] for keys in ours.values()}
    assert set(names) - set(optional) <= loaded


def test_the_walk_names_a_module_by_its_path() -> None:
    names = module_names()
    assert "gpu_alloc_verify.verify.model.verdicts" in names
    assert "gpu_alloc_verify.oracles" in names
    assert not any(n.split(".")[0] != "gpu_alloc_verify" for n in names)
