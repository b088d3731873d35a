"""A root cause as a lit test that stands review.

For each triage bucket: its example program is reduced while the violation
keeps its signature (`verify.triage.reduce`), harness noise is dropped (locations,
unused constants, arguments and functions), and FileCheck lines in custom
form are derived from the buggy and the fixed lowering's outputs
(`repro.checks`).  Before the file is written the test is proven not
vacuous (`repro.proof`): it fails on the buggy lowering at a defect
line, the defect is in that output, and it passes on the fixed lowering
(`xdsl:reference` unless another is named).  The file is named after the
root cause (`stream-leak-wait-async-dep.mlir`); `lit.cfg.py` beside it runs
the tests with `lit -v DIR` (on the buggy tool), `--param lowering=SPEC`
names another (`xdsl:reference`, `mlir-opt-22`, a path).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gpu_alloc_verify.repro.checks import plans_for
from gpu_alloc_verify.repro.lit_config import write_lit_config
from gpu_alloc_verify.repro.order import edge_sentence
from gpu_alloc_verify.repro.plan import Directive, Plan
from gpu_alloc_verify.repro.proof import (
    Lowered,
    Proof,
    find_filecheck,
    lower_for_test,
    prove,
    run_filecheck,
    tool_path,
)
from gpu_alloc_verify.verify.invariants.common import describe_path
from gpu_alloc_verify.verify.ir.ir_lines import parse_source, strip_locs
from gpu_alloc_verify.verify.ir.locations import plain_name_locs
from gpu_alloc_verify.verify.ir.text import (
    first_func_arg_names,
    func_header,
    rename_numbered_args,
    replace_op_keys,
)
from gpu_alloc_verify.verify.ir.upstream_shape import run_line, shaped, upstream_file
from gpu_alloc_verify.verify.model.errors import EnvironmentProblem, GpuAllocVerifyError
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.tools.commands import lit_run_line, lit_run_pipeline
from gpu_alloc_verify.verify.triage.buckets import Bucket, Record
from gpu_alloc_verify.verify.triage.offending import counterexample, offense, roles
from gpu_alloc_verify.verify.triage.reduce import host_buffers, reduce_text, signature_predicate
from gpu_alloc_verify.verify.triage.rejudge import Settings, lowering_for, rejudge
from gpu_alloc_verify.verify.triage.signature import op_form, signature_of

DEFAULT_FIXED = "xdsl:reference"  # calls only functions the runtimes export
# An upper-case word before ':' could read as a lit or FileCheck directive.
_DIRECTIVE_LIKE = re.compile(r"([A-Z][A-Z0-9_]*(?:-[A-Z0-9]+)*)(:|(?<=END)\.)")


@dataclass
class LitTest:
    key: str
    slug: str
    path: Path | None = None  # None: not written (see reason)
    text: str = ""
    reduced: str = ""
    proof: Proof | None = None
    plan: str = ""
    reason: str = ""
    tried: list[str] = field(default_factory=list)

    @property
    def written(self) -> bool:
        return self.path is not None


def _one_line(text: object) -> str:
    return _DIRECTIVE_LIKE.sub(r"\1 \2", " ".join(str(text).split()))


def lit_pipeline(pipeline: str, program: str) -> str:
    """The campaign's pipeline without passes nested in gpu.module when the
    program has no gpu.module (their output is the same then)."""
    if "gpu.module" in program:
        return pipeline
    from gpu_alloc_verify.verify.lowerings.mlir_opt import top_level_passes

    kept = [p for p in top_level_passes(pipeline) if not p.startswith("gpu.module(")]
    return ",".join(kept) or pipeline


def _source_names(record: Record, text: str) -> str:
    """Argument N as the source names it: `%argN` of a lowered function, or
    the model's `%condN` / `%sizeN` / `%xN` / `%bufN` of a re-read text (the
    reader numbers arguments by position, the text's own names being lost to
    the generic form)."""
    return rename_numbered_args(text, first_func_arg_names(str(record.get("program") or "")))


def summary_sentence(record: Record) -> str:
    """What is wrong, in one sentence, with source ops named by their form."""
    inv = str(record.get("invariant") or "")
    src = parse_source(str(record.get("program") or ""))
    off = offense(record)

    def form(op_id: str | None) -> str:
        op = src.by_id(op_id) if op_id else None
        return f"`{op_form(op)}`" if op is not None else "an op"

    if inv in (InvariantId.STREAM_NO_LEAK, InvariantId.EVENT_NO_LEAK) and off.calls:
        kind = "event" if inv == InvariantId.EVENT_NO_LEAK else "stream"
        last = off.calls[-1].loc
        path = counterexample(record).get("path")
        never = "never destroyed"
        if isinstance(path, dict) and path:  # the branch values the handle leaks on
            never = f"not destroyed {_source_names(record, describe_path(path))}"
        times = roles(record).destroy_count
        if times is not None and times >= 2:
            never = f"destroyed {times} times"
        return (f"the {kind} created for {form(off.creator)} is {never}"
                + (f"; {form(last)} is its last use" if last != off.creator else ""))
    if inv == InvariantId.ASYNC_ORDER:
        sentence = edge_sentence(record)
        if sentence is not None:
            return sentence
    if inv == InvariantId.LOWERING_COMPLETE and off.source_ops:
        return f"{form(off.source_ops[0])} is left unconverted although the lowering succeeds"
    detail = str(record.get("detail") or "")
    if inv == InvariantId.DIFFERENTIAL:
        detail = _source_names(record, detail)
    return replace_op_keys(detail, form).removesuffix(", " + describe_path({}))


def render(source: str, plan: Plan, header: list[str], prefix: str = "CHECK",
           anchors: dict[str, int] | None = None) -> tuple[str, set[int]]:
    """The test text and the 1-based lines of its defect directives.

    `anchors` (source op location id -> line of `source`): upstream's shape,
    each directive written just above the op it pins (where the plan's order
    allows: FileCheck reads them in file order, so none moves before one
    that precedes it), and no comment; without, every directive follows the
    function's CHECK-LABEL with its comment."""
    out = list(header)
    defects: set[int] = set()
    functions = parse_source(source).functions
    lines = source.rstrip("\n").splitlines()
    placed = _placed(lines, plan, functions, anchors) if anchors is not None else {}
    for i, line in enumerate(lines):
        for d in placed.get(i, []):
            pad = line[:len(line) - len(line.lstrip())]
            kind = f"-{d.kind}" if d.kind else ""
            out.append(f"{pad}// {prefix}{kind}: {d.pattern}")
            if d.defect:
                defects.add(len(out))
        head = func_header(line)
        if head is not None and head[1] in functions:
            pad, func = head
            out.append(f"{pad}// {prefix}-LABEL: llvm.func @{func}(")
            for d in plan.lines.get(func, []) if anchors is None else []:
                if d.comment:
                    out.append(f"{pad}// {_one_line(d.comment)}")
                kind = f"-{d.kind}" if d.kind else ""
                out.append(f"{pad}// {prefix}{kind}: {d.pattern}")
                if d.defect:
                    defects.add(len(out))
        out.append(line)
    return "\n".join(out) + "\n", defects


def _placed(lines: list[str], plan: Plan, functions: object,
            anchors: dict[str, int]) -> dict[int, list[Directive]]:
    """Line index -> the directives written just above it."""
    placed: dict[int, list[Directive]] = {}
    for i, line in enumerate(lines):
        head = func_header(line)
        if head is None or head[1] not in plan.lines:
            continue
        end = _block_end(lines, i)
        ret = next((j for j in range(i + 1, end) if lines[j].strip().startswith("return")), end)
        pos = i + 1
        for d in plan.lines[head[1]]:
            at = _anchor(lines, anchors, d.at) if d.at else \
                ret if d.pattern == "llvm.return" else None
            if at is not None and pos < at < end:
                pos = at
            placed.setdefault(pos, []).append(d)
    return placed


def _anchor(lines: list[str], anchors: dict[str, int], at: str) -> int | None:
    """The line of op `at`; of `^at`, the line opening the region around it."""
    line = anchors.get(at.lstrip("^"))
    if line is None or not at.startswith("^"):
        return line
    depth = 0
    for j in range(line - 1, -1, -1):
        depth += lines[j].count("}") - lines[j].count("{")
        if depth < 0:
            return j
    return line


def _block_end(lines: list[str], start: int) -> int:
    depth = 0
    for j in range(start, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        if depth <= 0 and j > start:
            return j
    return len(lines) - 1


def anchors_of(program: str) -> dict[str, int]:
    """Source op location id (`op3`) -> its line in `program`."""
    out: dict[str, int] = {}
    for i, line in enumerate(program.splitlines()):
        for name in plain_name_locs(line):
            out.setdefault(name, i)
    return out


def _negated(plan: Plan) -> Plan:
    if plan.witness is not None:
        return Plan(plan.name, plan.witness)
    return Plan(plan.name, {f: [d.negated() if d.defect else d for d in ds]
                            for f, ds in plan.lines.items()})


def _header(bucket: Bucket, record: Record, pipeline: str, slug: str) -> list[str]:
    # Upstream's style: the RUN line and what the test pins; where it came
    # from goes in the README beside the export (write_provenance).
    return [
        lit_run_line(pipeline),
        "",
        f"// {_one_line(slug)}: {_one_line(summary_sentence(record))}.",
        "",
    ]


def run_pipeline(test_text: str) -> str:
    """The pipeline of a test's RUN line (`_header` writes it)."""
    return lit_run_pipeline(test_text)


def reproduced_on(test: LitTest, lowerings: list[str], filecheck: str) -> dict[str, str]:
    """Per lowering: "fails" (the test reproduces the bug there), "passes", or
    "rejects" (the tool refuses the program)."""
    out: dict[str, str] = {}
    pipeline = run_pipeline(test.text)
    for spec in lowerings:
        lowered = lower_for_test(spec, pipeline, test.reduced)
        out[spec] = "rejects" if not lowered.ok else \
            "passes" if run_filecheck(filecheck, test.text, lowered.text).ok else "fails"
    return out


def _judged(text: str, settings: Settings, invariant: str, key: str) -> Record | None:
    found = rejudge([text], ["reduced"], settings, [[invariant]])[0] or []
    return next((v for v in found if signature_of(v, settings.pipeline).key == key), None)


EXAMPLES_TRIED = 3


def export_bucket(bucket: Bucket, out_dir: str | Path, fixed: str | None = DEFAULT_FIXED,
                  filecheck: str | None = None, name: str | None = None,
                  reduce: bool = True, upstream: bool = True) -> LitTest:
    """Prove and write the lit test of one bucket (see the module docstring).

    The bucket's smallest examples are tried in turn; the first test proven
    to pass on the fixed lowering wins, else the first proven at all.
    `upstream`: bring the program to upstream's shape (`verify.ir.upstream_shape`:
    functions named after the root cause, no bare module, memory space 0);
    a user's own file keeps its names."""
    slug = name or bucket.signature.slug()
    filecheck = filecheck or find_filecheck()
    if filecheck is None:
        raise EnvironmentProblem("no FileCheck found: install LLVM's (apt-get install "
                                 "llvm-19-tools) or the Python port (pip install filecheck)")
    best: LitTest | None = None
    tried: list[str] = []
    for example in bucket.examples[:EXAMPLES_TRIED]:
        attempt = _attempt(bucket, example, fixed, filecheck, slug, reduce, upstream)
        tried += attempt.tried or [attempt.reason]
        if attempt.text and (best is None or not best.text):
            best = attempt
        if attempt.text and attempt.proof is not None and attempt.proof.passes_on_fixed:
            best = attempt
            break
        if best is None:
            best = attempt
    result = best or LitTest(bucket.key, slug, reason="the bucket has no example program")
    result.tried = tried
    if not result.text:
        result.reason = ("no check could be proven: " + " | ".join(tried)) if tried else \
            result.reason
        return result
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    result.path = out / f"{slug}.mlir"
    result.path.write_text(result.text, encoding="utf-8")
    return result


def _attempt(bucket: Bucket, example: Record, fixed: str | None, filecheck: str, slug: str,
             reduce: bool, upstream: bool = True) -> LitTest:
    sig = bucket.signature
    # The rule that saw it: a double destroy's signature is named for
    # use-after-destroy even when the leak rule reported it.
    seen_by = str(example.get("invariant") or sig.invariant)
    result = LitTest(bucket.key, slug)
    if not isinstance(example.get("program"), str):
        result.reason = "the example has no program text"
        return result
    buggy = str(example.get("lowering") or "")
    if fixed == buggy:
        fixed = None
    settings = Settings(buggy, str(example.get("pipeline") or "gpu-to-llvm"))
    try:
        lowering = lowering_for(settings)
        program = example["program"]
        if reduce:
            model_only = bool(fixed and fixed.startswith("xdsl:"))
            keeps = signature_predicate(settings, seen_by, bucket.key, lowering,
                                        model_only)
            if model_only and not keeps([program])[0]:
                modelled = host_buffers(program)
                if keeps([modelled])[0]:
                    program = modelled
                else:
                    keeps = signature_predicate(settings, seen_by, bucket.key, lowering)
            program = reduce_text(program, keeps)
        record = _judged(program, settings, seen_by, bucket.key)
    except GpuAllocVerifyError as e:
        result.reason = f"{buggy} is not available here: {e}"
        return result
    if record is None:
        result.reason = "the reduced program no longer shows the violation"
        return result
    try:
        # Upstream's shape, kept only where the violation stays.
        shape = shaped(program, slug, keep_space="memory-space" in slug) if upstream \
            else program
        again = _judged(shape, settings, seen_by, bucket.key) if shape != program else None
    except GpuAllocVerifyError:
        again = None
    if again is not None:
        program, record = shape, again
    pipeline = lit_pipeline(settings.pipeline, program)
    clean = strip_locs(program)
    result.reduced = clean
    b_loc = lower_for_test(buggy, pipeline, program, debuginfo=True)
    f_loc = lower_for_test(fixed, pipeline, program, debuginfo=True) if fixed else None
    if not b_loc.ok:
        result.reason = f"{buggy} does not lower the reduced program: {b_loc.error}"
        return result
    plans = plans_for(record, b_loc.text, f_loc.text if f_loc and f_loc.ok else None)
    if not plans:
        result.reason = "no check could be derived for this violation"
        return result
    b_run = lower_for_test(buggy, pipeline, clean)
    f_run: Lowered | None = lower_for_test(fixed, pipeline, clean) if fixed else None
    header = [run_line(pipeline), ""]  # upstream's: the RUN line, no prose
    anchors = anchors_of(program)
    for plan in plans:
        text, defects = render(clean, plan, header, anchors=anchors)
        witness, _ = render(clean, _negated(plan), header, anchors=anchors)
        proof = prove(filecheck, text, witness, defects, buggy, b_run, fixed, f_run)
        result.tried.append(f"{plan.name}: {proof.summary()}")
        if proof.proven:
            result.text = text
            result.proof, result.plan = proof, plan.name
            break
    return result


def unique_names(buckets: list[Bucket]) -> dict[str, str]:
    """Bucket key -> file stem: the slug, numbered when two buckets share one."""
    seen: dict[str, int] = {}
    names: dict[str, str] = {}
    for b in buckets:
        slug = b.signature.slug()
        seen[slug] = seen.get(slug, 0) + 1
        names[b.key] = slug if seen[slug] == 1 else f"{slug}-{seen[slug]}"
    return names


def export_buckets(buckets: list[Bucket], out_dir: str | Path,
                   fixed: str | None = DEFAULT_FIXED, reduce: bool = True) -> list[LitTest]:
    """A proven lit test per bucket, and lit.cfg.py, under out_dir."""
    names = unique_names(buckets)
    tests = [export_bucket(b, out_dir, fixed, name=names[b.key], reduce=reduce)
             for b in buckets]
    default = next((b.example.get("lowering") for b in buckets if b.example), None)
    if any(t.written for t in tests):
        write_lit_config(out_dir, str(default or "mlir-opt"))
        write_provenance(out_dir, buckets, tests)
    return tests


def write_provenance(directory: str | Path, buckets: list[Bucket],
                     tests: list[LitTest]) -> Path:
    """directory/README.md: where each test came from and how it was proven
    (kept out of the tests themselves, as upstream's carry no tool's name)."""
    by_key = {b.key: b for b in buckets}
    lines = ["# Lit tests exported by gpu-alloc-verify", "",
             "Each test is the minimal reproducer of one root cause found by "
             "`gpu-alloc-verify`, reduced and proven: it fails on the lowering that "
             "has the bug, for the reason its CHECK lines state, and passes on a "
             "reference lowering that calls only functions the runtime defines.", ""]
    for t in tests:
        if not t.written or t.path is None:
            continue
        b = by_key.get(t.key)
        seen = ", ".join(b.lowerings) if b else "?"
        inv = b.signature.invariant if b else "?"
        proof = t.proof.summary() if t.proof is not None else "not proven"
        home = upstream_file(t.slug, b.pass_name if b else "gpu-to-llvm")
        lines.append(f"- `{t.path.name}`: root cause {t.key} ({inv}), "
                     f"{b.count if b else '?'} program(s) on {seen}; {proof}; a "
                     f"`-split-input-file` case for upstream's `{home}`.")
    path = Path(directory) / "README.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def format_exports(tests: list[LitTest], out_dir: str | Path) -> str:
    """One line per bucket: the test written and its proof, or why none was."""
    lines = []
    for t in tests:
        if t.written and t.proof is not None:
            lines.append(f"  {t.slug}.mlir: {t.proof.summary()}")
        else:
            lines.append(f"  {t.slug}: no test ({' '.join(t.reason.split())[:240]})")
    written = sum(1 for t in tests if t.written)
    head = f"lit: {written} of {len(tests)} root cause(s) written to {out_dir}"
    if written:
        head += f" (run: lit -v {out_dir}; on a fix: --param lowering=SPEC)"
    return "\n".join([head, *lines]) + "\n"


__all__ = ["DEFAULT_FIXED", "LitTest", "export_bucket", "export_buckets", "find_filecheck",
           "render", "summary_sentence", "lit_pipeline", "tool_path", "write_lit_config",
           "write_provenance"]
