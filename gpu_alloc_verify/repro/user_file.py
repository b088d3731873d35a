"""Lit tests for the violations in a user's own file (`check FILE --lit DIR`).

fuzz's tests come from triage buckets of generated programs, whose every op
carries a name location (`loc("op4")`) that the reader and the lowering
both keep; `repro.export` ties each lowered call to its source op by it.  A
user's file has file locations instead, which name the file the text was
read from: the same op reads `k.mlir:3:8` in `check`, another key when the
exporter re-reads or reduces it.  So the file is first given a name location
on every source op (`name_source_ops`), judged again under `check`'s
settings, and each distinct root cause (triage signature) among the
violations becomes a bucket of one example, which `export_bucket` reduces,
writes and proves as it does fuzz's: the test fails on the lowering under
test at the defect, and passes on a fixed one (`xdsl:reference`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_alloc_verify.repro.export import (
    DEFAULT_FIXED,
    LitTest,
    export_bucket,
    write_lit_config,
)
from gpu_alloc_verify.verify.ir.ir_lines import parse_source
from gpu_alloc_verify.verify.model.errors import GpuAllocVerifyError
from gpu_alloc_verify.verify.triage.buckets import Bucket
from gpu_alloc_verify.verify.triage.rejudge import Settings, rejudge
from gpu_alloc_verify.verify.triage.signature import signature_of

Record = dict[str, Any]
TAG = "gav"  # name locations `loc("gav3")`: a prefix no harness name uses


@dataclass
class UserTest:
    """One violation's lit test (or why there is none), and where it came from."""

    file: str  # the user's file, as given
    lowering: str
    invariant: str
    test: LitTest
    bucket: Bucket | None = None


def _code_end(line: str) -> int:
    """Where the line's code ends: before a `//` comment outside a string."""
    quoted = False
    for k, ch in enumerate(line):
        if ch == '"' and (k == 0 or line[k - 1] != "\\"):
            quoted = not quoted
        elif not quoted and line.startswith("//", k):
            return k
    return len(line)


def name_source_ops(text: str) -> str:
    """`text` with a name location after each one-line source op (gpu ops,
    memref.load/store) that has none; an op that opens a region or spans
    lines is left as it is (its location would follow its closing brace)."""
    lines = text.split("\n")
    serial = 0
    for op in parse_source(text).ops:
        line = lines[op.line - 1]
        end = _code_end(line)
        code = line[:end].rstrip()
        if op.loc is not None or " loc(" in code or code.endswith(("{", ",", "(")):
            continue
        serial += 1
        while f'"{TAG}{serial}"' in text:
            serial += 1
        lines[op.line - 1] = f'{code} loc("{TAG}{serial}")' + (
            " " + line[end:] if end < len(line) else "")
    return "\n".join(lines)


def _buckets(text: str, lowering: str, invariants: Sequence[str], settings: Settings
             ) -> tuple[list[Bucket], str]:
    """One bucket per root cause the named text shows on `lowering` for
    `invariants`, and why there is none where none is found."""
    named = name_source_ops(text)
    try:
        found = rejudge([named], ["check"], settings, [list(invariants)])[0]
    except GpuAllocVerifyError as e:
        return [], f"{lowering} is not available here: {e}"
    if found is None:
        return [], "the file could not be read again with name locations on its ops"
    buckets: dict[str, Bucket] = {}
    for rec in found:
        if rec.get("invariant") not in invariants:
            continue
        rec = {**rec, "program": named, "pipeline": settings.pipeline, "lowering": lowering}
        sig = signature_of(rec, settings.pipeline)
        if sig.key not in buckets:
            buckets[sig.key] = Bucket(sig, per_campaign={"check": 1}, lowerings=[lowering],
                                      smallest=[((0,), rec)])
    return list(buckets.values()), ("" if buckets else
                                     "the violation does not show again with name locations "
                                     "on the file's ops")


def _unique(slug: str, taken: set[str]) -> str:
    name, n = slug, 1
    while name in taken:
        n += 1
        name = f"{slug}-{n}"
    taken.add(name)
    return name


def export_violations(file: str, text: str, violations: Sequence[Record], pipeline: str,
                      out_dir: str | Path, runtime: str = "cuda",
                      fixed: str | None = DEFAULT_FIXED,
                      taken: set[str] | None = None) -> list[UserTest]:
    """A proven lit test under `out_dir` per root cause among `violations`
    (`check --json` records of `file`, whose text is `text`); `taken`: the
    test names already written in this run (numbered on a clash)."""
    taken = taken if taken is not None else set()
    by_lowering: dict[str, list[str]] = {}
    for v in violations:
        invs = by_lowering.setdefault(str(v["lowering"]), [])
        if str(v["invariant"]) not in invs:
            invs.append(str(v["invariant"]))
    out: list[UserTest] = []
    for lowering, invariants in by_lowering.items():
        buckets, why = _buckets(text, lowering, invariants, Settings(lowering, pipeline, runtime))
        if not buckets:
            for inv in invariants:
                out.append(UserTest(file, lowering, inv, LitTest("", inv, reason=why)))
            continue
        bodies: dict[str, str] = {}  # a test's checks and program -> its name
        for b in buckets:
            name = _unique(b.signature.slug(), taken)
            try:
                test = export_bucket(b, out_dir, fixed, name=name, upstream=False)
            except GpuAllocVerifyError as e:  # no FileCheck, say: the verdicts stand
                test = LitTest(b.key, name, reason=str(e))
            same = bodies.get(_body(test.text)) if test.written else None
            if same is not None and test.path is not None:
                # Two rules seeing one bug (a leak, and the differential's
                # live stream) reduce to one test: written once.
                test.path.unlink(missing_ok=True)
                test.path, test.reason = None, f"the same test as {same}.mlir"
            if not test.written:
                taken.discard(name)
            else:
                bodies[_body(test.text)] = name
            out.append(UserTest(file, lowering, b.signature.invariant, test, b))
    return out


def _body(text: str) -> str:
    """A test as two tests of one program compare (export writes no summary
    line: the RUN line, a blank line, the program and its checks)."""
    return text


def write_support(out_dir: str | Path, tests: Sequence[UserTest]) -> None:
    """lit.cfg.py (on the first lowering a test was written for) and a
    README.md saying where each test came from, once a test is written."""
    written = [t for t in tests if t.test.written and t.test.path is not None]
    if not written:
        return
    write_lit_config(out_dir, written[0].lowering)
    lines = ["# Lit tests written by `gpu-alloc-verify check --lit`", "",
             "Each test is a violation found in the file named, reduced to the ops that "
             "show it, and proven: it fails on the lowering named, for the reason its "
             "CHECK lines state, and passes on a reference lowering.", ""]
    for t in written:
        path = t.test.path
        proof = t.test.proof.summary() if t.test.proof is not None else "not proven"
        lines.append(f"- `{path.name if path else '?'}`: {t.invariant} in `{t.file}` on "
                     f"{t.lowering}; {proof}.")
    Path(out_dir, "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def format_tests(tests: Sequence[UserTest], out_dir: str | Path) -> list[str]:
    """One line per test written (with its proof) or per violation without one."""
    lines = []
    for t in tests:
        if t.test.written and t.test.proof is not None and t.test.path is not None:
            lines.append(f"  {t.test.path.name}: {t.invariant} on {t.lowering}; "
                         f"{t.test.proof.summary()}")
        else:
            lines.append(f"  {t.invariant} on {t.lowering}: no test "
                         f"({' '.join(t.test.reason.split())})")
    written = sum(1 for t in tests if t.test.written)
    head = f"lit: {written} test(s) written to {out_dir}"
    if written:
        head += f" (run: lit -v {out_dir})"
    return [head, *lines]


__all__ = ["UserTest", "export_violations", "format_tests", "name_source_ops",
           "write_support"]
