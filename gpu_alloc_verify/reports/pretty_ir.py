"""Lowered IR as people read it: custom (pretty) form, no harness artefacts,
marks on the offending calls only, each with its source position.

The harness keeps lowered text in generic form with every location (what
its readers want).  For people it is printed again by the lowering's own
tool (`mlir-opt` without `--mlir-print-op-generic`; the version that wrote
it, so it reads it back) or, for an in-process lowering, by xDSL's printer.
Locations are dropped from what is shown (`loc("within split at ...")`,
`loc("p0/op3")`); a marked line names its source op's `file:line:col`
instead.  Where no printer is at hand the generic text is shown, locations
dropped all the same.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from gpu_alloc_verify.verify.ir.ir_lines import loc_id, parse_source, strip_locs
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError
from gpu_alloc_verify.verify.tools.commands import mlir_opt_argv
from gpu_alloc_verify.verify.tools.runner import ToolError, run_tool
from gpu_alloc_verify.verify.triage.offending import offense

Record = dict[str, Any]


@lru_cache(maxsize=256)
def custom_form(lowered: str, lowering: str) -> str | None:
    """`lowered` (generic form) in custom form with its locations, printed by
    `lowering`'s own tool (else by the first installed `mlir-opt` that reads
    it back); None when that cannot be done here."""
    if not lowered.strip():
        return None
    if lowering.startswith("xdsl:"):
        try:
            return _xdsl_custom(lowered)
        except Exception:  # noqa: BLE001 - text xDSL cannot read: show the generic form
            return None
    for path in _tools(lowering):
        try:
            proc = run_tool(mlir_opt_argv(path, locations=True, unregistered=True, stdin=True),
                            stdin=lowered, timeout_s=60)
        except ToolError:  # this printer is not at hand: try the next
            continue
        if proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout
    return None


def _tools(lowering: str) -> list[str]:
    """The lowering's own mlir-opt first, then every installed one, newest first."""
    from gpu_alloc_verify.verify.ir.tools import KNOWN_VERSIONS, find_mlir_opt
    from gpu_alloc_verify.verify.lowerings.registry import resolve

    out: list[str] = []
    try:
        own = resolve(lowering, "gpu-to-llvm").external_tool()
        if own is not None:
            out.append(own)
    except GpuAllocVerifyError:
        pass
    for v in KNOWN_VERSIONS:
        found = find_mlir_opt(v)
        if found and found not in out:
            out.append(found)
    return out


def _xdsl_custom(lowered: str) -> str:
    from xdsl.printer import Printer

    from gpu_alloc_verify.verify.ir.custom_form import custom_gpu_ops
    from gpu_alloc_verify.verify.ir.lowered_ir import parse_lowered

    out = io.StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(parse_lowered(lowered))
    return custom_gpu_ops(out.getvalue())


@dataclass
class IrLine:
    n: int  # 1-based line of the shown text
    text: str  # without locations
    mark: bool  # a runtime call (or leftover op) on the offending handle
    op: str | None  # the source op id of the line's location
    where: str  # where that op is in the source: file:line:col, or "" when unmarked
    kernel: bool  # inside a gpu.module (device code)
    declaration: bool  # a runtime function's declaration (llvm.func without body)


@dataclass
class ShownIr:
    lines: list[IrLine]
    custom: bool  # printed in custom form (else generic, the printer was not at hand)

    def text(self) -> str:
        return "\n".join(ln.text for ln in self.lines) + "\n"


def source_position(program: str, op_id: str | None, name: str = "program") -> str:
    """`file:line:col` of a source op: its own id when it is one (a user's file),
    else where its `loc("opN")` sits in the program text."""
    if not op_id:
        return ""
    if op_id.count(":") >= 2:
        return op_id
    op = parse_source(program).by_id(op_id)
    return f"{name}:{op.line}:{op.col}" if op is not None else op_id


def shown_ir(record: Record, program_name: str = "program") -> ShownIr:
    """The record's lowered IR for people (see the module docstring)."""
    generic = str(record.get("lowered") or "")
    custom = custom_form(generic, str(record.get("lowering") or ""))
    text = custom or generic
    marked = offense(dict(record, lowered=text)).lines()
    program = str(record.get("program") or "")
    lines: list[IrLine] = []
    depth_kernel = 0
    depth = 0
    for i, raw in enumerate(text.rstrip("\n").splitlines()):
        stripped = raw.strip()
        starts_kernel = stripped.startswith(("gpu.module", '"gpu.module"', "gpu.binary",
                                             '"gpu.binary"'))
        if starts_kernel and not depth_kernel:
            depth_kernel = depth + 1
        op = loc_id(raw)
        mark = i in marked
        decl = stripped.startswith("llvm.func @mgpu") and not stripped.endswith("{")
        lines.append(IrLine(i + 1, strip_locs(raw), mark, op,
                            source_position(program, op, program_name) if mark else "",
                            bool(depth_kernel), decl))
        depth += raw.count("{") - raw.count("}")
        if depth_kernel and depth < depth_kernel:
            depth_kernel = 0
    return ShownIr(lines, custom is not None)
