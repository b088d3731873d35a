"""The root-cause signature of one violation: (invariant, source-op pattern,
offending call pattern, lowering family).

Two violations with the same signature are the same bug seen twice: the
same rule broken by the same kind of source op, lowered to the same calls,
by the same tool family and pipeline.  The pattern keeps what upstream's
conversion patterns decide on (sync or async, how many dependencies,
host_shared, a 64-bit memset) and drops what they do not (names, sizes,
element types, which function, whether the op sits in a branch).  A leak is
named by the op where the handle was dropped.  One upstream cause is one
signature however it shows: an op left unconverted is named by the
precondition it fails (`verify.triage.kinds`), not its shape; a handle is
keyed on the mechanism that makes, records and destroys it and its kind,
not on the rule that saw the symptom (`MECHANISMS`): every stream destroyed
while its token (or an alias of it) is used again is one cause, and so is
every event `gpu.wait async [%t]` makes at %t's definition and destroys at
each wait, whether the rule saw it used after destroy, destroyed twice or
never destroyed (a wait in a loop or a branch).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any

from gpu_alloc_verify.verify.ir.ir_lines import Source, SrcOp, parse_source
from gpu_alloc_verify.verify.ir.text import (
    first_op_name,
    has_memory_space,
    mask_names,
    mask_types,
)
from gpu_alloc_verify.verify.lowerings.mlir_opt import top_level_passes
from gpu_alloc_verify.verify.model.op_specs import words as op_words_of
from gpu_alloc_verify.verify.model.roles import Roles
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.kinds import (
    PRECONDITIONS,
    REGION_SHARED,
    memset_64bit,
    precondition,
)
from gpu_alloc_verify.verify.triage.offending import Offense, offense, roles

CAST = "builtin.unrealized_conversion_cast"

Record = dict[str, Any]

# The head of a slug (`Signature.slug`) where it is not the invariant's ID.
_SHORT: dict[str, str] = {
    InvariantId.STREAM_NO_LEAK: "stream-leak",
    InvariantId.EVENT_NO_LEAK: "event-leak",
    InvariantId.STREAM_NO_USE_AFTER_DESTROY: "use-after-destroy",
    InvariantId.SYNC_ALLOC_NO_STREAM: "sync-alloc-stream",
    InvariantId.LOWERING_COMPLETE: "unconverted",
    InvariantId.LOWERING_NO_CRASH: "crash",
}


# Handle mechanisms of upstream's gpu-to-llvm (GPUToLLVMConversion.cpp, 16 to
# 22): focus -> (source pattern, call pattern, slug).  A sync `gpu.wait`
# destroys the stream of each token it waits on, and an async op with one
# dependency returns that dependency's stream as its own token, so a stream
# is destroyed while a token that is it (the same or an alias) is still used.
# `gpu.wait async [%t]` creates and records %t's event right after %t's
# definition but destroys it at the wait, so a wait run other than once (in
# a loop, in a branch, or a token waited on twice) breaks it.
STREAM_ALIAS = "stream destroyed at a wait while a token that is it is used again"
EVENT_AT_DEF = "event made at the token's definition, destroyed at each wait on it"
MECHANISMS: dict[str, tuple[str, str, str]] = {
    STREAM_ALIAS: ("async op [%t] whose token is %t's stream; gpu.wait on each token",
                   "mgpuStreamDestroy at a wait -> the stream used or destroyed again",
                   "stream-destroyed-while-aliased"),
    EVENT_AT_DEF: ("gpu.wait async [%t] (event made where %t is defined)",
                   "mgpuEventCreate, mgpuEventRecord at %t -> mgpuEventDestroy at each wait",
                   "event-destroyed-at-each-wait"),
}


WAIT_ASYNC_DEP = "gpu.wait async [%t]"
# gpu.alloc / gpu.dealloc of a memref in a non-zero memory space: (source, calls).
GPU_SPACE = ("gpu.alloc or gpu.dealloc in memory space",
             "the runtime's !llvm.ptr meets the memref's !llvm.ptr<N> uncast: invalid IR")


@dataclass(frozen=True)
class Signature:
    invariant: str
    source: str  # e.g. "gpu.wait async -> gpu.wait async [%t]"
    calls: str  # e.g. "mgpuStreamCreate -> mgpuEventRecord; never destroyed"
    family: str  # e.g. "mlir-opt (gpu-to-llvm)"
    focus: str = ""  # the source op form the bug is named after

    @property
    def key(self) -> str:
        """A short stable id: the same signature gives the same key on every run."""
        text = json.dumps([self.invariant, self.source, self.calls, self.family])
        return "b" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]

    def slug(self) -> str:
        """A file name stem after the root cause, e.g. `stream-leak-wait-async-dep`."""
        head = _SHORT.get(self.invariant, self.invariant)
        if self.focus in MECHANISMS:
            return MECHANISMS[self.focus][2]
        if self.invariant == InvariantId.LOWERING_COMPLETE and self.focus in PRECONDITIONS:
            return self.focus if self.focus == REGION_SHARED else f"{head}-{self.focus}"
        if self.invariant == InvariantId.LOWERING_NO_CRASH and self.focus == GPU_SPACE[0]:
            return "invalid-ir-alloc-dealloc-memory-space"
        if self.invariant == InvariantId.LOWERING_NO_CRASH and self.focus:
            op = self.focus.replace(" in memory space", "")
            # A gpu op by its name alone (`alloc`), another by dialect too.
            name = op_words(op).split("-")[0] if op.startswith("gpu.") else \
                op.replace(".", "-").replace("_", "-")
            return "invalid-ir-" + name + ("-memory-space" if "memory space" in self.focus
                                           else "")
        if self.invariant == InvariantId.RUNTIME_CONTRACT and self.focus == "stream handle":
            return "stream-as-event"
        if self.invariant == InvariantId.DIFFERENTIAL:
            return head + "-" + re.sub(r"[^a-z0-9]+", "-", self.calls.rsplit(" in ", 1)[-1])
        words = op_words(self.focus or self.source.split(" -> ")[-1])
        return "-".join(w for w in [head, words] if w)

    def to_json(self) -> dict[str, str]:
        out = asdict(self)
        out["key"] = self.key
        return out


def op_form(op: SrcOp | None, with_nesting: bool = False, one_dep: bool = False) -> str:
    """The abstract form of a source op: `gpu.alloc async [%t] host_shared`.

    `one_dep`: dependencies only as "exactly one" or not (`[!=1 deps]`), the
    test upstream's conversion patterns make before converting an op."""
    if op is None:
        return "?"
    named = op_words_of(op.name)
    if named != op.name:  # a host access: named in words (`verify.model.op_specs`)
        form = named
    else:
        form = op.name + (" async" if op.is_async else "")
        n = len(op.deps)
        if op.name == "gpu.wait":
            form += " [%t]" if n else ""
        elif one_dep and op.is_async:
            form += " [%t]" if n == 1 else " [!=1 deps]"
        elif n:
            form += " [%t]" if n == 1 else " [%t, %t]"
        if op.host_shared:
            form += " host_shared"
        if memset_64bit(op):
            form += " (64-bit)"
    if with_nesting and op.nesting:
        form = f"in {op.nesting[-1]}: {form}"
    return form


def op_words(form: str) -> str:
    """`gpu.wait async [%t]` -> `wait-async-dep`; `gpu.alloc` -> `alloc-sync`."""
    words: list[str] = []
    m = re.match(r"in (scf\.\w+|cf\.\w+): (.*)$", form)
    if m:
        form = m.group(2)
    base = form.split(" ")[0]
    if form.startswith("host "):
        words += ["host", form.split(" ")[1]]
    elif base == "?":
        words.append("unknown-op")
    else:
        words.append(base.split(".", 1)[-1].replace("_", "-"))
        is_async = " async" in form
        deps = 2 if "[%t, %t]" in form else 1 if "[%t]" in form else 0
        if is_async:
            words.append("async")
            words.append("not-one-dep" if "[!=1 deps]" in form else
                         {0: "no-dep", 1: "dep", 2: "2deps"}[deps])
        else:
            words.append("sync")
            if deps and base != "gpu.wait":
                words.append({1: "dep", 2: "2deps"}[deps])
        if "host_shared" in form:
            words.append("host-shared")
        if "(64-bit)" in form:
            words.append("64bit")
    if m:
        words.append("in-" + m.group(1).split(".")[-1].replace("_", "-"))
    return "-".join(words)


def family(lowering: str, pipeline: str) -> str:
    """`mlir-opt` (any version or build) or the xDSL variant, with the pipeline's
    host passes (passes nested in `gpu.module(...)` touch kernels only)."""
    tool = "mlir-opt" if lowering.startswith("mlir-opt") else lowering
    host = [p for p in top_level_passes(pipeline or "gpu-to-llvm")
            if not p.startswith("gpu.module(")]
    return f"{tool} ({','.join(host) or pipeline})"


def _dedupe(items: list[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if not out or out[-1] != item:
            out.append(item)
    return out


def signature_of(record: Record, pipeline: str | None = None) -> Signature:
    """The signature of a violation record (`--json` shape, with `program` and
    `lowered`); `pipeline` defaults to the record's own."""
    invariant = str(record.get("invariant") or "?")
    lowering = str(record.get("lowering") or "?")
    pipe = pipeline or str(record.get("pipeline") or "gpu-to-llvm")
    src = parse_source(str(record.get("program") or ""))
    fam = family(lowering, pipe)
    cex = record.get("counterexample")
    cex = cex if isinstance(cex, dict) else {}
    if invariant == InvariantId.LOWERING_NO_CRASH:
        return _crash(record, cex, src, fam)
    said = roles(record)
    if invariant == InvariantId.RUNTIME_CONTRACT and said.given == "stream" \
            and said.expected == "event":
        # Whichever op awaits it, the cause is one: a token that is a stream
        # reaches an event call (a token carried through control flow).
        return Signature(invariant, "any stream handle", "stream given to an event call",
                         fam, "stream handle")
    if invariant == InvariantId.DIFFERENTIAL and isinstance(cex.get("differences"), list):
        diffs = ", ".join(sorted(str(d) for d in cex["differences"]))
        return Signature(invariant, "?", f"lowered outcome differs in {diffs}", fam,
                         f"? {diffs}")
    if invariant == InvariantId.EVENT_NO_LEAK:
        return mechanism(EVENT_AT_DEF, fam)
    off = offense(record)
    if invariant == InvariantId.STREAM_NO_LEAK and off.handle:
        return _leak(invariant, src, off, cex, fam)
    if invariant == InvariantId.STREAM_NO_USE_AFTER_DESTROY:
        return _use_after_destroy(off, record, fam)
    if invariant == InvariantId.LOWERING_COMPLETE:
        return _unconverted(src, off, pipe, fam)
    forms = _dedupe([op_form(src.by_id(op)) for op in off.source_ops][:4]) or ["?"]
    calls = _dedupe([c for c in off.pattern() if c != CAST])[:6]
    if invariant == InvariantId.HOST_SHARED_FLAG:
        expected = cex.get("expected_flag")
        calls.append(f"flag != {expected}" if expected is not None else "no flag")
    if not calls and invariant in (InvariantId.DIFFERENTIAL, InvariantId.ASYNC_ORDER,
                                   InvariantId.RUNTIME_CONTRACT):
        calls = [mask_names(str(record.get("detail") or ""))[:120]]
    focus = forms[0] if invariant != InvariantId.ASYNC_ORDER else forms[-1]
    return Signature(invariant, " -> ".join(forms), " -> ".join(calls) or "none", fam, focus)


def _crash(record: Record, cex: Record, src: Source, fam: str) -> Signature:
    """Invalid IR is named after the verifier's complaint (types and numbers
    dropped) and the op it is at; a crash or hang, after its first line."""
    detail = str(record.get("detail") or "")
    said = Roles.from_counterexample(cex)
    if said.error is not None:
        reason = mask_names(mask_types(said.error))[:120]
        at = said.error_at or ""
        op = src.by_id(at) if at else None
        program = str(record.get("program") or "")
        line = op.text if op is not None else _line_of(program, at)
        inserted = "insertvalue" in said.error
        if "ptr<" in said.error and (not line or inserted and (op is None
                                                               or op.name != "gpu.alloc")):
            # A pointer of another address space inserted into a descriptor:
            # the alloc's, wherever the verifier says (a use of the memref,
            # a location of a split batch).  Given to a call at no location
            # that maps: the dealloc's (gpu's, else memref's).
            wanted = ("gpu.alloc",) if inserted else ("gpu.dealloc",)
            op = next((o for o in src.ops if o.name in wanted and has_memory_space(o.text)),
                      None)
            line = op.text if op is not None else next(
                (ln for ln in program.splitlines() if "memref.dealloc" in ln
                 and has_memory_space(ln)), "") if "llvm.call" in said.error else ""
        form = op.name if op is not None else first_op_name(line) or "?"
        if has_memory_space(line):
            form += " in memory space"
            if form.startswith(("gpu.alloc ", "gpu.dealloc ")):
                # One mechanism, one fix: the runtime's pointer (address
                # space 0) is never cast to or from the memref's space,
                # whether the alloc's descriptor or the dealloc's free sees it.
                return Signature(InvariantId.LOWERING_NO_CRASH, GPU_SPACE[0], GPU_SPACE[1],
                                 fam, GPU_SPACE[0])
        return Signature(InvariantId.LOWERING_NO_CRASH, form, reason, fam, form)
    first = str(cex.get("diagnostics") or detail).strip().splitlines()
    reason = mask_names(first[0])[:120] if first else "?"
    return Signature(InvariantId.LOWERING_NO_CRASH, "?", reason, fam)


def _line_of(text: str, loc: str) -> str:
    """The line of `text` carrying `loc("<loc>")` (the reader of gpu ops does
    not keep a host op such as memref.dealloc), or ""."""
    tag = f'loc("{loc}")'
    return next((ln for ln in text.splitlines() if tag in ln), "") if loc else ""


def _unconverted(src: Source, off: Offense, pipeline: str, fam: str) -> Signature:
    """Named after the precondition upstream's pattern does not take (one entry
    per precondition: a sync alloc and a sync memset are one limitation)."""
    ops = [src.by_id(op) for op in off.source_ops] or [None]
    cause = precondition(ops[0], top_level_passes(pipeline))
    return Signature(InvariantId.LOWERING_COMPLETE, PRECONDITIONS[cause], "left unconverted", fam,
                     cause)


def _leak(invariant: str, src: Source, off: Offense, cex: Record, fam: str) -> Signature:
    """A stream leak, named after the op where the handle was last used
    (dropped); where it sits (in a branch or not) does not matter.  Destroyed
    twice is the destroyed-while-aliased stream the use-after-destroy rule
    names."""
    count = Roles.from_counterexample(cex).destroy_count
    if count is not None and count > 1:
        return mechanism(STREAM_ALIAS, fam)
    creator = src.by_id(off.creator) if off.creator else None
    last = off.calls[-1] if off.calls else None
    dropper = src.by_id(last.loc) if last is not None and last.loc else None
    form = op_form(dropper or creator)
    fate = "never destroyed" if count == 0 else "not destroyed exactly once"
    calls = [off.calls[0].callee if off.calls else "?"]
    if last is not None and last is not off.calls[0]:
        calls.append(last.callee)
    if count == 0 and calls[-1] == "mgpuEventRecord":
        # Dropped once an event is recorded on it: `gpu.wait async [%t]`'s
        # leak of %t's stream, whichever op of the source that wait is (a
        # pass before gpu-to-llvm, gpu-async-region, may have made it).
        form = WAIT_ASYNC_DEP
    return Signature(invariant, form, f"{' -> '.join(calls)}; {fate}", fam, form)


def mechanism(focus: str, fam: str) -> Signature:
    """The one signature of a handle mechanism (`MECHANISMS`), whichever rule
    saw it: keyed as a use after destroy, its most severe symptom."""
    source, calls, _ = MECHANISMS[focus]
    return Signature(InvariantId.STREAM_NO_USE_AFTER_DESTROY, source, calls, fam, focus)


def _use_after_destroy(off: Offense, record: Record, fam: str) -> Signature:
    """Named after the handle kind's mechanism: what follows the destroy
    (destroyed again, or used again), which ops destroy and use it, and where,
    vary with the program, not with the cause."""
    kind = roles(record).kind or off.kind or "stream"
    return mechanism(EVENT_AT_DEF if kind == "event" else STREAM_ALIAS, fam)
