"""The source facts of either kind of source: a generated `Program` or a
user's file (`verify.source.user_file.SourceModule`).

Facts are read from a parsed source module (`verify.source.facts`), whatever
produced it: a user's file as `mlir-opt` parsed it (`verify.source.user_file`),
or a generated `Program`, whose module is the one its printed text parses to
(`verify.lowerings.xdsl_build` builds exactly that, without the text round
trip; `tests/source/test_source_read.py` checks the two agree).  A `Program`'s
facts are read from the same module built in `verify.ir.fastparse`'s small
objects (`verify.source.light`), which is several times cheaper to build and
to read; `tests/source/test_source_read.py` checks it gives the same facts as the
xDSL module.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.model.program import Program, in_process_gap
from gpu_alloc_verify.verify.source.facts import SourceFacts, read_source
from gpu_alloc_verify.verify.source.light import light_module

if TYPE_CHECKING:
    from gpu_alloc_verify.verify.source.user_file import SourceModule

# The name a generated program's text is read under (its diagnostics and
# the locations of ops printed without one say it).
PROGRAM_NAME = "<generated>"


def source_facts(source: Program | SourceModule) -> SourceFacts:
    """Facts of a `Program` or a `verify.source.user_file.SourceModule`."""
    if isinstance(source, Program):
        if in_process_gap(source):
            return as_text(source).facts()
        return _program_facts(source)
    return source.facts()


def judged_as(source: Program | SourceModule) -> Program | SourceModule:
    """What the checks read for `source`: a `Program` the in-process
    consumers build as it is; one holding host code they do not build
    (`verify.model.program.in_process_gap`), as its printed text read as a
    user's file is (`as_text`).  SourceParseError when no tool reads it."""
    if isinstance(source, Program) and in_process_gap(source):
        return as_text(source)
    return source


@lru_cache(maxsize=64)
def as_text(program: Program) -> SourceModule:
    """The program's text as a user's file: read by the newest installed
    mlir-opt (by xDSL where none is), its model whatever
    `verify.source.to_program` makes of it.  Cached: a program is judged
    once per lowering."""
    from gpu_alloc_verify.verify.source.user_file import from_text
    from gpu_alloc_verify.verify.tools.commands import default_reader

    return from_text(program.to_mlir(), PROGRAM_NAME, default_reader())


@lru_cache(maxsize=64)
def _program_facts(program: Program) -> SourceFacts:
    # One program is judged once per lowering: read its module once.
    return read_source(light_module(program))
