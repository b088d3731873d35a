"""Read the C entry points of an MLIR runtime wrapper library into the runtime table.

Parses the `extern "C"` function definitions of one of upstream's
`mlir/lib/ExecutionEngine/*RuntimeWrappers.cpp` (CUDA, ROCm, SYCL, Level Zero)
and writes them, with their C parameter lists and the preprocessor guards
around them, as the (version, platform) entry of `verify/model/runtime_table.json`:

    python scripts/read_runtime_wrappers.py --source CudaRuntimeWrappers.cpp \
        --version 19 --platform cuda --commit SHA [--repo llvm/llvm-project]

`--absent REASON` records that the platform has no wrapper file at that
version.  `--add PROTOTYPE --added-by PR` amends an entry already read with
an export a later upstream change made whose text is not stored at that
version (e.g. SYCL's `mgpuMemcpy`, llvm/llvm-project#141647, in LLVM 21 and
22): the function is marked with the change that added it.  What the
functions do is not read here: that is the hand-kept overlay `verify/model/runtime_effects.py`.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

TABLE = (Path(__file__).resolve().parent.parent / "gpu_alloc_verify" / "verify" / "model"
         / "runtime_table.json")
PLATFORM_FILES = {
    "cuda": "CudaRuntimeWrappers.cpp",
    "rocm": "RocmRuntimeWrappers.cpp",
    "sycl": "SyclRuntimeWrappers.cpp",
    "levelzero": "LevelZeroRuntimeWrappers.cpp",
}
# `extern "C" MACRO_EXPORT`, `extern MACRO_EXPORT "C"` (both spellings occur
# upstream), or a plain `extern "C"`.
_EXTERN = re.compile(r'\bextern\s+(?:[A-Z_][A-Z0-9_]*\s+)?"C"\s+(?:[A-Z_][A-Z0-9_]*EXPORT\s+)?')
_NAMED_IN_COMMENT = re.compile(r"/\*\s*(\w+)\s*\*/")
_IDENT = re.compile(r"[A-Za-z_]\w*$")


def strip_line_comments(text: str) -> str:
    """`text` without `// ...` comments (outside string and character
    literals).  Block comments stay: upstream writes unused parameter names
    as `CUstream /*stream*/`."""
    out: list[str] = []
    i, n = 0, len(text)
    quote = ""
    while i < n:
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def guards_by_line(text: str) -> list[str | None]:
    """The preprocessor condition in force on each line (`A && !(B)`), or None."""
    stack: list[str] = []
    out: list[str | None] = []
    for line in text.splitlines():
        d = line.strip()
        m = re.match(r"#\s*(ifdef|ifndef|if|elif|else|endif)\b\s*(.*)", d)
        if m:
            kind, cond = m.group(1), re.sub(r"/\*.*?\*/", "", m.group(2)).strip()
            if kind == "ifdef":
                stack.append(cond)
            elif kind == "ifndef":
                stack.append(f"!{cond}")
            elif kind == "if":
                stack.append(cond)
            elif kind == "elif" and stack:
                stack[-1] = cond
            elif kind == "else" and stack:
                stack[-1] = f"!({stack[-1]})"
            elif kind == "endif" and stack:
                stack.pop()
        out.append(" && ".join(stack) if stack else None)
    return out


def _split_params(text: str) -> list[str]:
    """Top-level comma split (template arguments hold commas)."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in text:
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip() and p.strip() != "void"]


def _c_type(text: str) -> str:
    """Whitespace-normalized C type: `void * *` -> `void **`."""
    t = " ".join(text.replace("*", " * ").split())
    return re.sub(r"\s*\*\s*", " *", t).replace("* *", "**").replace("* *", "**").strip()


def parse_param(text: str) -> dict[str, Any]:
    """`CUstream /*stream*/` -> type CUstream, name stream, unused (the
    wrapper never reads it); `void *data` -> type `void *`, name data."""
    m = _NAMED_IN_COMMENT.search(text)
    if m:
        body = _NAMED_IN_COMMENT.sub(" ", text)
        return {"type": _c_type(body), "name": m.group(1), "unused": True}
    body = re.sub(r"/\*.*?\*/", " ", text).strip()
    words = re.match(r"(.*?)([A-Za-z_]\w*)\s*$", body, re.S)
    if words and words.group(1).strip() and not words.group(1).rstrip().endswith("::"):
        return {"type": _c_type(words.group(1)), "name": words.group(2)}
    return {"type": _c_type(body), "name": ""}


def _matching_paren(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced parentheses after offset {start}")


def parse_wrappers(source: str) -> list[dict[str, Any]]:
    """The `extern "C"` function definitions of `source`, in order.
    Declarations without a body (prototypes) are not exports of the file."""
    text = strip_line_comments(source)
    guards = guards_by_line(text)
    out: list[dict[str, Any]] = []
    for m in _EXTERN.finditer(text):
        open_paren = text.find("(", m.end())
        if open_paren < 0 or "{" in text[m.end():open_paren] or ";" in text[m.end():open_paren]:
            continue
        head = " ".join(text[m.end():open_paren].split())
        name = _IDENT.search(head)
        if name is None:
            continue
        close = _matching_paren(text, open_paren)
        after = text[close + 1:].lstrip()
        if not after.startswith("{"):
            continue
        fn: dict[str, Any] = {
            "name": name.group(0),
            "returns": _c_type(head[:name.start()]) or "void",
            "params": [parse_param(p) for p in _split_params(text[open_paren + 1:close])],
        }
        guard = guards[text.count("\n", 0, m.start())]
        if guard:
            fn["guard"] = guard
        out.append(fn)
    return out


def _dump(table: dict[str, Any]) -> str:
    """One function a line, so a re-read shows as a readable diff."""
    lines = ["{", f' "about": {json.dumps(table["about"])},', ' "entries": [']
    for k, e in enumerate(table["entries"]):
        head = {key: v for key, v in e.items() if key != "functions"}
        if "functions" not in e:
            lines.append(f"  {json.dumps(head)}" + ("," if k + 1 < len(table["entries"]) else ""))
            continue
        lines.append("  " + json.dumps(head)[:-1] + ', "functions": [')
        fns = [f"   {json.dumps(f)}" for f in e["functions"]]
        lines.append(",\n".join(fns))
        lines.append("  ]}" + ("," if k + 1 < len(table["entries"]) else ""))
    lines += [" ]", "}", ""]
    return "\n".join(lines)


def write_entry(table_path: Path, entry: dict[str, Any]) -> None:
    """Insert or replace the (version, platform) entry of the table."""
    table: dict[str, Any] = json.loads(table_path.read_text()) if table_path.exists() \
        else {"about": "", "entries": []}
    key = (entry["version"], entry["platform"])
    entries = [e for e in table["entries"] if (e["version"], e["platform"]) != key]
    entries.append(entry)
    entries.sort(key=lambda e: (e["version"], e["platform"]))
    table["entries"] = entries
    table_path.write_text(_dump(table))


def add_exports(table_path: Path, version: int, platform: str, prototypes: list[str],
                added_by: str) -> dict[str, Any]:
    """The (version, platform) entry with each C prototype added as an
    export (replacing one of the same name), marked `added_by`."""
    table: dict[str, Any] = json.loads(table_path.read_text())
    entry = next((e for e in table["entries"]
                  if (e["version"], e["platform"]) == (version, platform)), None)
    if entry is None or "functions" not in entry:
        raise SystemExit(f"no {platform} {version} entry with functions to amend: read it first")
    for proto in prototypes:
        fns = parse_wrappers(f'extern "C" {proto.rstrip(";")} {{}}')
        if len(fns) != 1:
            raise SystemExit(f"not one C prototype: {proto!r}")
        fn = {**fns[0], "added_by": added_by}
        entry["functions"] = [f for f in entry["functions"] if f["name"] != fn["name"]] + [fn]
    write_entry(table_path, entry)
    return entry


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, help="the wrapper .cpp text")
    ap.add_argument("--version", type=int, required=True, help="LLVM major version")
    ap.add_argument("--platform", choices=sorted(PLATFORM_FILES), required=True)
    ap.add_argument("--commit", default="", help="the commit the source was read at")
    ap.add_argument("--repo", default="llvm/llvm-project")
    ap.add_argument("--note", default="", help="how the commit relates to the release")
    ap.add_argument("--drop", action="append", default=[],
                    help="a function to leave out (a fork's own addition); repeatable")
    ap.add_argument("--absent", metavar="REASON", help="no wrapper file at this version")
    ap.add_argument("--add", action="append", default=[], metavar="PROTOTYPE",
                    help="amend the entry: a C prototype a later change exports; repeatable")
    ap.add_argument("--added-by", default="", metavar="CHANGE",
                    help="the upstream change that added --add's functions (needed with --add)")
    ap.add_argument("--table", type=Path, default=TABLE)
    args = ap.parse_args(argv)
    if args.add:
        if not args.added_by:
            ap.error("--add needs --added-by")
        entry = add_exports(args.table, args.version, args.platform, args.add, args.added_by)
        print(f"{args.platform} {args.version}: {len(entry['functions'])} functions",
              file=sys.stderr)
        return 0
    entry: dict[str, Any] = {"version": args.version, "platform": args.platform}
    if args.absent:
        entry["absent"] = args.absent
    else:
        if args.source is None or not args.commit:
            ap.error("--source and --commit are needed unless --absent")
        fns = parse_wrappers(args.source.read_text())
        dropped = [f["name"] for f in fns if f["name"] in args.drop]
        entry.update({
            "repo": args.repo,
            "path": f"mlir/lib/ExecutionEngine/{PLATFORM_FILES[args.platform]}",
            "commit": args.commit,
        })
        if args.note:
            entry["note"] = args.note
        if dropped:
            entry["dropped"] = dropped
        entry["functions"] = [f for f in fns if f["name"] not in args.drop]
    write_entry(args.table, entry)
    n = len(entry.get("functions", []))
    print(f"{args.platform} {args.version}: {n} functions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
