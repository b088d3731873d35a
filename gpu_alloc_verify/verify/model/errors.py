"""The harness's exceptions: one root class, each saying what to do."""

from __future__ import annotations


class GpuAllocVerifyError(Exception):
    """Root of every error the harness raises on purpose."""


class UsageError(GpuAllocVerifyError):
    """Bad command-line input or a bad input file (exit status 2)."""


class EnvironmentProblem(GpuAllocVerifyError):
    """A tool or package the run needs is missing (exit status 2)."""


class SourceParseError(UsageError):
    """A source MLIR file the harness cannot read as a GPU program."""


class NotModelled(GpuAllocVerifyError):
    """The harness does not model this input; the message names what.

    Raised and caught inside the harness: each kind says what the catcher
    does.  A type means one thing, so a catcher never has to look at which
    module raised it."""


class ReaderDeclined(NotModelled):
    """The fast reader (`verify.ir.fastparse`, `oracles.fast_ir`) does not
    read this text as xDSL would: the caller reads it with xDSL instead.
    Never a verdict."""


class InterpreterDeclined(NotModelled):
    """An oracle's interpreter of the source program (`oracles.source_interp`)
    or of the lowered one (`oracles.lowered_interp`) reaches what it does not
    model: that run ends "unsupported", the verdict is unknown."""


class KernelDeclined(NotModelled):
    """The kernel interpreter (`oracles.kernel_interp`) does not model an op,
    type or behaviour of a kernel: the run that launches it ends
    "unsupported"."""
