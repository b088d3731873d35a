"""`check FILE`: one user file, as written, through each lowering under test.

Each `mlir-opt` lowering validates and reads the file itself, so a file
valid for 16 but not for 22 is checked on 16 and is `not-applicable` on 22
(with the tool's diagnostic); only a file no lowering can read is an input
error (exit status 2).  In-process lowerings read it with the newest
`mlir-opt` found.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc_verify.verify.campaign.check_progress import CheckProgress
from gpu_alloc_verify.verify.invariants.options import CHECK_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, judge
from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.model import budget
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.verdicts import CheckResult, Verdict
from gpu_alloc_verify.verify.source.user_file import SourceModule, from_text, read_text

# What `check` judges with by default: every invariant, every `holds` cross-checked
# by execution on boundary inputs, every violation's witness also run natively
# where the module runs so.
CHECK_OPTIONS = CheckOptions(truth=CHECK_TRUTH)


def check_file(path: str, lowerings: Sequence[Lowering],
               options: CheckOptions = CHECK_OPTIONS,
               time_limit_s: float | None = None) -> tuple[str, dict[str, Judgement]]:
    """The file as written and a judgement per lowering spec (`options`: a
    timeout_ms of 0 is the default one).  `time_limit_s`: the seconds the
    whole file may take (`verify.model.budget`); what is still open when
    they run out is `unknown`, naming the limit."""
    written = read_text(path)
    sources: dict[str | None, SourceModule | SourceParseError] = {}
    row: dict[str, Judgement] = {}
    errors: list[SourceParseError] = []
    progress = CheckProgress(path, len(lowerings))
    try:
        with budget.time_limit(time_limit_s):
            try:
                _judge_all(path, written, lowerings, options, sources, row, errors, progress)
            except budget.TimeLimitReached as e:
                for lowering in lowerings:  # the one judged when it ran out, and those after
                    row.setdefault(lowering.spec, _out_of_time(lowering.spec, str(e), options))
    finally:
        progress.done()
    if len(errors) == len(lowerings) and errors:
        raise errors[0]
    return written, row


def _judge_all(path: str, written: str, lowerings: Sequence[Lowering],
               options: CheckOptions, sources: dict[str | None, SourceModule | SourceParseError],
               row: dict[str, Judgement], errors: list[SourceParseError],
               progress: CheckProgress) -> None:
    for k, lowering in enumerate(lowerings):
        progress.step(k, lowering.spec)
        tool = lowering.reading_tool()
        if tool not in sources:
            try:
                sources[tool] = from_text(written, path, tool)
            except SourceParseError as e:
                sources[tool] = e
        source = sources[tool]
        if isinstance(source, SourceParseError):
            errors.append(source)
            row[lowering.spec] = _unreadable(lowering.spec, str(source), options)
            continue
        row[lowering.spec] = _judge(source, lowering, options)


def check_text(written: str, name: str, lowering: Lowering,
               options: CheckOptions = CHECK_OPTIONS) -> Judgement:
    """`check_file` of text already in hand, named `name` (the public API's
    way): the judgement of one lowering; SourceParseError when its tool cannot
    read the text (the only lowering: an input error, as for `check FILE`)."""
    source = from_text(written, name, lowering.reading_tool())
    return _judge(source, lowering, options)


# Violations of one invariant a check lists: a wait on 1,000 tokens leaks
# 1,000 streams, and each listed violation is rendered with its lowered IR.
MAX_LISTED = 20


def _judge(source: SourceModule, lowering: Lowering, options: CheckOptions) -> Judgement:
    outcome = lowering.lower_batch([source])[0]
    if not options.timeout_ms:
        options = options.replace(timeout_ms=DEFAULT_TIMEOUT_MS)
    return _listed(judge(source, outcome, lowering.spec, options))


def _listed(j: Judgement) -> Judgement:
    """At most MAX_LISTED violations per invariant, the rest counted in a note."""
    for inv, result in j.results.items():
        more = len(result.violations) - MAX_LISTED
        if more > 0:
            del result.violations[MAX_LISTED:]
            j.notes.append(f"{inv}: {more} more violation(s) of the same invariant, "
                           f"not listed (the first {MAX_LISTED} are)")
    return j


def _out_of_time(spec: str, why: str, options: CheckOptions) -> Judgement:
    results = {i: CheckResult(i, Verdict.UNKNOWN, reason=why) for i in options.invariants}
    return Judgement(spec, "ok", results)


def _unreadable(spec: str, why: str, options: CheckOptions) -> Judgement:
    results = {i: CheckResult(i, Verdict.NOT_APPLICABLE, reason=why)
               for i in options.invariants}
    return Judgement(spec, "rejected", results, diagnostics=why)
