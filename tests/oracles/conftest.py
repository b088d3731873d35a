"""Shared fixtures of the oracle tests: real tools are optional, never assumed."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def mlir_opt_19():
    from gpu_alloc_verify.verify.lowerings.mlir_opt import resolve_mlir_opt
    from gpu_alloc_verify.verify.model.errors import EnvironmentProblem

    try:
        return resolve_mlir_opt("mlir-opt-19", "gpu-to-llvm")
    except EnvironmentProblem as e:
        pytest.skip(str(e))


@pytest.fixture(scope="session")
def lower19(mlir_opt_19):
    """Lower one program with mlir-opt-19; the generic-form lowered text."""

    def lower(program):
        (outcome,) = mlir_opt_19.lower_batch([program])
        assert outcome.status == "ok", outcome.diagnostics
        return outcome.lowered

    return lower
