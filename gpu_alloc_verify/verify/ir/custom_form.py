"""xDSL's printout of a lowered module in the custom form `mlir-opt` prints
(a line-level rewrite of MLIR text, so it lives with the other ones in
`verify.ir`).

xDSL has no custom syntax for `gpu.launch_func` and prints `gpu.module`
generically (its terminator included), so an in-process lowering's output
would not read like `mlir-opt`'s, and a FileCheck line written against one
would not match the other.  This rewrites those two ops, line by line, into
the syntax `mlir-opt` 19 and 22 print: `gpu.launch_func <%s : !llvm.ptr>
@m::@k blocks in (...) threads in (...) : i64 args(%a : t, ...)` and
`gpu.module @m { ... }`.  A launch with clusters, dynamic shared memory or
dependencies stays generic (the lowerings emit none).
"""

from __future__ import annotations

import re

from gpu_alloc_verify.verify.ir.fastparse import split_list

_LAUNCH = re.compile(
    r'^(?P<pad>\s*)"gpu\.launch_func"\((?P<ops>[^)]*)\) '
    r"<\{kernel = (?P<kernel>@[\w$.]+::@[\w$.]+), "
    r"operandSegmentSizes = array<i32: (?P<segs>[\d, ]+)>\}> : \((?P<types>.*)\) -> \(\)"
    r"(?P<loc>\s+loc\(.*\))?$")
_MODULE = re.compile(r'^(\s*)"gpu\.module"\(\) <\{sym_name = "([\w$.]+)"\}> \(\{$')
_MODULE_END = re.compile(r'^\s*"gpu\.module_end"\(\) : \(\) -> \(\)(\s+loc\(.*\))?$')


def _launch(m: re.Match[str]) -> str | None:
    ops, types = split_list(m.group("ops")), split_list(m.group("types"))
    segs = [int(s) for s in m.group("segs").split(",")]
    if len(segs) != 13 or len(ops) != len(types) or segs[0] or any(segs[7:11]) \
            or segs[1:7] != [1] * 6:
        return None
    sizes = ops[:6]
    size_type = types[0]
    args = list(zip(ops[6:6 + segs[11]], types[6:6 + segs[11]], strict=True))
    stream = f"<{ops[-1]} : {types[-1]}> " if segs[12] else ""
    typed = "" if size_type == "index" else f" : {size_type}"
    arg_text = f" args({', '.join(f'{o} : {t}' for o, t in args)})" if args else ""
    return (f"{m.group('pad')}gpu.launch_func {stream}{m.group('kernel')} "
            f"blocks in ({', '.join(sizes[:3])}) threads in ({', '.join(sizes[3:])}){typed}"
            f"{arg_text}{m.group('loc') or ''}")


def custom_gpu_ops(text: str) -> str:
    """`text` with xDSL's generic `gpu.launch_func` and `gpu.module` in custom form."""
    out: list[str] = []
    closing: list[str] = []  # indentation of each open gpu.module
    for line in text.splitlines():
        if (m := _LAUNCH.match(line)) is not None:
            out.append(_launch(m) or line)
            continue
        if (mod := _MODULE.match(line)) is not None:
            closing.append(mod.group(1))
            out.append(f"{mod.group(1)}gpu.module @{mod.group(2)} {{")
            continue
        if closing and _MODULE_END.match(line):
            continue
        if closing and re.match(rf"^{closing[-1]}\}}\) : \(\) -> \(\)(\s+loc\(.*\))?$", line):
            out.append(line[:len(closing.pop())] + "}" + (re.search(
                r"(\s+loc\(.*\))?$", line).group(0) or ""))  # type: ignore[union-attr]
            continue
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")
