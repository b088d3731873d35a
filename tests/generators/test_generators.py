"""Generated programs are valid: every real mlir-opt parses them (no pass)."""

from __future__ import annotations

import subprocess

import pytest

from gpu_alloc_verify.generators.features import features
from gpu_alloc_verify.generators.programs import GenConfig
from tests.conftest import collect_programs, need_mlir_opt


@pytest.mark.slow
def test_every_generated_program_parses_with_16_19_22() -> None:
    progs = collect_programs(150, GenConfig(max_ops=12, max_functions=2))
    text = "\n// -----\n".join(p.to_mlir() for p in progs)
    for v in (16, 19, 22):
        tool = need_mlir_opt(v)
        proc = subprocess.run([tool, "--split-input-file", "-"], input=text,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[:2000]


def test_linear_config_uses_each_token_once() -> None:
    for p in collect_programs(100, GenConfig(max_ops=12).linear()):
        uses: dict[str, int] = {}
        for op in p.walk():
            for d in getattr(op, "deps", ()):
                uses[d] = uses.get(d, 0) + 1
        assert all(n == 1 for n in uses.values()), p.to_mlir()
        assert "token.fan-in" not in features(p)
