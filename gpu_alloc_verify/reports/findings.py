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

from gpu_alloc_verify.verify.ir.upstream_shape import shaped
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
from gpu_alloc_verify.verify.triage.signature import (
    EVENT_AT_DEF,
    MECHANISMS,
    STREAM_ALIAS,
    Signature,
)

if TYPE_CHECKING:  # the tests are made by `repro`; this only renders them
    from gpu_alloc_verify.repro.export import LitTest
    from gpu_alloc_verify.verify.triage.attribution import Attribution


@dataclass
class Finding:
    buckets: list[Bucket] = field(default_factory=list)
    # Knock-ons of these buckets whose cause is a defect entry's: listed there.
    moved: set[str] = field(default_factory=set)
    # A knock-on listed here -> the other limitations it also follows from.
    also: dict[str, list[str]] = field(default_factory=dict)

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
    """Buckets grouped by cause (invariant, source pattern, call pattern),
    defects by severity then limitations, most programs first.  A knock-on of
    one campaign whose cause is a defect of another (a program that also
    left an op unconverted) is that defect, not a second entry under the
    limitation: one cause, one entry."""
    groups: dict[tuple[str, str, str], Finding] = {}
    for b in triage.buckets:
        sig = b.signature
        if not sig.family.startswith("mlir-opt"):
            continue  # the catalogue is about real upstream tools
        groups.setdefault(cause(sig), Finding()).buckets.append(b)
    for f in list(groups.values()):
        for b in list(f.buckets):
            for knock in b.knock_ons:
                home = groups.get(cause(knock.signature))
                if home is not None and home.lead.kind == "defect":
                    home.buckets.append(knock)  # listed there, not under `b`
                    f.moved.add(knock.key)
    # Defects first by severity, then limitations (knock-ons sit under a lead).
    found = sorted(groups.values(), key=lambda f: (KIND_ORDER.get(f.lead.kind, 9),
                                                   f.lead.severity, -f.count, f.lead.key))
    # A knock-on cause under several limitations is listed once, under the
    # first, which names the others.
    first: dict[tuple[str, str, str], tuple[Finding, Bucket]] = {}
    for f in found:
        for b in f.buckets:
            for knock in b.knock_ons:
                if knock.key in f.moved:
                    continue
                kept = first.setdefault(cause(knock.signature), (f, knock))
                if kept[1] is not knock:
                    f.moved.add(knock.key)
                    kept[0].also.setdefault(kept[1].key, []).append(
                        f"`{f.lead.signature.slug()}` ({knock.count} program(s))")
    return found


def cause(sig: Signature) -> tuple[str, str, str]:
    """A root cause across versions and pipelines: the signature without its family."""
    return (sig.invariant, sig.source, sig.calls)


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
                "that stream: destroy it (`mgpuStreamDestroy`) after the last use of %t, not "
                "at the `gpu.wait async` itself (an existing case of "
                "lower-wait-to-gpu-runtime-calls.mlir waits on %t again, which that would "
                "make a double destroy).")
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
              generator: str = "", attribute: bool = True) -> str:
    """The catalogue as markdown (also returned); links are relative to `out_file`.
    `generator` says what the campaigns drew beyond the default (e.g. "tokens
    through control flow, allocs in memory space 1").  `attribute`: measure
    each root cause's versions, pass and component on its reproducer
    (`verify.triage.attribution`: runs every installed mlir-opt)."""
    out = Path(out_file)
    when = datetime.now(tz=timezone.utc).strftime("%Y-%m-%d")  # noqa: UP017
    found = findings_of(triage)
    measured = attribute_findings(found) if attribute else {}
    lines = [
        "# Findings: defects of upstream GPU lowering found by gpu-alloc-verify", "",
        _kind_summary(found), "",
        f"Generated by `gpu-alloc-verify findings` on {when}: "
        f"{', '.join(lowerings) or 'no mlir-opt'}; {_pipelines_text(pipelines, found)}; "
        f"{examples} generated programs per campaign"
        + (f", the generator also drawing {generator}" if generator else "")
        + ".  Each entry is one root cause, keyed on the mechanism that makes, records "
        "and destroys a handle (or on the precondition a pattern does not take), never on "
        "the symptom.  Versions, pass and component are measured on the reduced "
        "reproducer shown: it is run on every installed `mlir-opt-N`, and through the "
        "pipeline prefix by prefix.", "",
    ]
    defects = [f for f in found if f.lead.kind == "defect"]
    limits = [f for f in found if f.lead.kind != "defect"]
    lines += ["## Defects", ""]
    for k, f in enumerate(defects, 1):
        lines += _defect_entry(k, f, tests, out, measured, reproduced or {})
    lines += ["## Limitations", "",
              "The pass declines an input whose precondition its pattern does not take, as "
              "upstream intends (it leaves the op while it reports success).  Each lists the "
              "precondition; what follows from the op left behind is a knock-on under it.", ""]
    for k, f in enumerate(limits, len(defects) + 1):
        lines += _limitation_entry(k, f, measured)
    if lit_dir is not None:
        rel = _relative(Path(lit_dir), out.parent)
        lines += [f"Run every lit test: `lit -v {rel}` (on the tool that showed the bugs), "
                  f"`lit -v {rel} --param lowering=xdsl:reference` (on the fix) or "
                  f"`--param lowering=mlir-opt-22` (another version).", ""]
    text = "\n".join(lines)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return text


def _pipelines_text(pipelines: list[str], found: list[Finding]) -> str:
    """The campaigns' pipelines; for the portfolio, those its programs showed
    a root cause under."""
    from gpu_alloc_verify.verify.lowerings.portfolio import PORTFOLIO

    if pipelines != [PORTFOLIO]:
        return "one campaign per version and pipeline, " + ", ".join(f"`{p}`" for p in pipelines)
    seen = list(dict.fromkeys(p for f in found for p in f.pipelines()))
    return ("one campaign per version over the pipeline portfolio (each program through one "
            "of the pipelines users run; root causes showed under "
            + ", ".join(f"`{p}`" for p in seen) + ")")


def attribute_findings(found: list[Finding]) -> dict[str, Attribution]:
    """Bucket key -> its attribution, measured on its reproducer (the reduced
    program, else its smallest example) for every bucket of every finding."""
    from gpu_alloc_verify.verify.triage.attribution import attribute, installed

    versions = installed()
    out: dict[str, Attribution] = {}
    for f in found:
        for b in f.buckets:
            ex = b.example or {}
            text = b.reduced or str(ex.get("program") or "")
            spec = str(ex.get("lowering") or "")
            pipeline = str(ex.get("pipeline") or _pipeline_of(b))
            if text and spec:
                out[b.key] = attribute(text, b.signature, pipeline, spec, versions)
    return out


def _pipeline_of(b: Bucket) -> str:
    m = re.match(r"^[^(]*\((.*)\)$", b.signature.family)
    return m.group(1) if m else "gpu-to-llvm"


def _versions_text(f: Finding, measured: dict[str, Attribution]) -> str:
    """Where the reproducers reproduce, re-checked; where campaigns saw it."""
    said: dict[str, str] = {}
    for b in f.buckets:
        a = measured.get(b.key)
        for version, verdict in (a.versions.items() if a is not None else []):
            if said.get(version) != "reproduces":
                said[version] = verdict
    seen = ", ".join(f.lowerings())
    if not said:
        return f"seen on {seen} (not re-checked)"
    yes = [v for v, x in said.items() if x == "reproduces"]
    no = [v for v, x in said.items() if x != "reproduces"]
    return (f"reproduces on {', '.join(yes) or 'none'}"
            + (f"; not on {', '.join(no)}" if no else "")
            + f" (the reproducer re-checked on every installed mlir-opt; campaigns saw it on "
              f"{seen})")


def _pass_lines(f: Finding, measured: dict[str, Attribution]) -> list[str]:
    """The pass at fault per pipeline, and the component (source file)."""
    from gpu_alloc_verify.verify.triage.attribution import SOURCES

    lines: list[str] = []
    components: list[str] = []
    for b in f.buckets:
        a = measured.get(b.key)
        if a is None:
            continue
        line = f"  - with `{a.pipeline}`: {a.pass_text()}"
        if line not in lines:
            lines.append(line)
        name = a.component or a.first_pass
        if name is not None and name in SOURCES and SOURCES[name] not in components:
            components.append(SOURCES[name])
        for shape in a.shape_from:
            if shape in SOURCES and SOURCES[shape] not in components:
                components.append(SOURCES[shape])
    if not lines:
        return [f"- Pass: `{f.lead.pass_name}` (not measured)"]
    return (["- Pass (measured, the pipeline run prefix by prefix):"] + lines
            + ([f"- Component: {', '.join(f'`{c}`' for c in components)}"] if components
               else []))


def _rules_text(f: Finding) -> str:
    rules: list[str] = []
    for b in f.buckets:
        for x in [b, *b.merged]:
            for rec in x.examples:
                rule = str(rec.get("invariant") or x.signature.invariant)
                if rule not in rules:
                    rules.append(rule)
    return ", ".join(f"`{r}` ({rule_of(r) or ''})" for r in rules)


def _defect_entry(k: int, f: Finding, tests: dict[str, LitTest], out: Path,
                  measured: dict[str, Attribution],
                  reproduced: dict[str, dict[str, str]]) -> list[str]:
    b = f.lead
    sig = b.signature
    test = next((tests[x.key] for x in f.buckets if x.key in tests
                 and tests[x.key].written), None) or tests.get(b.key)
    lines = [f"### {k}. {sig.slug()}", "",
             f"- Mechanism: {_mechanism_text(sig)}",
             f"- Severity: {SEVERITY[b.severity]}; rules that see it: {_rules_text(f)}",
             f"- Versions: {_versions_text(f, measured)}",
             *_pass_lines(f, measured),
             f"- Upstream: {_upstream_text(f)}",
             f"- Campaigns: {_count_text(f)} program(s) on "
             f"{', '.join(f'`{p}`' for p in f.pipelines())} (root cause "
             f"{', '.join(x.key for x in f.buckets)})",
             f"- Likely fix: {likely_fix(b)}"]
    if test is not None and test.written and test.path is not None:
        rel = _relative(test.path, out.parent)
        proof = test.proof.summary() if test.proof else ""
        from gpu_alloc_verify.verify.ir.upstream_shape import upstream_file

        lines.append(f"- Test case: [{rel}]({rel}), a `-split-input-file` case for upstream's "
                     f"`{upstream_file(sig.slug(), b.pass_name)}` ({proof})")
        where = reproduced.get(test.key)
        if where:
            fails = ", ".join(s for s, v in where.items() if v == "fails")
            lines.append(f"- The test fails (shows the defect) on: {fails or 'none'}")
    elif test is not None:
        why = " ".join(test.reason.split())[:300]
        lines.append(f"- Test case: none derived here ({why}); the patch's test case below "
                     "pins it" if patch_text(f, out.parent) != "none yet"
                 else f"- Test case: none ({why})")
    lines.append(f"- Patch: {patch_text(f, out.parent)}")
    for x in f.buckets:
        for m in x.merged:
            lines.append(f"- Same reduced program as: `{m.signature.slug()}` ({m.key})")
        lines += _knock_on_lines(f, x)
    program = (_program_of(test) if test is not None and test.written else "") or \
        shaped(program_text(b), sig.slug(), keep_space=True).rstrip()
    if program:
        lines += ["", "Reproducer (reduced):", "", "```mlir", program, "```"]
    return [*lines, ""]


def _limitation_entry(k: int, f: Finding, measured: dict[str, Attribution]) -> list[str]:
    b = f.lead
    sig = b.signature
    lines = [f"### {k}. {sig.slug()}", "",
             f"- Precondition not taken: {sig.source}",
             f"- Pass: `{b.pass_name}`",
             f"- Versions: {_versions_text(f, measured)}",
             f"- Upstream: {_upstream_text(f)}",
             f"- Campaigns: {_count_text(f)} program(s) on "
             f"{', '.join(f'`{p}`' for p in f.pipelines())} (root cause "
             f"{', '.join(x.key for x in f.buckets)})",
             f"- Likely fix: {likely_fix(b)}"]
    for x in f.buckets:
        lines += _knock_on_lines(f, x)
    return [*lines, ""]


def _knock_on_lines(f: Finding, b: Bucket) -> list[str]:
    """`b`'s knock-ons, those a defect entry took in left out."""
    return [f"  - knock-on: `{k.signature.slug()}` ({k.key}, `{k.signature.invariant}`, "
            f"{k.count} program(s)): follows from the op this leaves unconverted"
            + (f"; also under {', '.join(f.also[k.key])}" if k.key in f.also else "")
            for k in b.knock_ons if k.key not in f.moved]


def _mechanism_text(sig: Signature) -> str:
    """How the handle is made, recorded and destroyed (or what the pattern does)."""
    if sig.focus in MECHANISMS:
        source, calls, _ = MECHANISMS[sig.focus]
        return f"{sig.focus}: source `{source}`; lowered `{calls}`"
    return f"source `{sig.source}`; lowered `{sig.calls}`"


def patch_text(f: Finding, base: Path) -> str:
    """Part of the patches folder (`patches/<version>/<slug>.patch`) for the
    finding's upstream cause, with its proof status where one is recorded."""
    patch = next((r.get("patch") for x in f.buckets for r in x.upstream if r.get("patch")),
                 None) or _patch_of(f)
    if patch is None:
        return "none yet"
    root = _repo_root()
    found = sorted(root.glob(f"patches/*/{patch}.patch"))
    if not found:
        return "none yet"
    links = ", ".join(f"[{p.relative_to(root).as_posix()}]({_relative(p, base)})"
                      for p in found)
    test = root / "patches" / "tests" / f"{patch}.mlir"
    if test.is_file():
        links += f"; its test case in upstream's shape: [{test.relative_to(root).as_posix()}]" \
                 f"({_relative(test, base)})"
    return links + "; proof: " + _proof_status(root, patch, base)


def _patch_of(f: Finding) -> str | None:
    from gpu_alloc_verify.verify.triage.upstream import patch_of

    for x in f.buckets:
        found = patch_of(x.signature, x.kind, x.pass_name)
        if found is not None:
            return found
    return None


def _proof_status(root: Path, patch: str, base: Path) -> str:
    """The proof `scripts/prove_patches.py --report docs/patches.md` recorded
    for `patch`: per version, its table's cells (fails on stock, passes
    patched, existing tests pass)."""
    table = root / "docs" / "patches.md"
    rows: list[str] = []
    if table.is_file():
        for line in table.read_text(encoding="utf-8").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 5 and cells[0] == f"`{patch}`":
                rows.append(f"{cells[1]}: fails on stock {cells[2]}, passes patched "
                            f"{cells[3]}, existing tests pass {cells[4]}")
    if rows:
        return "; ".join(rows) + f" ([docs/patches.md]({_relative(table, base)}))"
    return "not recorded here: `scripts/prove_patches.py --report docs/patches.md` " \
           "(needs libmlir-N-dev)"


def _repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def _kind_summary(found: list[Finding]) -> str:
    kinds = [f.lead.kind for f in found]
    knock = sum(len(x.knock_ons) for f in found for x in f.buckets)
    return (f"{kinds.count('defect')} defect(s), {kinds.count('limitation')} limitation(s) "
            f"(the pass declines an input, as upstream intends), {knock} knock-on(s) "
            "(listed under their cause).  Defects come first, by severity, then "
            "limitations.")


def _upstream_text(f: Finding) -> str:
    refs: dict[str, dict[str, str]] = {}
    for x in f.buckets:
        for r in x.upstream:
            refs.setdefault(r["url"], r)
    return "; ".join(f"[{r['ref']}]({r['url']}) ({r['state']}, {r.get('relation', '')})"
                     for r in refs.values()) or "none known"


def _relative(path: Path, base: Path) -> str:
    """`path` as a link from `base` (`../patches/...` from docs/)."""
    import os

    try:
        return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()
    except ValueError:  # another drive
        return path.as_posix()
