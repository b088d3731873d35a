"""The patches and test cases of issue 42 are well formed (fast, default lane).

Each defect's case is in upstream's shape and fails on the stock mlir-opt at
its pinned line; each patch applies cleanly to upstream's cached source.
The full build-and-prove run is test_prove_patches.py (nightly).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.patches.conftest import SCRIPT

PATCHES = SCRIPT.parents[1] / "patches"
UPSTREAM_RUN = "// RUN: mlir-opt %s --gpu-to-llvm -split-input-file | FileCheck %s"


def _slugs() -> list[str]:
    import json

    return [d["slug"] for d in json.loads((PATCHES / "defects.json").read_text())]


def test_at_least_five_defects_each_with_case_and_patch(prove_patches: ModuleType) -> None:
    defects = prove_patches.load_defects()
    assert len(defects) >= 5
    for defect in defects:
        assert defect.case.is_file() and defect.reproducer.is_file(), defect.slug
        assert defect.patch(19).is_file(), defect.slug
        assert defect.upstream_test.startswith("mlir/test/")
        assert defect.source.startswith("mlir/lib/")


def test_every_patch_and_case_belongs_to_a_defect() -> None:
    slugs = set(_slugs())
    files = [*PATCHES.glob("*/*.patch"), *PATCHES.glob("tests/*.mlir"),
             *PATCHES.glob("reproducers/*.mlir")]
    assert files
    assert {f.stem for f in files} <= slugs


@pytest.mark.parametrize("slug", _slugs())
def test_case_is_in_upstream_shape(prove_patches: ModuleType, slug: str) -> None:
    defect = next(d for d in prove_patches.load_defects() if d.slug == slug)
    text = defect.case.read_text()
    lines = text.splitlines()
    assert lines[0] == UPSTREAM_RUN
    assert "module {" not in text and "builtin.module" not in text
    names = re.findall(r"func\.func @(\w+)", text)
    assert names and all(not re.fullmatch(r"f\d*", n) and "_" in n for n in names)
    for name in names:
        assert f"// CHECK-LABEL: llvm.func @{name}" in text
    # Memory space 0 unless the space is the point of the case.
    assert ("memref<?xf32, 1>" in text) == ("memory-space" in slug)
    assert defect.pin_line() > 1
    # Only CHECK lines and the RUN line are comments: no tool prose.
    comments = [ln.strip() for ln in lines[1:] if ln.strip().startswith("//")]
    assert all(re.match(r"// CHECK(-NEXT|-NOT|-LABEL|-SAME)?:", c) for c in comments)


def _cached_source(prove_patches: ModuleType, version: int) -> Path:
    try:
        return prove_patches.source_dir(version, fetch=False)
    except prove_patches.Unavailable as why:
        pytest.skip(str(why))


@pytest.mark.parametrize("version", [19, 22])
def test_patches_apply_cleanly_to_upstream_source(
    prove_patches: ModuleType, version: int, tmp_path: Path
) -> None:
    patches = sorted((PATCHES / str(version)).glob("*.patch"))
    if not patches:
        pytest.skip(f"no patch for {version} in patches/{version}")
    src = _cached_source(prove_patches, version)
    for patch in patches:
        work = tmp_path / patch.stem
        for rel in prove_patches.patched_files(patch):
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src / rel, work / rel)
        done = subprocess.run(["patch", "-p1", "--dry-run", "-F0", "-i", str(patch)], cwd=work,
                              capture_output=True, text=True)
        assert done.returncode == 0 and "offset" not in done.stdout, (patch.name, done.stdout)


@pytest.mark.parametrize("version", [19, 22])
def test_cases_fail_on_stock_mlir_opt_at_their_pin(
    prove_patches: ModuleType, version: int
) -> None:
    if not prove_patches.tool(version, "FileCheck").is_file():
        pytest.skip(f"llvm-{version}-tools (FileCheck) is not installed")
    if not prove_patches.tool(version, "mlir-opt").is_file():
        pytest.skip(f"mlir-{version}-tools is not installed")
    for defect in prove_patches.load_defects():
        outcome = prove_patches.run_test(defect.case, version, None)
        verdict = prove_patches.fails_at_pin(defect, outcome)
        assert verdict.startswith("yes"), (defect.slug, verdict)


def test_pass_flag_maps_to_the_plugin_pass_with_its_options(prove_patches: ModuleType) -> None:
    plugin = Path("/p/plugin.so")
    line = 'mlir-opt %s --gpu-to-llvm="use-bare-pointers-for-kernels=1" | FileCheck %s'
    got = prove_patches.substitute(line, Path("/t/x.mlir"), 19, plugin)
    assert ("'--pass-pipeline=builtin.module(gpu-to-llvm-patched"
            "{use-bare-pointers-for-kernels=1})'") in got
    assert got.startswith("/usr/lib/llvm-19/bin/mlir-opt --load-pass-plugin='/p/plugin.so'")
    assert "/usr/lib/llvm-19/bin/FileCheck '/t/x.mlir'" in got
    stock = prove_patches.substitute("mlir-opt %s --gpu-to-llvm", Path("/t/x.mlir"), 22, None)
    assert stock == "/usr/lib/llvm-22/bin/mlir-opt '/t/x.mlir' --gpu-to-llvm"


def test_a_stock_run_counts_only_when_it_fails_at_the_pin(prove_patches: ModuleType) -> None:
    defect = next(d for d in prove_patches.load_defects() if d.pin.startswith("// CHECK"))
    line = defect.pin_line()
    Outcome = prove_patches.Outcome
    at_pin = f"{defect.case}:{line}:5: error: {defect.reason}\n"
    assert prove_patches.fails_at_pin(defect, Outcome(False, at_pin)).startswith("yes")
    assert prove_patches.fails_at_pin(defect, Outcome(True, "")).startswith("no: it passes")
    elsewhere = f"{defect.case}:{line + 1}:5: error: {defect.reason}\n"
    assert prove_patches.fails_at_pin(defect, Outcome(False, elsewhere)).startswith("no:")
    other_reason = f"{defect.case}:{line}:5: error: CHECK-LABEL: expected string not found\n"
    assert prove_patches.fails_at_pin(defect, Outcome(False, other_reason)).startswith("no:")
    assert prove_patches.fails_at_pin(defect, Outcome(False, "crash")).startswith("no:")


def test_without_headers_or_source_a_version_is_unavailable_in_words(
    prove_patches: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prove_patches, "CACHE", tmp_path)
    with pytest.raises(prove_patches.Unavailable, match="not cached"):
        prove_patches.source_dir(19, fetch=False)
    if not prove_patches.Path("/usr/lib/llvm-19/include/mlir").is_dir():
        with pytest.raises(prove_patches.Unavailable, match="neither installed nor cached"):
            prove_patches.include_dir(19, fetch=False)
    # The proof's cells then read "not run: <reason>", never a traceback.
    rows = prove_patches.prove(prove_patches.load_defects()[:1], 19, False, [])
    assert rows[0].passes_patched.startswith("not run: upstream source of 19 is not cached")
