"""`xdsl:NAME`: in-process lowerings that re-create upstream `gpu-to-llvm` history.

Each variant is a set of xDSL rewrite patterns run by `xdsl_convert.convert`
on the module `xdsl_build.build_module` makes of a `Program`: no text, no
process.  The outcome carries both the printed module (generic form with
`loc("opN")` on every lowered op, parseable by `mlir-opt-19` and by xDSL) and
the module itself, so the harness can skip reparsing.

As with real tools, a pattern that blows up is a verdict about the lowering
(status "crash"), never an exception out of `lower_batch`.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import RewritePattern

from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.lowerings.xdsl_build import build_module
from gpu_alloc_verify.verify.lowerings.xdsl_convert import (
    ConversionFailed,
    ConversionState,
    PatternCrash,
    convert,
)
from gpu_alloc_verify.verify.lowerings.xdsl_patterns import (
    AllocLlvm16,
    AllocPr66401,
    AllocPr69969,
    AllocPr69969V1,
    AllocPr191661,
    DeallocAtMostOneDep,
    upstream_patterns,
)
from gpu_alloc_verify.verify.lowerings.xdsl_print import print_generic
from gpu_alloc_verify.verify.lowerings.xdsl_split_api import reference_patterns, split_api_patterns
from gpu_alloc_verify.verify.lowerings.xdsl_std import std_patterns
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem
from gpu_alloc_verify.verify.model.op_specs import CALL_PATTERN_OPS
from gpu_alloc_verify.verify.model.program import Program, in_process_gap
from gpu_alloc_verify.verify.source.user_file import SourceModule
from gpu_alloc_verify.verify.tools.commands import default_reader

XDSL_VARIANTS: dict[str, str] = {
    "llvm16": "LLVM 16: async alloc with exactly one dependency only; sync or host_shared "
    "alloc fails to legalize (rejected)",
    "pr66401": "PR #66401: host_shared flag passed to mgpuMemAlloc; still takes front() "
    "of the dependencies, so a sync host_shared alloc crashes",
    "pr69969-v1": "PR #69969, first revision: a sync host_shared alloc creates, "
    "synchronizes and destroys a stream",
    "pr69969": "PR #69969 as merged (LLVM 18-22): sync host_shared alloc on a null stream; "
    "async host_shared and sync plain allocs left unconverted",
    "pr191661": "PR #191661: like pr69969, plus sync plain alloc and sync dealloc on a "
    "null stream",
    "split-api": "the review's proposal: mgpuMemAlloc(size, shared) for sync, "
    "mgpuMemAllocAsync(size, stream, shared) for async; everything lowered, no leaks",
    "reference": "split-api's stream discipline on real runtime functions only: "
    "mgpuMemAlloc(size, stream or null, shared), a synchronized mgpuMemFree; "
    "64-bit memset left unconverted",
}

# Set to True (when debugging a pattern) to get its traceback, not a crash outcome.
DEBUG_RAISE = False


PatternSet = Callable[[ConversionState], list[RewritePattern]]

_PATTERNS: dict[str, PatternSet] = {
    "llvm16": lambda s: upstream_patterns(s, AllocLlvm16),
    "pr66401": lambda s: upstream_patterns(s, AllocPr66401),
    "pr69969-v1": lambda s: upstream_patterns(s, AllocPr69969V1),
    "pr69969": lambda s: upstream_patterns(s, AllocPr69969),
    "pr191661": lambda s: upstream_patterns(s, AllocPr191661, DeallocAtMostOneDep),
    "split-api": split_api_patterns,
    "reference": reference_patterns,
}
# LLVM 16 marks the gpu dialect illegal: one op left over fails the whole run.
_FULL_CONVERSION = {"llvm16"}


def print_lowered(module: ModuleOp) -> str:
    """Generic form with locations, as xDSL's printer prints it (faster)."""
    return print_generic(module).rstrip("\n") + "\n"


@dataclass
class XdslLowering:
    spec: str
    variant: str

    def describe(self) -> str:
        return f"{self.spec}: in-process xDSL patterns, {XDSL_VARIANTS[self.variant]}"

    def lower_batch(self, programs: Sequence[Program | SourceModule]) -> list[LoweringOutcome]:
        return [self.lower(p) for p in programs]

    def external_tool(self) -> str | None:
        return None

    def reading_tool(self) -> str | None:
        """No binary of its own: the newest installed mlir-opt reads for it."""
        return default_reader()

    def lower(self, source: Program | SourceModule) -> LoweringOutcome:
        if isinstance(source, Program):
            program = source
            gap = in_process_gap(program)
            if gap:
                return LoweringOutcome(
                    "rejected", not_applicable=f"{self.spec} lowers only programs in the "
                    f"generator's in-process model: {gap}")
        else:
            model = source.program()
            if model is None:
                return LoweringOutcome(
                    "rejected", not_applicable=f"{self.spec} lowers only programs in the "
                    f"generator's model: {source.model_gap()}")
            program = model
        try:
            return self._lower(program)
        except ConversionFailed as e:  # the variant refuses the op, as upstream does
            return LoweringOutcome("rejected", diagnostics=e.diagnostic)
        except PatternCrash as e:
            return LoweringOutcome("crash", diagnostics=f"{e} [in-process xdsl:{self.variant}]")
        except Exception as e:  # a pattern blowing up is the lowering's crash
            if DEBUG_RAISE:
                raise
            where = traceback.extract_tb(e.__traceback__)[-1]
            return LoweringOutcome(
                "crash",
                diagnostics=f"assertion-like failure in xdsl:{self.variant}: "
                f"{type(e).__name__}: {e} ({where.filename}:{where.lineno})",
            )

    def lower_module(self, program: Program) -> ModuleOp:
        """The lowered module (raises what a pattern raises)."""
        module = build_module(program)
        state = ConversionState(module)
        convert(module, [*_PATTERNS[self.variant](state), *std_patterns(state)])
        return module

    def _lower(self, program: Program) -> LoweringOutcome:
        module = self.lower_module(program)
        if self.variant in _FULL_CONVERSION:
            for op in module.walk():
                # What the runtime-call patterns convert fails a full conversion.
                if op.name in CALL_PATTERN_OPS:
                    loc = str(op.location)
                    return LoweringOutcome(
                        "rejected",
                        diagnostics=f"<unknown>:0: error: {loc}: failed to legalize "
                        f"operation '{op.name}' that was explicitly marked illegal",
                    )
        return LoweringOutcome("ok", lowered=print_lowered(module), module=module)


def resolve_xdsl(spec: str) -> XdslLowering:
    """`xdsl:NAME` to a lowering; unknown names list the known ones."""
    name = spec.split(":", 1)[1] if spec.startswith("xdsl:") else ""
    if name not in XDSL_VARIANTS:
        known = ", ".join(f"xdsl:{n}" for n in XDSL_VARIANTS)
        raise EnvironmentProblem(f"unknown lowering '{spec}'; known in-process lowerings: {known}")
    return XdslLowering(spec, name)
