"""Generated programs are valid: every real mlir-opt parses them (no pass)."""

from __future__ import annotations

import subprocess

from hypothesis import given, settings
from hypothesis import strategies as st

from generators.features import features
from generators.programs import GenConfig, programs
from tests.conftest import need_mlir_opt
from verify.program import Program


def _collect(strategy: st.SearchStrategy[Program], n: int) -> list[Program]:
    out: list[Program] = []

    @settings(max_examples=n, derandomize=True, database=None)
    @given(strategy)
    def grab(p: Program) -> None:
        out.append(p)

    grab()
    return out


def test_every_generated_program_parses_with_16_19_22() -> None:
    progs = _collect(programs(GenConfig(max_ops=12, max_functions=2)), 150)
    text = "\n// -----\n".join(p.to_mlir() for p in progs)
    for v in (16, 19, 22):
        tool = need_mlir_opt(v)
        proc = subprocess.run([tool, "--split-input-file", "-"], input=text,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[:2000]


def test_linear_config_uses_each_token_once() -> None:
    for p in _collect(programs(GenConfig(max_ops=12).linear()), 100):
        uses: dict[str, int] = {}
        for op in p.walk():
            for d in getattr(op, "deps", ()):
                uses[d] = uses.get(d, 0) + 1
        assert all(n == 1 for n in uses.values()), p.to_mlir()
        assert "token.fan-in" not in features(p)
