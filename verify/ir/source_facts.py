"""What the source program promises, as Z3 formulas over its branch values.

Facts are read from a parsed source module (`verify.ir.source_read`), whatever
produced it: a user's file as `mlir-opt` parsed it (`verify.ir.source_module`),
or a generated `Program`, whose module is the one its printed text parses to
(`verify.lowerings.xdsl_build` builds exactly that, without the text round
trip; `tests/test_source_read.py` checks the two agree).  A `Program`'s
facts are read from the same module built in `verify.ir.fastparse`'s small
objects (`verify.ir.source_light`), which is several times cheaper to build and
to read; `tests/test_source_read.py` checks it gives the same facts as the
xDSL module.

The same branch variables name both sides: `f0:%cond0` is the i1 argument
`%cond0` of `@f0` in the source and its counterpart in the lowered function,
so a path condition found on the lowered side reads in source terms.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gpu_alloc_verify.verify.ir.source_light import light_module
from gpu_alloc_verify.verify.ir.source_read import SourceFacts, SourceOp, branch_var, read_source
from gpu_alloc_verify.verify.model.program import Program

__all__ = ["SourceFacts", "SourceOp", "branch_var", "source_facts"]


def source_facts(source: Any) -> SourceFacts:
    """Facts of a `Program` or a `verify.ir.source_module.SourceModule`."""
    if isinstance(source, Program):
        return _program_facts(source)
    return source.facts()  # type: ignore[no-any-return]


@lru_cache(maxsize=64)
def _program_facts(program: Program) -> SourceFacts:
    # One program is judged once per lowering: read its module once.
    return read_source(light_module(program))
