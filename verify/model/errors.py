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
