"""Source ops that touch no memory but name a buffer another way.

- descriptor ops (`memref.cast`, `memory_space_cast`, `subview`, ...): their
  memref result is a view of the operand's buffer, so host accesses through
  it are accesses of that buffer (`verify.source.facts` aliases them);
- `mgpuMemGetDeviceMemRef1d*` (ROCm's wrappers, called from the source): the
  device's view of a host-registered buffer, the same memory; it reads
  nothing (`hipHostGetDevicePointer` and a descriptor);
- `memref.extract_aligned_pointer_as_index`: no access, but its index is the
  buffer's address.  Harmless while it only feeds integer arithmetic; any
  other use (a call, a store, an `llvm.load` through `inttoptr`, a return)
  may read or write the buffer where the reader cannot see it.
"""

from __future__ import annotations

from gpu_alloc_verify.verify.ir.attrs import callee_name, type_text
from gpu_alloc_verify.verify.ir.protocols import IROp, IRValue

# Op -> the operand whose buffer its memref results view.
VIEWS: dict[str, int] = {
    "memref.cast": 0, "memref.memory_space_cast": 0, "memref.reinterpret_cast": 0,
    "memref.subview": 0, "memref.collapse_shape": 0, "memref.expand_shape": 0,
    "memref.view": 0, "memref.transpose": 0, "memref.assume_alignment": 0,
    "memref.extract_strided_metadata": 0,
}
# Runtime functions a source calls whose memref result views operand 0.
DEVICE_VIEW_PREFIX = "mgpuMemGetDeviceMemRef1d"
# Ops whose index or pointer result is the address of a buffer operand.
ADDRESS_OF = frozenset({"memref.extract_aligned_pointer_as_index"})
# Integer and pointer arithmetic an address may go through without being
# used, and checks of it (an alignment assert) that access nothing.
_ADDRESS_MATH_PREFIXES = ("arith.", "index.")
_ADDRESS_MATH = frozenset({"llvm.ptrtoint", "llvm.inttoptr", "llvm.getelementptr",
                           "builtin.unrealized_conversion_cast", "affine.apply",
                           "affine.min", "affine.max", "cf.assert"})


def viewed(op: IROp, name: str) -> list[tuple[IRValue, IRValue]]:
    """(result, operand) pairs of a descriptor op: the result views the
    operand's buffer.  Empty for any other op."""
    k = VIEWS.get(name)
    if name == "func.call" and is_device_view(op):
        k = 0
    if k is None or len(op.operands) <= k:
        return []
    return [(r, op.operands[k]) for r in op.results if "memref" in type_text(r)]


def is_device_view(op: IROp) -> bool:
    """A call of the runtime's device view of a host buffer (no access)."""
    return (callee_name(op) or "").startswith(DEVICE_VIEW_PREFIX) and bool(op.operands)


def is_address_math(name: str) -> bool:
    """Does `name` only compute with an address (no access, no escape)?"""
    return name.startswith(_ADDRESS_MATH_PREFIXES) or name in _ADDRESS_MATH


__all__ = ["ADDRESS_OF", "DEVICE_VIEW_PREFIX", "VIEWS", "is_address_math", "is_device_view",
           "viewed"]
