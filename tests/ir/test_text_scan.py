"""Issue 39, items 3 and 7: one reader and rewriter of MLIR text, and roles
rather than words.

MLIR text is matched by pattern only in `verify/ir/` (`verify.ir.text`, the
parsers, locations); every other module asks it.  A violation's roles are
read from its counterexample (`verify.model.roles`), never parsed out of its
worded `detail`.  This scans the product's syntax trees for regular
expressions (`re.compile`/`search`/`match`/... and the methods of compiled
patterns) and flags those outside `verify/ir/` whose pattern looks like MLIR
or whose subject is named like MLIR text, and every one applied to a detail.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "gpu_alloc_verify"
IR = "verify/ir/"

_RE_FUNCS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer",
             "split"}
_METHODS = _RE_FUNCS - {"compile"}
# What MLIR looks like in a pattern (backslashes dropped first): SSA values,
# symbols, the dialects the tool reads, locations, blocks, generic op names.
_MLIR_MARKS = ("%", "@", "gpu.", "llvm.", "func.", "memref", "!gpu", "loc(", "^bb", '= "',
               "scf.", "cf.", "builtin.")
# Names a subject of MLIR text goes by (a word of the identifier).
_MLIR_NAMES = {"ir", "mlir", "text", "line", "lines", "module", "lowered", "program", "source"}

# Regexes outside verify/ir/ that are not over MLIR text, each with why.
# Keyed by (module, pattern as written).
ALLOWED: dict[tuple[str, str], str] = {
    ("repro/export.py", r"([A-Z][A-Z0-9_]*(?:-[A-Z0-9]+)*)(:|(?<=END)\.)"):
        "people's words (a slug, a sentence) kept from reading as a FileCheck directive",
    ("repro/proof.py", r"^(?P<file>.+?):(?P<line>\d+):\d+: error: (?P<msg>.*)$"):
        "FileCheck's diagnostics on stderr, not IR",
    ("verify/campaign/summary_text.py", r"%[\w.#]+"):
        "a verdict's reason words grouped by shape for the summary, not IR",
    ("verify/invariants/solver.py", r"[^:?!]+:%"):
        "names of Z3 variables (`f0:%cond0`), not IR",
    ("verify/lowerings/failure_kind.py", r"^loc\((.*?)\): "):
        "an mlir-opt diagnostic's message on stderr, not IR",
    ("verify/lowerings/pass_pipeline.py", r"\s*builtin\.module\s*\(\s*\)\s*"):
        "a pass pipeline (a command-line option), not IR",
    ("verify/tools/commands.py", r"--pass-pipeline='?builtin\.module\((.*?)\)'?(?: |$)"):
        "a lit test's RUN line: a shell command line, the tool layer's own",
    ("oracles/native.py", r"^(\w+)((?: [pi]:\S+)*)(?: = (\S+))?$"):
        "a line of the runtime shim's call trace (`mgpuStreamCreate = p:0x..`), not IR",
    ("reports/junit.py", "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]"):
        "characters XML cannot carry, in any text a JUnit report holds",
    ("verify/invariants/solver.py", r"(?<=[\s(])(\d+)(?=[\s)])"):
        "literals of a Z3 formula's s-expression, not IR",
    ("verify/model/values.py", r"(?<![\w.!?|])([?]\d+(?:[wa]\d+)?|![dus]\d+)(?![\w!?])"):
        "the model's stand-in value names in a Z3 s-expression, not IR",
    ("verify/model/values.py", r"(?<![\w.!?|])[?]\d+(?:a\d+)?(?![\w!?])"):
        "the model's stand-in value names in a Z3 s-expression, not IR",
    ("verify/model/values.py", r"(?<![\w.])(?<!- )\d{13,}"):
        "the model's stand-in numbers in a Z3 s-expression, not IR",
    ("verify/lowerings/mlir_opt.py", r"^// -----// IR Dump Before .*\(gpu-to-llvm\).*//----- //$"):
        "the banner mlir-opt prints on stderr before an IR dump (the dump itself is"
        " read by verify.ir.locations)",
    ("verify/lowerings/tool_passes.py", r"^ {4}(Passes|Pass Pipelines):\s*$"):
        "`mlir-opt --help` output, not IR",
    ("verify/lowerings/tool_passes.py", r"^ {0,3}\S"): "`mlir-opt --help` output, not IR",
    ("verify/lowerings/tool_passes.py", r"^ {6}--([A-Za-z0-9][-A-Za-z0-9_.]*)"):
        "`mlir-opt --help` output, not IR",
    ("verify/triage/signature.py", r"in (scf\.\w+|cf\.\w+): (.*)$"):
        "a signature's own form words (`in scf.if: gpu.wait async`), not IR",
    ("verify/model/harness_defects.py", r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception): "):
        "a Python exception's message (`ValueError: ...`), not IR (its subject is a `line`"
        " of that message)",
}


@dataclass(frozen=True)
class Finding:
    module: str
    line: int
    pattern: str  # as written ("<dynamic>" when not a literal)
    why: str


def _literal(node: ast.expr | None) -> str | None:
    """A pattern's text where it is a literal (an f-string: its fixed parts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values
                       if isinstance(v, ast.Constant) and isinstance(v.value, str))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return left + right if left is not None and right is not None else None
    return None


def _words(node: ast.expr) -> set[str]:
    """The identifiers and string keys a subject expression is made of, split at `_`."""
    out: set[str] = set()
    for n in ast.walk(node):
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) \
            else n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) \
            and n.value.isidentifier() else None
        if name:
            out.add(name.lower())
            out.update(name.lower().split("_"))
    return out


def _mlir_pattern(pattern: str) -> bool:
    plain = pattern.replace("\\", "")
    return any(mark in plain for mark in _MLIR_MARKS)


def _check(module: str, line: int, pattern: str | None, subject: ast.expr | None
           ) -> Finding | None:
    shown = pattern if pattern is not None else "<dynamic>"
    words = _words(subject) if subject is not None else set()
    if "detail" in words:
        return Finding(module, line, shown, "a regex over a violation's detail (read its roles)")
    if (module, shown) in ALLOWED:
        return None
    if pattern is not None and _mlir_pattern(pattern):
        return Finding(module, line, shown, "a pattern of MLIR text (ask verify.ir.text)")
    if words & _MLIR_NAMES:
        return Finding(module, line, shown, "a regex over MLIR text (ask verify.ir.text)")
    return None


def scan_source(module: str, source: str) -> list[Finding]:
    """The regexes of one module that break the rule."""
    tree = ast.parse(source)
    compiled: dict[str, str | None] = {}  # name -> pattern of `name = re.compile(...)`
    found: list[Finding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and _is_re(node.value.func, "compile"):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    compiled[target.id] = _literal(node.value.args[0]) if node.value.args \
                        else None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func, args = node.func, node.args
        hit: Finding | None = None
        if _is_re(func, None):
            pattern = _literal(args[0]) if args else None
            subject = None if func.attr == "compile" else \
                args[2] if func.attr in ("sub", "subn") and len(args) > 2 else \
                args[1] if func.attr not in ("sub", "subn") and len(args) > 1 else None
            hit = _check(module, node.lineno, pattern, subject)
        elif func.attr in _METHODS and isinstance(func.value, ast.Name) \
                and func.value.id in compiled:
            subject = args[1] if func.attr in ("sub", "subn") and len(args) > 1 else \
                args[0] if func.attr not in ("sub", "subn") and args else None
            hit = _check(module, node.lineno, compiled[func.value.id], subject)
        if hit is not None:
            found.append(hit)
    return sorted(found, key=lambda f: f.line)


def _is_re(func: ast.expr, attr: str | None) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
        and func.value.id == "re" and (func.attr == attr if attr else func.attr in _RE_FUNCS)


def scan_product() -> list[Finding]:
    found: list[Finding] = []
    for path in sorted(PKG.rglob("*.py")):
        module = path.relative_to(PKG).as_posix()
        if module.startswith(IR):
            continue
        found += scan_source(module, path.read_text(encoding="utf-8"))
    return found


def test_no_regex_over_mlir_text_or_detail_outside_verify_ir() -> None:
    found = scan_product()
    assert not found, "\n".join(f"{f.module}:{f.line}: {f.pattern!r}: {f.why}" for f in found)


def test_every_allowance_is_still_there() -> None:
    """An allowance whose regex went away is dropped too (the list stays tiny)."""
    for module, pattern in ALLOWED:
        text = (PKG / module).read_text(encoding="utf-8")
        tree = ast.parse(text)
        literals = {_literal(n) for n in ast.walk(tree) if isinstance(n, ast.expr)}
        assert pattern in literals, (module, pattern)


def test_the_scan_catches_a_planted_regex() -> None:
    planted = '''
import re
_CALL = re.compile(r"llvm\\.call @(\\w+)")

def callee(lowered: str) -> str:
    return _CALL.search(lowered).group(1)

def creator(v) -> str:
    return re.search(r"created by (\\S+)", v.detail).group(1)

def head(line: str) -> bool:
    return re.match(r"^\\s*(\\w+)", line) is not None

def words(reason: str) -> str:
    return re.sub(r"\\d+", "N", reason)
'''
    found = scan_source("repro/planted.py", planted)
    assert [(f.line, f.why.split(" (")[0]) for f in found] == [
        (3, "a pattern of MLIR text"),
        (6, "a pattern of MLIR text"),
        (9, "a regex over a violation's detail"),
        (12, "a regex over MLIR text"),
    ], found
