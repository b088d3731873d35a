"""A kernel's `gpu.func` in the text a user or the model printer wrote, read
into the generic form xDSL reads with gpu unregistered (`verify.ir.parse`,
side "source"), and the few other bits of kernel text the kernel interpreter
(`oracles.kernel_interp`) reads by pattern.

Custom-form `gpu.func` headers and the id ops and `gpu.return` in a body are
rewritten to their generic spelling; any other custom-form gpu op, and
workgroup or private memory attributions, are not modelled
(`KernelTextUnsupported`, naming it).
"""

from __future__ import annotations

import re

from gpu_alloc_verify.verify.ir import locations
from gpu_alloc_verify.verify.ir.fastparse import split_top

_FUNC_HEAD = re.compile(r'(?<!["\w.])gpu\.func\s+@("(?:[^"\\]|\\.)*"|[\w$.-]+)\s*\(')
_ID_OP = re.compile(
    r"(?<![\"\w.])gpu\.(thread_id|block_id|block_dim|grid_dim|global_id|cluster_id|"
    r"cluster_dim|cluster_block_id)\s+([xyz])\b(?:\s+upper_bound\s+\d+)?")
_RETURN = re.compile(r"(?<![\"\w.])gpu\.return\b")
_CUSTOM_GPU_OP = re.compile(r"^(\s*(?:%[^=\n]*=\s*)?)gpu\.(\w+)", re.M)
_SPACE_ATTR = re.compile(r",\s*(\d+)\s*:\s*i64>")
_WORD = re.compile(r"[\w.]+")
_TRAILING_ATTRS = re.compile(r"\s*\{[^{}]*\}\s*$")
_OP_NAME = re.compile(r"(?<![\w.%#!^\"])([a-z_]\w*\.[\w.]+)")
_DIMENSION = re.compile(r"\b([xyz])\b")


class KernelTextUnsupported(Exception):
    """The kernel text uses what the rewrite does not model (the message names it)."""


def has_custom_gpu_func(text: str) -> bool:
    """Whether `text` holds a `gpu.func` in custom form."""
    return _FUNC_HEAD.search(text) is not None


def _match_close(text: str, pos: int, open_: str, close: str) -> int:
    """The index of the `close` matching the `open_` at `pos` (strings and
    `//` comments skipped)."""
    depth, i, n = 0, pos, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise KernelTextUnsupported(f"unbalanced {open_!r} in the kernel text")


def generic_gpu_func(text: str, func: str) -> str:
    """The custom-form `gpu.func @func` of `text`, its gpu ops spelled
    generically (ValueError: no such function in the text)."""
    for m in _FUNC_HEAD.finditer(text):
        name = m.group(1).strip('"')
        if name != func:
            continue
        close = _match_close(text, m.end() - 1, "(", ")")
        args = [a for a in split_top(text[m.end():close]) if a]
        pos = close + 1
        while True:
            rest = text[pos:].lstrip()
            pos = len(text) - len(rest)
            word = _WORD.match(rest)
            if word is None:
                break
            if word.group(0) in ("workgroup", "private"):
                raise KernelTextUnsupported(f"kernel @{func} has {word.group(0)} memory "
                                            "attributions (not modelled)")
            if word.group(0) == "attributes":
                brace = text.index("{", pos)
                pos = _match_close(text, brace, "{", "}") + 1
            else:
                pos += word.end()
        if not text.startswith("{", pos):
            raise KernelTextUnsupported(f"kernel @{func}: cannot read the gpu.func header")
        end = _match_close(text, pos, "{", "}")
        names, types = [], []
        for a in args:
            name_, _, type_ = a.partition(":")
            type_ = locations.strip(type_.strip())
            type_ = _TRAILING_ATTRS.sub("", type_)
            names.append(name_.strip())
            types.append(type_.strip())
        body = _generic_gpu_ops(text[pos + 1:end], func)
        sig = ", ".join(f"{n}: {t}" for n, t in zip(names, types, strict=True))
        return (f'"gpu.func"() <{{function_type = ({", ".join(types)}) -> ()}}> ({{\n'
                f"^bb0({sig}):\n{body}\n}}) {{gpu.kernel, sym_name = \"{func}\"}} : () -> ()\n")
    raise ValueError(f"no gpu.func @{func} in the kernel text")


def _generic_gpu_ops(body: str, func: str) -> str:
    body = _ID_OP.sub(lambda m: f'"gpu.{m.group(1)}"() {{dimension = #gpu<dim {m.group(2)}>}}'
                                " : () -> index", body)
    body = _RETURN.sub('"gpu.return"() : () -> ()', body)
    other = _CUSTOM_GPU_OP.search(body)
    if other is not None:
        raise KernelTextUnsupported(f"kernel @{func} uses gpu.{other.group(2)}")
    return body


def op_named_in(line: str) -> str | None:
    """The first dialect-qualified op name in a line of xDSL's parse error
    (the op whose custom form it could not read)."""
    m = _OP_NAME.search(line)
    return m.group(1) if m else None


def memref_type_text(printed: str) -> str:
    """A memref type as xDSL prints it, its memory space written as mlir-opt
    does (`, 1>` for `, 1 : i64>`)."""
    return _SPACE_ATTR.sub(r", \1>", printed)


def dimension(printed: str) -> str | None:
    """"x", "y" or "z": the dimension a printed `#gpu<dim ...>` names."""
    m = _DIMENSION.search(printed)
    return m.group(1) if m else None
