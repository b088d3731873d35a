"""`check` on the corpus of realistic GPU host code (`tests/corpus/`).

Each corpus file's header says which verdict each invariant must get on
mlir-opt-16, -19 and -22, and which `file:line:col` a violation must name
(format: `tests/corpus/README.md`).  For every file and installed version
this runs the real CLI, as a user would, and compares.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
from tests.conftest import need_mlir_opt

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
VERSIONS = (16, 19, 22)
# The catalogue of DESIGN.md, without `differential` (never checked here).
INVARIANTS = (
    "lowering-no-crash",
    "sync-alloc-no-stream",
    "stream-no-leak",
    "stream-no-use-after-destroy",
    "event-no-leak",
    "host-shared-flag",
    "async-order",
    "runtime-contract",
    "lowering-complete",
)
VERDICTS = ("holds", "violated", "unknown", "rejected", "not-applicable")
MIN_FILES = 28
CHECK_TIMEOUT_S = 600

_EXPECT = re.compile(r"^// EXPECT mlir-opt-(\d+):(.*)$")
_POINTS = re.compile(r"^// POINTS mlir-opt-(\d+) ([\w-]+):(.*)$")
_PIPELINE = re.compile(r"^// PIPELINE:(.*)$")
_VALID = re.compile(r"^// VALID:(.*)$")
_WHY = re.compile(r"^// WHY:(.*)$")


@dataclass
class CorpusFile:
    path: Path
    expect: dict[int, dict[str, str]] = field(default_factory=dict)
    # (invariant, file or None for this one, line, col)
    points: dict[int, list[tuple[str, str | None, int, int]]] = field(default_factory=dict)
    pipeline: str = ""
    valid: set[int] = field(default_factory=set)
    why: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def rel(self) -> str:
        return self.path.relative_to(ROOT).as_posix()


def _verdicts(text: str, errors: list[str]) -> dict[str, str]:
    """`inv=verdict ...` with `*=verdict` for every invariant not named."""
    named: dict[str, str] = {}
    star: str | None = None
    for item in text.split():
        inv, sep, verdict = item.partition("=")
        if not sep or verdict not in VERDICTS:
            errors.append(f"bad verdict item {item!r}")
            continue
        if inv == "*":
            star = verdict
        elif inv in INVARIANTS:
            named[inv] = verdict
        else:
            errors.append(f"unknown invariant {inv!r}")
    if star is not None:
        return {inv: named.get(inv, star) for inv in INVARIANTS}
    return named


def parse_header(path: Path) -> CorpusFile:
    cf = CorpusFile(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    for line in lines:
        if not line.startswith("//"):
            break  # the header is the leading comment block
        if m := _EXPECT.match(line):
            v = int(m.group(1))
            if v in cf.expect:
                cf.errors.append(f"two EXPECT lines for mlir-opt-{v}")
            cf.expect[v] = _verdicts(m.group(2), cf.errors)
        elif m := _POINTS.match(line):
            v, inv = int(m.group(1)), m.group(2)
            for loc in m.group(3).split():
                # `L:C` in this file, or `NAME:L:C` for an op whose own
                # location (`loc("solver.py":42:5)`) names another file.
                lc = re.fullmatch(r"(?:(.+):)?(\d+):(\d+)", loc)
                if lc is None:
                    cf.errors.append(f"bad POINTS location {loc!r}")
                    continue
                cf.points.setdefault(v, []).append(
                    (inv, lc.group(1), int(lc.group(2)), int(lc.group(3))))
        elif m := _PIPELINE.match(line):
            cf.pipeline = m.group(1).strip()
        elif m := _VALID.match(line):
            for word in m.group(1).split():
                vm = re.fullmatch(r"mlir-opt-(\d+)", word)
                if vm is None:
                    cf.errors.append(f"bad VALID entry {word!r}")
                else:
                    cf.valid.add(int(vm.group(1)))
        elif m := _WHY.match(line):
            cf.why.append(m.group(1).strip())
    return cf


FILES = sorted(CORPUS.glob("*.mlir"))
HEADERS = {p.name: parse_header(p) for p in FILES}
CASES = [(p.name, v) for p in FILES for v in VERSIONS]


def _case_id(case: tuple[str, int]) -> str:
    return f"{Path(case[0]).stem}-mlir-opt-{case[1]}"


def test_corpus_is_there() -> None:
    assert len(FILES) >= MIN_FILES, f"{len(FILES)} corpus files, want at least {MIN_FILES}"
    assert (CORPUS / "README.md").is_file()


def test_invariant_ids_are_the_catalogue() -> None:
    from gpu_alloc_verify.verify.invariants import CHECKERS

    assert set(INVARIANTS) == (set(CHECKERS) - {"differential"}) | {"lowering-no-crash"}


@pytest.mark.parametrize("name", [p.name for p in FILES], ids=lambda n: Path(n).stem)
def test_header_is_well_formed(name: str) -> None:
    cf = HEADERS[name]
    lines = cf.path.read_text(encoding="utf-8").splitlines()
    problems = list(cf.errors)
    problems += [f"no EXPECT line for mlir-opt-{v}" for v in VERSIONS if v not in cf.expect]
    if not cf.pipeline:
        problems.append("no PIPELINE line")
    if not cf.valid or not cf.valid <= set(VERSIONS):
        problems.append(f"VALID must list some of mlir-opt-{VERSIONS}: {sorted(cf.valid)}")
    if not 1 <= len(cf.why) <= 2:
        problems.append("one or two WHY lines")
    for v in VERSIONS:
        expect = cf.expect.get(v, {})
        if v not in cf.valid and set(expect.values()) != {"not-applicable"}:
            problems.append(f"mlir-opt-{v} is not in VALID: expect *=not-applicable")
        for inv, other, line, col in cf.points.get(v, []):
            if expect.get(inv) != "violated":
                problems.append(f"POINTS mlir-opt-{v} {inv} but {inv} is not expected violated")
            if other is not None:
                continue
            if not (1 <= line <= len(lines) and 1 <= col <= len(lines[line - 1])):
                problems.append(f"POINTS {line}:{col} is outside the file")
            elif not lines[line - 1][col - 1:].lstrip('"')[:1].isalpha():
                problems.append(f"POINTS {line}:{col} is not at an op: {lines[line - 1]!r}")
    assert not problems, f"{name}: " + "; ".join(problems)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_valid_for_exactly_the_listed_versions(case: tuple[str, int]) -> None:
    name, version = case
    cf = HEADERS[name]
    tool = need_mlir_opt(version)
    proc = subprocess.run([tool, str(cf.path), "-o", os.devnull],
                          capture_output=True, text=True, timeout=120)
    valid = proc.returncode == 0
    assert valid == (version in cf.valid), (
        f"{name}: mlir-opt-{version} {'parses' if valid else 'rejects'} the file but VALID "
        f"says {sorted(cf.valid)}: {proc.stderr.strip()[:500]}")


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _run_check(cf: CorpusFile, version: int) -> subprocess.CompletedProcess[str]:
    argv = [_python(), "-m", "gpu_alloc_verify", "check", cf.rel,
            "--lowering", f"mlir-opt-{version}", "--json"]
    if cf.pipeline:
        argv += ["--pipeline", cf.pipeline]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                          timeout=CHECK_TIMEOUT_S)


@functools.cache
def _run_valid(name: str) -> tuple[int, str, str]:
    """One `check` of a file on every installed version it is valid for
    (exit status, stdout, stderr): each lowering is judged on its own, so a
    version's verdicts are the same as alone, for a third of the start-ups."""
    cf = HEADERS[name]
    argv = [_python(), "-m", "gpu_alloc_verify", "check", cf.rel, "--json"]
    for v in sorted(cf.valid):
        if find_mlir_opt(v) is not None:
            argv += ["--lowering", f"mlir-opt-{v}"]
    if cf.pipeline:
        argv += ["--pipeline", cf.pipeline]
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                          timeout=CHECK_TIMEOUT_S)
    return proc.returncode, proc.stdout, proc.stderr


def _verdict(counts: dict[str, int]) -> str:
    got = [verdict for verdict, n in counts.items() if n]
    return got[0] if len(got) == 1 else f"{got or 'none'}"


def _why(summary: dict, spec: str, inv: str) -> str:
    """The harness's own words for a verdict, to make a mismatch readable."""
    for u in summary.get("unknown") or []:
        if u.get("lowering") == spec and u.get("invariant") == inv:
            return f" ({str(u.get('reason'))[:300]})"
    for v in summary.get("violations") or []:
        if v.get("lowering") == spec and v.get("invariant") == inv:
            return f" ({str(v.get('detail'))[:300]})"
    return ""


@pytest.mark.slow
def test_a_file_invalid_for_one_version_is_checked_on_the_others() -> None:
    """Valid for 16 only: checked on 16, not-applicable (with the tool's
    diagnostic) on 19 and 22, never refused because of them."""
    cf = HEADERS["generic_form_llvm16.mlir"]
    for v in VERSIONS:
        need_mlir_opt(v)
    argv = [_python(), "-m", "gpu_alloc_verify", "check", cf.rel, "--json",
            "--pipeline", cf.pipeline]
    for v in VERSIONS:
        argv += ["--lowering", f"mlir-opt-{v}"]
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S)
    assert proc.returncode in (0, 1, 3), proc.stderr
    per = json.loads(proc.stdout)["by_lowering"]
    for v in (19, 22):
        assert all(c["not-applicable"] == 1 for c in per[f"mlir-opt-{v}"].values())
    assert per["mlir-opt-16"]["lowering-no-crash"]["holds"] == 1


def _violation_text(violation: dict) -> str:
    """What a violation says, without the source and lowered IR it carries."""
    return " ".join(json.dumps(value, default=str) for key, value in violation.items()
                    if key not in ("program", "lowered"))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_check_gives_the_expected_verdicts(case: tuple[str, int]) -> None:
    name, version = case
    cf = HEADERS[name]
    need_mlir_opt(version)
    spec = f"mlir-opt-{version}"
    if version not in cf.valid:
        # Invalid MLIR for the only lowering asked: an input error (exit 2)
        # naming the file, the position and the tool.
        proc = _run_check(cf, version)
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert proc.returncode == 2, (name, spec, proc.stdout[-500:])
        assert f"not valid MLIR for mlir-opt-{version}" in proc.stderr, proc.stderr
        assert f"{cf.rel}:" in proc.stderr, proc.stderr
        return
    returncode, stdout, stderr = _run_valid(name)
    assert "Traceback" not in stderr, f"{name} on {spec}: traceback\n{stderr[-3000:]}"
    assert returncode in (0, 1, 3), (
        f"{name} on {spec}: exit {returncode}\n{stderr.strip()[-2000:]}")
    summary = json.loads(stdout)
    per = summary["by_lowering"][spec]

    expect = cf.expect[version]
    wrong = []
    for inv, want in expect.items():
        counts = per.get(inv)
        got = "missing" if counts is None else _verdict(counts)
        if got != want:
            wrong.append(f"{inv}: expected {want}, got {got}{_why(summary, spec, inv)}")
    assert not wrong, f"{name} on {spec} ({' '.join(cf.why)}):\n  " + "\n  ".join(wrong)

    if "violated" in expect.values():
        assert returncode == 1, f"{name} on {spec}: a violation must exit 1"

    missing = []
    for inv, other, line, col in cf.points.get(version, []):
        place = f"{other or cf.name}:{line}:{col}"
        where = re.compile(r"(?<![\w.-])" + re.escape(place) + r"(?!\d)")
        texts = [_violation_text(v) for v in summary["violations"]
                 if v.get("lowering") == spec and v.get("invariant") == inv]
        if not any(where.search(t) for t in texts):
            said = " | ".join(str(v.get("detail"))[:200] for v in summary["violations"]
                              if v.get("lowering") == spec and v.get("invariant") == inv)
            missing.append(f"{inv} does not name {place} (it says: {said})")
    assert not missing, f"{name} on {spec}:\n  " + "\n  ".join(missing)
