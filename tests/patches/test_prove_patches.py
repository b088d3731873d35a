"""The whole proof of issue 42 on real MLIR: build each fix as a plugin and run
the cases and upstream's tests on it (nightly: each plugin build takes a
minute or more; cached builds are reused).  Skips cleanly where
libmlir-N-dev's headers or Debian's source of N are neither installed nor
cached; scripts/prove_patches.py fetches them.
"""

from __future__ import annotations

from types import ModuleType

import pytest

pytestmark = [pytest.mark.nightly, pytest.mark.slow]


@pytest.mark.parametrize("version", [19, 22])
def test_every_fix_passes_its_case_and_breaks_no_upstream_test(
    prove_patches: ModuleType, version: int
) -> None:
    try:
        prove_patches.include_dir(version, fetch=False)
        prove_patches.source_dir(version, fetch=False)
    except prove_patches.Unavailable as why:
        pytest.skip(str(why))
    defects = prove_patches.load_defects()
    if not any(d.patch(version).is_file() for d in defects):
        pytest.skip(f"no patch for {version}")
    rows = prove_patches.prove(defects, version, False, [])
    for row in rows:
        if not row.defect.patch(version).is_file():
            continue
        assert all(c.startswith("yes") for c in row.cells()), (row.defect.slug, row.cells())
