"""Lowering specs (`mlir-opt-19`, `mlir-opt:/path`, `xdsl:pr69969`) to lowerings."""

from __future__ import annotations

import re

from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE, resolve_mlir_opt
from gpu_alloc_verify.verify.lowerings.portfolio import PORTFOLIO, PortfolioLowering
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem

EMBEDDED_DEFAULT = "xdsl:pr69969"


def xdsl_variants() -> dict[str, str]:
    try:
        from gpu_alloc_verify.verify.lowerings.xdsl_lowering import XDSL_VARIANTS
    except ImportError:
        return {}
    return dict(XDSL_VARIANTS)


def resolve(spec: str, pipeline: str = DEFAULT_PIPELINE) -> Lowering:
    if spec.startswith("xdsl:"):
        try:
            from gpu_alloc_verify.verify.lowerings.xdsl_lowering import resolve_xdsl
        except ImportError as e:
            raise EnvironmentProblem(f"{spec}: in-process lowerings unavailable ({e})") from e
        return resolve_xdsl(spec)
    if spec.startswith("mlir-opt"):
        lowering = resolve_mlir_opt(spec, pipeline if pipeline != PORTFOLIO else DEFAULT_PIPELINE)
        if pipeline == PORTFOLIO:  # each program through one pipeline of the portfolio
            return PortfolioLowering(spec, lowering.path, timeout_s=lowering.timeout_s)
        return lowering
    raise EnvironmentProblem(
        f"unknown lowering '{spec}': use mlir-opt, mlir-opt-N, mlir-opt:/path or xdsl:NAME "
        "(see `gpu-alloc-verify lowerings`)"
    )


def unknown_spec(spec: str) -> bool:
    """Does `spec` name no lowering at all (a typo, not a missing tool)?
    `mlir-opt`, `mlir-opt-N` and `mlir-opt:PATH` name one whether or not it
    is installed; `xdsl:NAME` only for a known NAME (when xDSL is here)."""
    if spec.startswith("xdsl:"):
        known = xdsl_variants()
        return bool(known) and spec.removeprefix("xdsl:") not in known
    return not (re.fullmatch(r"mlir-opt(-\d+)?", spec)
                or (spec.startswith("mlir-opt:") and len(spec) > len("mlir-opt:")))


def default_spec() -> tuple[str, str]:
    """The newest real mlir-opt found, else the embedded xDSL lowering; and why."""
    path = find_mlir_opt()
    if path is not None:
        from gpu_alloc_verify.verify.ir.tools import tool_version

        version = tool_version(path)
        spec = f"mlir-opt-{version}" if version and find_mlir_opt(version) else f"mlir-opt:{path}"
        return spec, f"newest mlir-opt found: {path}"
    if xdsl_variants():
        return EMBEDDED_DEFAULT, "no mlir-opt found; using the embedded xDSL lowering"
    raise EnvironmentProblem(
        "no lowering available: install Debian's mlir-19-tools (apt-get install mlir-19-tools)"
    )


def available_specs() -> list[tuple[str, str]]:
    """(spec, description) of every lowering this machine can run."""
    out: list[tuple[str, str]] = []
    for v in (16, 17, 18, 19, 20, 21, 22):
        path = find_mlir_opt(v)
        if path:
            out.append((f"mlir-opt-{v}", path))
    out += [(f"xdsl:{name}", desc) for name, desc in xdsl_variants().items()]
    return out
