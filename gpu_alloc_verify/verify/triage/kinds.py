"""What kind of root cause a signature is, how severe, and which pass is at fault.

- `defect`: the lowered code misbehaves on the runtime (a handle or order
  invariant broken), ranked by severity: memory safety (use after destroy,
  double destroy), invalid IR or a crash, wrong results (races, a
  differential outcome), leaks.
- `limitation`: the pass declines an input (an op left unconverted while
  the pass succeeds, as upstream intends).  Named after the unsupported
  precondition, not the op shape: upstream's patterns test "async?", "one
  dependency?", "host_shared?" and "16/32-bit value?", and that is all a
  maintainer can act on.
- `knock-on`: decided over the whole bucket (`verify.triage.causes`), not here.
"""

from __future__ import annotations

from gpu_alloc_verify.verify.ir.ir_lines import SrcOp
from gpu_alloc_verify.verify.ir.text import has_64bit_type
from gpu_alloc_verify.verify.model.verdicts import InvariantId

DEFECT, LIMITATION, KNOCK_ON = "defect", "limitation", "knock-on"
KIND_ORDER = {DEFECT: 0, LIMITATION: 1, KNOCK_ON: 2}

# Severity tiers of a defect, most severe first.
SEVERITY = ("memory-safety", "invalid-ir", "wrong-result", "leak", "declined-input")
MEMORY, INVALID_IR, WRONG, LEAK, DECLINED = range(len(SEVERITY))

# Preconditions upstream's gpu-to-llvm patterns check (GPUToLLVMConversion.cpp,
# 19 and 22), in the order they check them; the value is (source text, slug).
SYNC = "sync-op"
NOT_ONE_DEP = "async-not-one-dep"
ASYNC_SHARED = "alloc-async-host-shared"
MEMSET64 = "memset-64bit"
REGION_SHARED = "async-region-host-shared"  # a defect of gpu-async-region
UNKNOWN = "operand-unconverted"  # takes a value of an op left unconverted
PRECONDITIONS = {
    SYNC: "sync gpu op (not a host_shared alloc): only the async form is converted",
    NOT_ONE_DEP: "async gpu op with other than one dependency",
    ASYNC_SHARED: "async host_shared gpu.alloc (refused by design)",
    MEMSET64: "gpu.memset of a 64-bit value (no runtime has a 64-bit memset)",
    REGION_SHARED: "sync host_shared gpu.alloc made async by gpu-async-region, "
                   "which gpu-to-llvm then refuses",
    UNKNOWN: "an op whose operand comes from an op left unconverted",
}


def precondition(op: SrcOp | None, pipeline_passes: list[str]) -> str:
    """The unsupported precondition an op left unconverted falls under."""
    if op is None:
        return UNKNOWN
    region = any("gpu-async-region" in p for p in pipeline_passes)
    deps = len(op.deps)
    if op.name == "gpu.alloc" and op.host_shared:
        # A sync host_shared alloc is converted (19, 22) unless gpu-async-region
        # made it async first: then the fault is that pass's.
        return ASYNC_SHARED if op.is_async else REGION_SHARED if region else SYNC
    if not op.is_async:
        # gpu-async-region makes sync ops async (with dependencies upstream's
        # patterns may not take): name the precondition of the op that remains.
        return NOT_ONE_DEP if region else SYNC
    if deps != 1 or region:
        return NOT_ONE_DEP
    if memset_64bit(op):
        return MEMSET64
    return UNKNOWN


def memset_64bit(op: SrcOp) -> bool:
    """A `gpu.memset` of a 64-bit value, which no runtime has a memset for
    (the op table's memset calls: `mgpuMemset32`, `mgpuMemset16`)."""
    return op.name == "gpu.memset" and has_64bit_type(op.text)


def base_kind(invariant: str, focus: str) -> tuple[str, int]:
    """(kind, severity tier) from the signature alone (knock-ons come later)."""
    if invariant == InvariantId.LOWERING_COMPLETE:
        return (DEFECT, LEAK) if focus == REGION_SHARED else (LIMITATION, DECLINED)
    if invariant == InvariantId.STREAM_NO_USE_AFTER_DESTROY:
        return DEFECT, MEMORY
    if invariant == InvariantId.LOWERING_NO_CRASH:
        return DEFECT, INVALID_IR
    if invariant in (InvariantId.STREAM_NO_LEAK, InvariantId.EVENT_NO_LEAK):
        return DEFECT, LEAK
    return DEFECT, WRONG


def pass_at_fault(invariant: str, focus: str, family: str) -> str:
    """The pass a root cause is upstream's fault of: gpu-async-region for the
    host_shared alloc it makes async, otherwise the conversion to LLVM."""
    if invariant == InvariantId.LOWERING_COMPLETE and focus == REGION_SHARED:
        return "gpu-async-region"
    return "gpu-to-llvm" if "gpu-to-llvm" in family or "(" not in family else \
        family.rsplit(",", 1)[-1].rstrip(")")
