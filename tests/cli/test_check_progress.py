"""A long `check` shows its progress on a terminal (issue 29), and nothing
in a log or pipe."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from scripts.scale_check import chain as _chain


def _run(tmp_path: Path, on_tty: bool) -> tuple[int, str]:
    f = tmp_path / "chain.mlir"
    f.write_text(_chain(3000))  # long enough to show progress (about 4 s)
    argv = [sys.executable, "-m", "gpu_alloc_verify", "check", str(f),
            "--lowering", "mlir-opt-19", "--lowering", "mlir-opt-22"]
    if not on_tty:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        return proc.returncode, proc.stderr
    master, slave = os.openpty()
    proc2 = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif proc2.poll() is not None:
            break
    rc = proc2.wait(timeout=600)
    os.close(master)
    return rc, seen.decode(errors="replace")


@pytest.mark.slow
@pytest.mark.skipif(find_mlir_opt(19) is None or find_mlir_opt(22) is None,
                    reason="needs mlir-opt-19 and -22")
def test_progress_on_a_terminal_and_nothing_in_a_log(tmp_path: Path) -> None:
    rc, tty = _run(tmp_path, on_tty=True)
    assert rc == 0, tty
    lines = [ln for ln in tty.split("\r") if ln.startswith("check ")]
    assert lines, tty
    assert all(len(ln.rstrip()) <= 80 for ln in lines), lines
    assert any("mlir-opt-22 (2/2)" in ln and "ETA" in ln for ln in lines), lines
    assert tty.endswith("\r"), repr(tty[-100:])  # erased when the check ends
    rc, log = _run(tmp_path, on_tty=False)
    assert rc == 0 and "check " not in log, log
