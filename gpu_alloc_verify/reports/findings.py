"""The findings catalogue: each distinct upstream defect the harness finds,
as markdown.

A finding is a root cause (triage bucket) with the pipeline left out of the
signature, so the same defect under several pipelines is one finding; it
lists the `mlir-opt` versions and pipelines it was seen with, how many
programs showed it, the minimal program of its lit test, the lit test (proven
before it was written: fails on the buggy tool, passes on the fixed
lowering) and a sentence on the likely fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.model.verdicts import InvariantId, rule_of
from gpu_alloc_verify.verify.triage.buckets import Bucket, Triage
from gpu_alloc_verify.verify.triage.causes import program_text
from gpu_alloc_verify.verify.triage.kinds import (
    ASYNC_SHARED,
    KIND_ORDER,
    MEMSET64,
    NOT_ONE_DEP,
    REGION_SHARED,
    SEVERITY,
    SYNC,
)
from gpu_alloc_verify.verify.triage.signature import EVENT_AT_DEF, STREAM_ALIAS

if TYPE_CHECKING:  # the tests are made by `repro`; this only renders them
    from gpu_alloc_verify.repro.export import LitTest


@dataclass
class Finding:
    buckets: list[Bucket] = field(default_factory=list)

    @property
    def lead(self) -> Bucket:
        return self.buckets[0]

    @property
    def count(self) -> int:
        return sum(b.count for b in self.buckets)

    def lowerings(self) -> list[str]:
        seen: list[str] = []
        for b in self.buckets:
            seen += [spec for spec in b.lowerings if spec not in seen]
        return sorted(seen, key=_version)

    def pipelines(self) -> list[str]:
        out: list[str] = []
        for b in self.buckets:
            m = re.match(r"^[^(]*\((.*)\)$", b.signature.family)
            pipe = m.group(1) if m else b.signature.family
            if pipe not in out:
                out.append(pipe)
        return out


def _count_text(f: Finding) -> str:
    shrunk = sum(len(b.violation_ids) for b in f.buckets)
    if f.count or not shrunk:
        return str(f.count)
    # A root cause always has its programs: here the shrunk ones (shrinking
    # reached it from a program recorded under another root cause).
    return f"{shrunk} (shrunk)"


def _version(spec: str) -> tuple[int, str]:
    m = re.search(r"(\d+)$", spec)
    return (int(m.group(1)) if m else 0, spec)


def findings_of(triage: Triage) -> list[Finding]:
    """Buckets grouped by (invariant, source pattern, call pattern), most programs first."""
    groups: dict[tuple[str, str, str], Finding] = {}
    for b in triage.buckets:
        sig = b.signature
        if not sig.family.startswith("mlir-opt"):
            continue  # the catalogue is about real upstream tools
        groups.setdefault((sig.invariant, sig.source, sig.calls), Finding()).buckets.append(b)
    # Defects first by severity, then limitations (knock-ons sit under a lead).
    return sorted(groups.values(), key=lambda f: (KIND_ORDER.get(f.lead.kind, 9),
                                                  f.lead.severity, -f.count, f.lead.key))


# Real runtime functions only: a fix upstream can take (runtime_table.json).
_PRECONDITION_FIX = {
    SYNC: "Lower the synchronous form with a null stream, as PR #69969 did for host_shared "
          "allocs (PR #191661 does it for sync alloc and dealloc), or make the pass fail "
          "instead of leaving the op while it reports success.",
    NOT_ONE_DEP: "Accept zero or several dependencies the way `gpu.wait async` does (a new "
                 "stream, or the first dependency's stream plus events for the others).",
    # Upstream declined async host_shared allocation (CUDA and HIP cannot
    # allocate shared memory on a stream: the #65539 / #66401 reviews).
    ASYNC_SHARED: "None in the lowering: upstream declined async host_shared allocation "
                  "(the #65539 review: CUDA and HIP cannot allocate it on a stream).  The "
                  "precondition is on the input: write a host_shared gpu.alloc synchronous.",
    MEMSET64: "None in the lowering (no runtime wrapper has a 64-bit memset); the "
              "precondition is on the input: memset 16- or 32-bit elements only.  The pass "
              "could fail with a diagnostic instead of leaving the op while it succeeds.",
    REGION_SHARED: "gpu-async-region should leave a host_shared gpu.alloc synchronous "
                   "(PR #90876), which gpu-to-llvm lowers to mgpuMemAlloc(size, null, 1).",
}


def likely_fix(bucket: Bucket) -> str:
    """One sentence on where the fix probably goes (GPUToLLVMConversion.cpp)."""
    sig = bucket.signature
    calls, inv = sig.calls, sig.invariant
    if inv == InvariantId.LOWERING_COMPLETE:
        # Named by the precondition upstream's patterns do not take (kinds.py).
        return _PRECONDITION_FIX.get(sig.focus or "",
                                     "Convert the op or fail the pass instead of leaving it.")
    if inv in (InvariantId.STREAM_NO_LEAK, InvariantId.DIFFERENTIAL) \
            and "Stream" in calls + " live_streams":
        return ("`gpu.wait async [%t]` records an event on %t's stream and never destroys "
                "that stream: destroy it (`mgpuStreamDestroy`) once the event is recorded "
                "and no other op uses it, or reuse it as the new token's stream.")
    if sig.focus == STREAM_ALIAS:
        return ("An async op with one dependency returns that dependency's stream as its "
                "token, and a sync `gpu.wait` destroys the stream of every token it waits on "
                "(a TODO in GPUToLLVMConversion.cpp), so the second wait on an alias, or a "
                "later op on it, meets a destroyed stream: destroy a stream once, after the "
                "last use of any token that is it.")
    if sig.focus == EVENT_AT_DEF:
        return ("`gpu.wait async [%t]` creates and records %t's event right after %t's "
                "definition but destroys it at the wait, so a wait that runs other than once "
                "(in a loop, in a branch, or a token waited on twice) destroys it twice or "
                "never: create and record the event at the wait, next to its destroy.")
    if inv == InvariantId.RUNTIME_CONTRACT and "stream given to an event call" in calls:
        return ("A token that crosses control flow (an scf.if / scf.for result, a block "
                "argument) is a stream, yet it is synchronized and destroyed as an event: "
                "type it by its origin (as PR #190717 does for an analogous case), or "
                "record an event where the stream is yielded.")
    if inv == InvariantId.LOWERING_NO_CRASH:
        return ("Cast the runtime's `!llvm.ptr` to the memref's address space "
                "(`llvm.addrspacecast`, as PR #191661 does for gpu.alloc in 23) before it "
                "goes into the descriptor, and back to address space 0 before `free`.")
    if inv == InvariantId.ASYNC_ORDER:
        return ("Order the host access after the device work: synchronize the stream the "
                "token stands for, including tokens of ops left unconverted.")
    return "See the lit test; the invariant names the rule the lowering breaks."


def _program_of(test: LitTest | None) -> str:
    return test.reduced.rstrip() if test is not None and test.reduced else ""


def catalogue(triage: Triage, tests: dict[str, LitTest], out_file: str | Path,
              lowerings: list[str], pipelines: list[str], examples: int,
              lit_dir: str | Path | None = None,
              reproduced: dict[str, dict[str, str]] | None = None,
              generator: str = "") -> str:
    """The catalogue as markdown (also returned); links are relative to `out_file`.
    `generator` says what the campaigns drew beyond the default (e.g. "tokens
    through control flow, allocs in memory space 1")."""
    out = Path(out_file)
    when = datetime.now(tz=timezone.utc).strftime("%Y-%m-%d")  # noqa: UP017
    found = findings_of(triage)
    lines = [
        "# Findings: defects of upstream gpu-to-llvm found by gpu-alloc-verify", "",
        _kind_summary(found), "",
        f"Generated by `gpu-alloc-verify findings` on {when}: "
        f"{', '.join(lowerings) or 'no mlir-opt'}; pipelines "
        f"{', '.join(f'`{p}`' for p in pipelines)}; {examples} generated programs per "
        "(version, pipeline)" + (f", the generator also drawing {generator}" if generator else "")
        + ".  Each finding is one root cause (triage signature, pipeline "
        "left out) with the versions and pipelines it was seen on, its minimal program and "
        "its lit test, proven before it was written: it fails on the tool that showed the "
        "bug, at the line that pins it, and passes on the fixed lowering `xdsl:reference` "
        "where that lowering takes the program.", "",
        f"{len(found)} finding(s).", "",
    ]
    for k, f in enumerate(found, 1):
        b = f.lead
        sig = b.signature
        test = next((tests[x.key] for x in f.buckets if x.key in tests
                     and tests[x.key].written), None) or tests.get(b.key)
        lines += [f"## {k}. {b.kind}: {test.slug if test else sig.slug()}", "",
                  f"- Kind: {b.kind}"
                  + (f" ({SEVERITY[b.severity]})" if b.kind == "defect" else "")
                  + f"; pass at fault: `{b.pass_name}`",
                  f"- Upstream: {_upstream_text(f)}",
                  f"- Rule broken: `{sig.invariant}`: {rule_of(sig.invariant) or ''}",
                  f"- Source ops: `{sig.source}`; lowered calls: `{sig.calls}`",
                  f"- Versions: {', '.join(f.lowerings())}",
                  f"- Pipelines: {', '.join(f'`{p}`' for p in f.pipelines())}",
                  f"- Programs: {_count_text(f)} (root cause "
                  f"{', '.join(x.key for x in f.buckets)})",
                  f"- Likely fix: {likely_fix(b)}"]
        if test is not None and test.written and test.path is not None:
            rel = _relative(test.path, out.parent)
            proof = test.proof.summary() if test.proof else ""
            lines.append(f"- Lit test: [{rel}]({rel}) ({proof})")
            where = (reproduced or {}).get(test.key)
            if where:
                def on(what: str, verdicts: dict[str, str] = where) -> str:
                    return ", ".join(s for s, v in verdicts.items() if v == what)

                lines.append("- The lit test fails (reproduces the bug) on: "
                             f"{on('fails') or 'none'}"
                             + (f"; passes on: {on('passes')}" if on("passes") else "")
                             + (f"; the tool rejects the program: {on('rejects')}"
                                if on("rejects") else ""))
        elif test is not None:
            lines.append(f"- Lit test: none ({' '.join(test.reason.split())[:300]})")
        for x in f.buckets:
            for m in x.merged:
                lines.append(f"- Same minimal program as: `{m.signature.slug()}` ({m.key})")
            for knock in x.knock_ons:
                lines.append(f"- Knock-on: `{knock.signature.slug()}` ({knock.key}, "
                             f"`{knock.signature.invariant}`, {knock.count} program(s))")
        # A defect's reproducer: its lit test's program, else triage's reduced one.
        program = (_program_of(test) if test is not None and test.written else "") or (
            program_text(b) if b.kind == "defect" else "")
        if program:
            lines += ["", "```mlir", program, "```"]
        lines.append("")
    if lit_dir is not None:
        rel = _relative(Path(lit_dir), out.parent)
        lines += [f"Run every lit test: `lit -v {rel}` (on the tool that showed the bugs), "
                  f"`lit -v {rel} --param lowering=xdsl:reference` (on the fix) or "
                  f"`--param lowering=mlir-opt-22` (another version).", ""]
    text = "\n".join(lines)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return text


def _kind_summary(found: list[Finding]) -> str:
    kinds = [f.lead.kind for f in found]
    knock = sum(len(x.knock_ons) for f in found for x in f.buckets)
    return (f"{kinds.count('defect')} defect(s), {kinds.count('limitation')} limitation(s) "
            f"(the pass declines an input, as upstream intends), {knock} knock-on(s) "
            "(listed under their cause).  Defects come first, by severity.")


def _upstream_text(f: Finding) -> str:
    refs: dict[str, dict[str, str]] = {}
    for x in f.buckets:
        for r in x.upstream:
            refs.setdefault(r["url"], r)
    return "; ".join(f"[{r['ref']}]({r['url']}) ({r['state']}, {r.get('relation', '')})"
                     for r in refs.values()) or "none known"


def _relative(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
