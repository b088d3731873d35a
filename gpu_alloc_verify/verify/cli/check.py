"""`check FILE...`: each file lowered and judged on its own, in order (a
directory: every `.mlir` file under it); with --baseline, what the lowering
adds over the baseline; with --lit DIR, a proven lit test per violation."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from gpu_alloc_verify.verify.cli.check_text import apply_baseline, check_summary, print_check
from gpu_alloc_verify.verify.cli.options import (
    check_options,
    lowerings,
    resolve_lowering,
    selected_invariants,
)
from gpu_alloc_verify.verify.cli.status import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VIOLATION,
    exit_status,
)
from gpu_alloc_verify.verify.invariants.options import CHECK_TRUTH, CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement
from gpu_alloc_verify.verify.lowerings.registry import default_spec
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.verdicts import Verdict

# Worst first: a file that could not be read (2) beats a violation (1), as
# grep's error beats its matches: the run is incomplete.  A violation beats
# unknown or nothing checked (3), which beats 0.
_CHECK_RANK = {EXIT_ERROR: 3, EXIT_VIOLATION: 2, EXIT_UNKNOWN: 1, EXIT_OK: 0}
_CHECK_SAID = {EXIT_OK: "no violation", EXIT_VIOLATION: "violated",
               EXIT_UNKNOWN: "unknown or nothing checked", EXIT_ERROR: "error"}


def worst_status(statuses: Sequence[int]) -> int:
    """The exit status of `check` over several files (_CHECK_RANK)."""
    return max(statuses, key=lambda s: _CHECK_RANK.get(s, 3), default=EXIT_OK)


def expand_files(paths: Sequence[str]) -> list[str]:
    """The files `check` judges: a directory stands for every `.mlir` file
    under it (hidden ones left out), sorted by path, as lit finds tests."""
    out: list[str] = []
    for path in paths:
        root = Path(path)
        if path == "-" or not root.is_dir():
            out.append(path)
            continue
        found = sorted((f for f in root.rglob("*.mlir") if f.is_file() and not any(
            part.startswith(".") for part in f.relative_to(root).parts)),
            key=lambda f: f.relative_to(root).parts)
        if not found:
            raise UsageError(f"{path}: is a directory with no .mlir file under it")
        out += [str(f) for f in found]
    return out


def check_files(args: argparse.Namespace) -> int:
    """`check FILE...`: each file judged on its own by cmd_check (args.file
    set per file), in order; a directory is every `.mlir` file under it
    (expand_files); `-` is standard input, named <stdin>.  With
    several files, one that cannot be read is an error line on stderr and the
    next is checked; text output has a `==> FILE <==` header per file and a
    status per file at the end; --json prints one object per file checked;
    --junitxml one testsuite per file.  Exit status: worst_status."""
    from gpu_alloc_verify.verify.source.user_file import STDIN_NAME

    files = [STDIN_NAME if f == "-" else f for f in expand_files(args.files)]
    if files.count(STDIN_NAME) > 1:
        raise UsageError("- (standard input) given more than once; it can be read once")
    if not args.lowering:  # said once, not once per file
        spec, why = default_spec()
        print(f"lowering: {spec} ({why})", file=sys.stderr)
        args.lowering = [spec]
    # --lit: the tests of every file, their names unique in the run; the
    # lit.cfg.py and README once, when all are written.
    args.lit_tests, args.lit_names = [], set()
    status = _check_each(args, files)
    if args.lit:
        _finish_lit(args)
    return status


def _check_each(args: argparse.Namespace, files: list[str]) -> int:
    from gpu_alloc_verify.verify.model.errors import SourceParseError

    if len(files) == 1:
        args.file = files[0]
        return cmd_check(args)
    import tempfile

    from gpu_alloc_verify.reports.junit_merge import merge_junit

    done: list[tuple[str, int]] = []
    parts: list[Path] = []
    errors: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="gpu-alloc-verify-junit-") as tmp:
        for k, name in enumerate(files):
            one = argparse.Namespace(**vars(args))
            one.file = name
            if args.junitxml:  # one file each, merged below: each run writes a whole file
                one.junitxml = str(Path(tmp) / f"{k}.xml")
            if not args.json:
                print(f"{chr(10) if k else ''}==> {name} <==")
            try:
                status = cmd_check(one)
            except SourceParseError as e:
                print(f"gpu-alloc-verify: error: {e}", file=sys.stderr)
                errors.append((name, str(e)))
                status = EXIT_ERROR
            if one.junitxml and Path(one.junitxml).is_file():
                parts.append(Path(one.junitxml))
            done.append((name, status))
        if args.junitxml:
            merge_junit(parts, errors, args.junitxml)
    worst = worst_status([status for _, status in done])
    if not args.json:
        print(f"\n{len(files)} files, exit status {worst}:")
        for name, status in done:
            print(f"  {name}: {_CHECK_SAID.get(status, str(status))}")
    return worst


def cmd_check(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.campaign.check_file import check_file
    from gpu_alloc_verify.verify.campaign.nothing_checked import case_reasons, nothing_checked

    invariants = selected_invariants(args.invariant)
    options = check_options(invariants, args.runtime, args.solver_timeout, CHECK_TRUTH)
    chosen = lowerings(args)
    written, row = check_file(args.file, chosen, options, args.time_limit)
    _report_defects(getattr(args, "debug", False))
    if args.results:  # recorded as a campaign records a program: triage reads it the same
        from gpu_alloc_verify.verify.campaign.check_record import record_check

        record_check(args.results, args.file, written, row, chosen, options)
    summary = check_summary(written, row, args.file)
    shared = (apply_baseline(summary, row, args.baseline, _baseline(args, options))
              if args.baseline else None)
    # Every lowering rejected the file or could not take it: exit 3, never 0
    # (--allow-unknown is about unknown verdicts, not this).
    unchecked = nothing_checked(row)
    if args.junitxml:
        from gpu_alloc_verify.reports.junit import write_junit

        write_junit(args.junitxml, summary, f"gpu-alloc-verify check {args.file}",
                    nothing_checked=unchecked, case_reasons=case_reasons(row))
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_check(row, summary, args, shared)
    if args.lit and summary["violations"]:
        from gpu_alloc_verify.repro.user_file import export_violations

        args.lit_tests += export_violations(
            args.file, written, summary["violations"], args.pipeline, args.lit,
            args.runtime, taken=args.lit_names)
    if unchecked is not None:
        print(f"gpu-alloc-verify: nothing checked: {unchecked}: exit 3", file=sys.stderr)
        return EXIT_UNKNOWN
    # The counted ones: with --baseline, those the baseline does not share.
    unknown = summary["counts"]["verdicts"][Verdict.UNKNOWN]
    return exit_status(bool(summary["violations"]), unknown, args.allow_unknown)


def _report_defects(debug: bool) -> None:
    """Say on stderr which harness defects the file's check met (the verdicts
    they cut short read `unknown`); the Python error and its traceback only
    with --debug."""
    from gpu_alloc_verify.verify.model.harness_defects import take

    defects, dropped = take()
    for d in defects:
        print(f"gpu-alloc-verify: harness defect (please report it with the file): "
              f"{d.words()}", file=sys.stderr)
        if debug:
            print(d.trace or d.error, file=sys.stderr)
    if dropped:
        print(f"gpu-alloc-verify: {dropped} more harness defect(s)", file=sys.stderr)


def _baseline(args: argparse.Namespace, options: CheckOptions) -> Judgement | None:
    """The file judged on --baseline; None (said on stderr) where it cannot
    read the file: then every verdict of the lowering under test counts."""
    from gpu_alloc_verify.verify.campaign.check_file import check_file
    from gpu_alloc_verify.verify.model.errors import SourceParseError

    try:
        _, row = check_file(args.file, [resolve_lowering(args.baseline, args)], options,
                            args.time_limit)
    except SourceParseError as e:
        print(f"gpu-alloc-verify: baseline {args.baseline} cannot read {args.file} ({e}): "
              "every verdict counts", file=sys.stderr)
        return None
    return next(iter(row.values()), None)


def _finish_lit(args: argparse.Namespace) -> None:
    """Write lit.cfg.py and README.md beside the tests, and say what was
    written (on stderr under --json, which keeps stdout one JSON value)."""
    from gpu_alloc_verify.repro.user_file import format_tests, write_support

    write_support(args.lit, args.lit_tests)
    out = sys.stderr if args.json else sys.stdout
    print("\n" + "\n".join(format_tests(args.lit_tests, args.lit)), file=out)
