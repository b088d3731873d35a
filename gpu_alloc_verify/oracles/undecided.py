"""What leaves `differential` undecided: the constructs the README lists,
and which one an `unknown` reason names.

Every reason the oracles give for `unknown` names the construct it could not
run; `construct_of` reads it back (first match wins: a sparse op is reported
as an op "not modelled", so sparse comes before host ops).  The share script
(`scripts/corpus_differential_share.py`) counts undecided runs by construct,
and `tests/oracles/test_undecided.py` keeps the README's list and this one
the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Construct:
    key: str
    readme: str  # how the README names it (the test looks for this text)
    pattern: re.Pattern[str]


def _c(key: str, readme: str, pattern: str) -> Construct:
    return Construct(key, readme, re.compile(pattern))


CONSTRUCTS: tuple[Construct, ...] = (
    _c("sparse", "sparse ops (`gpu.create_*_spmat`, `gpu.spmv`, ...)",
       r"gpu\.(create_|destroy_|spmv|spmm|sddmm|spgemm|set_csr)|mgpu(Create|Destroy)(Sp|Dn|Csr|Coo)"
       r"|mgpuSp(MV|MM|GEMM)|mgpuSDDMM"),
    _c("async-execute", "`async.execute` on the host", r"\basync\.(execute|await|yield)"),
    _c("kernel-op", "kernel ops the kernel interpreter does not run",
       r"source interpreter does not run|kernel @\S+ uses|the outlined kernel"),
    _c("external-function", "functions declared but defined elsewhere",
       r"external function|external call|is external|no function @"),
    _c("source-race", "a source that races", r"source itself races"),
    _c("budget", "inputs past the interpreters' budgets", r"budgets|steps|threads \(past"),
    _c("host-op", "host ops not modelled", r"op \S+ is not modelled|takes |printing a strided"),
    _c("lowered-op", "lowered ops or calls not modelled", r"lowered interpreter|lowered module"),
    _c("unreadable", "modules the interpreters cannot read", r"cannot read|not read"),
)


def construct_of(reason: str) -> Construct | None:
    """The construct an `unknown` reason names; None where it names none
    the README lists (an oracle fault, a new reason)."""
    return next((c for c in CONSTRUCTS if c.pattern.search(reason)), None)
