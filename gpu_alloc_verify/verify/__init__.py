"""gpu-alloc-verify: property-based verification of MLIR's lowering of async
GPU ops.  The public API (`verify.api`) is re-exported here, imported on
first use so that `import verify` (the CLI, the pytest plugin) stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.api import (
        GenConfig,
        Program,
        assert_holds,
        check,
        judgement,
        lowering,
        programs,
        violation_records,
    )

__all__ = ["GenConfig", "Program", "assert_holds", "check", "judgement", "lowering",
           "programs", "violation_records"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from gpu_alloc_verify.verify import api
        return getattr(api, name)
    raise AttributeError(f"module 'verify' has no attribute {name!r}")
