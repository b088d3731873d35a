"""Line-level reading and rewriting of MLIR text in its printed forms: the
one place outside the parsers where MLIR text is matched by pattern.

Triage, `repro/` and the mutation operators work on text as printed (a
program one op per line, lowered code in custom or generic form), often text
that need not parse: a reduction candidate, a mutant, a lit test.  What they
need of a line, and the edits they make, are here under names that say what
they do; a scan (`tests/ir/test_text_scan.py`) keeps other modules from growing
patterns of their own.  Structure (ops, regions, attributes) is read through
`verify.ir.parse`; locations through `verify.ir.locations`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# -- function headers -------------------------------------------------------

_FUNC_NAME = re.compile(r"^(\s*)func\.func\s+(?:\w+\s+)?@([\w$.]+)")
_FUNC_ARGS = re.compile(r"^(\s*func\.func\s+(?:\w+\s+)?@[\w$.]+\()(.*)(\).*)$")
_FIRST_FUNC_ARGS = re.compile(r"func\.func\s+(?:\w+\s+)?@[\w$.]+\(([^)]*)\)")
_ARG_NAME = re.compile(r"(%[\w$.]+)\s*:")
_MEMREF_ARG = re.compile(r"^(%[\w$.]+)\s*:\s*(memref<([^>]*)>)$")
_NUMBERED_ARG = re.compile(r"%(?:arg|cond|size|x|buf)(\d+)\b")


_PLAIN_VALUE_NAME = re.compile(r"%[A-Za-z_][\w$.-]*")


def is_plain_value_name(name: str) -> bool:
    """Is `name` an SSA name printed as is (`%buf`, not `%0` nor a quoted one)?"""
    return _PLAIN_VALUE_NAME.fullmatch(name) is not None


def func_header(line: str) -> tuple[str, str] | None:
    """(indentation, name) of a line that opens a `func.func`, else None."""
    m = _FUNC_NAME.match(line)
    return (m.group(1), m.group(2)) if m else None


@dataclass(frozen=True)
class FuncArgs:
    """A `func.func` line cut around its argument list (up to the line's last `)`)."""

    head: str  # up to and including the `(`
    args: str  # the argument list as written
    tail: str  # from the closing `)` on

    def with_args(self, args: Sequence[str]) -> str:
        """The line with `args` as its argument list."""
        return self.head + ", ".join(args) + self.tail


def func_args(line: str) -> FuncArgs | None:
    m = _FUNC_ARGS.match(line)
    return FuncArgs(m.group(1), m.group(2), m.group(3)) if m else None


def first_func_arg_names(text: str) -> list[str]:
    """The argument names (`%x`) of the first `func.func` of `text`."""
    m = _FIRST_FUNC_ARGS.search(text)
    return _ARG_NAME.findall(m.group(1)) if m else []


def memref_arg(arg: str) -> tuple[str, str, str] | None:
    """(name, type, shape) of an argument `%a : memref<shape>`, else None."""
    m = _MEMREF_ARG.match(arg)
    return (m.group(1), m.group(2), m.group(3)) if m else None


def rename_numbered_args(text: str, names: Sequence[str]) -> str:
    """`%argN` (or a model's `%condN`, `%sizeN`, `%xN`, `%bufN`) as `names[N]`,
    where there is one."""
    return _NUMBERED_ARG.sub(lambda a: names[int(a.group(1))] if int(a.group(1)) < len(names)
                             else a.group(0), text)


# -- ops of a line ----------------------------------------------------------

_REGION_OPENER = re.compile(r"^\s*(scf\.if|scf\.for)\b.*\{\s*$")
_LOOP = re.compile(r"^\s*(?:%[\w#:, %]+ = )?(scf\.for|scf\.while)\b")
_BRANCH = re.compile(r"^\s*(?:%\S+\s*=\s*)?(scf\.if|cf\.cond_br|llvm\.cond_br)\b")
_DEPS = re.compile(r"^(.*\b(?:async|gpu\.wait)\s*\[)([^\]]*)(\].*)$")
_LAUNCH = re.compile(r"^\s*(?:%[\w$.#:]+\s*=\s*)?gpu\.launch_func\s*(?:<(%[\w$.#]+)\s*:[^>]*>)?"
                     r"\s*@([\w$.]+)::@([\w$.]+)")
_HOST_ACCESS = re.compile(r"^\s*(?:%[\w$.#:]+\s*=\s*)?(llvm\.(?:load|store))\b")
_WIDE = re.compile(r"\b[if]64\b")
_OP_NAME = re.compile(r"\b([a-z_]+\.[a-z_.]+)\b")
_SPACED_MEMREF = re.compile(r"memref<[^>]*,\s*\d+\s*>")


def opens_scf_region(line: str) -> bool:
    """Does the line open an `scf.if` or `scf.for` region (ending in `{`)?"""
    return _REGION_OPENER.match(line) is not None


def branch_op(line: str) -> str | None:
    """The branching op a line starts with (`scf.if`, `cf.cond_br`, `llvm.cond_br`)."""
    m = _BRANCH.match(line)
    return m.group(1) if m else None


def loop_op(line: str) -> str | None:
    """The loop op a line starts with (`scf.for`, `scf.while`), results and all."""
    m = _LOOP.match(line)
    return m.group(1) if m else None


def split_deps(line: str) -> tuple[str, str, str] | None:
    """A custom-form op line cut around its dependency list `async [...]` or
    `gpu.wait [...]`: (before, the list, after)."""
    m = _DEPS.match(line)
    return (m.group(1), m.group(2), m.group(3)) if m else None


@dataclass(frozen=True)
class Launch:
    """A custom-form `gpu.launch_func` line."""

    stream: str | None  # `<%s : !llvm.ptr>`'s value, None without one
    module: str
    kernel: str


def launch_func(line: str) -> Launch | None:
    m = _LAUNCH.match(line)
    return Launch(m.group(1), m.group(2), m.group(3)) if m else None


def host_access(line: str) -> str | None:
    """`llvm.load` or `llvm.store` where a line is one, else None."""
    m = _HOST_ACCESS.match(line)
    return m.group(1) if m else None


def has_64bit_type(text: str) -> bool:
    """Does the op text name `i64` or `f64`?"""
    return _WIDE.search(text) is not None


def first_op_name(line: str) -> str | None:
    """The first dotted op name (`memref.dealloc`) a line mentions."""
    m = _OP_NAME.search(line)
    return m.group(1) if m else None


def has_memory_space(text: str) -> bool:
    """Does the text name a memref type with a numeric memory space?"""
    return _SPACED_MEMREF.search(text) is not None


# -- words about IR: names and types masked, op keys replaced ---------------

_NAMES = re.compile(r"\b(?:op\d+|p\d+/op\d+|\S+\.mlir:\d+:\d+|%\w+|\d+)\b")
_QUOTED_TYPE = re.compile(r"'![^']*'")
_OP_KEY = re.compile(r"\b(op\d+|\S+\.mlir:\d+:\d+)\b")
_NAME_LOC = re.compile(r'\s*loc\("[^"]*"\)')


def mask_names(text: str) -> str:
    """`text` with op keys, locations, SSA names and numbers as `N`: what stays
    the same when one cause shows in another program."""
    return _NAMES.sub("N", text)


def mask_types(text: str) -> str:
    """`text` with each quoted dialect type (`'!llvm.ptr<1>'`) as `'T'`."""
    return _QUOTED_TYPE.sub("'T'", text)


def replace_op_keys(text: str, name: Callable[[str], str]) -> str:
    """`text` with each source op key (`op3`, `k.mlir:3:5`) replaced by `name(key)`."""
    return _OP_KEY.sub(lambda m: name(m.group(1)), text)


def strip_name_locs(text: str) -> str:
    """`text` without its name locations (`loc("op3")`) and the space before each."""
    return _NAME_LOC.sub("", text)


# -- generic-form properties ------------------------------------------------

_PROPS = re.compile(r"<\{.*?\}>")
_CALLEE = re.compile(r"callee = @[\w$.-]+")
_SEGMENTS = re.compile(r"operandSegmentSizes = array<i32: \d+, 0>")
_SYM_NAME = re.compile(r'sym_name = "[\w$.-]+"')
_FUNCTION_TYPE = re.compile(r"function_type = !llvm\.func<.*?>(?=[,}])")


def properties(line: str) -> str | None:
    """The properties `a = 1, b = 2` of a generic-form op line (`<{...}>`), else None."""
    m = _PROPS.search(line)
    return m.group(0)[2:-2] if m else None


def with_callee(text: str, callee: str) -> str:
    return _CALLEE.sub(f"callee = @{callee}", text)


def with_one_operand_segment(text: str) -> str:
    """An `llvm.call`'s `operandSegmentSizes` as one operand and no bundle."""
    return _SEGMENTS.sub("operandSegmentSizes = array<i32: 1, 0>", text)


def with_sym_name(text: str, name: str) -> str:
    return _SYM_NAME.sub(f'sym_name = "{name}"', text)


def with_function_type(text: str, type_: str) -> str:
    """The `llvm.func`'s `function_type` as `type_` (`!llvm.func<...>`)."""
    return _FUNCTION_TYPE.sub(f"function_type = {type_}", text)


# -- what a module holds ----------------------------------------------------

_KERNEL_OPS = re.compile(r"\bgpu\.(module|launch_func)\b")  # custom or generic form
_RUNTIME_OP = re.compile(r"\bgpu\.(?:alloc|dealloc|memset|memcpy|wait)\b")
_GENERIC_RUNTIME_OP = re.compile(r'"gpu\.(wait|alloc|dealloc|memset|memcpy)"|!gpu\.async\.token')
_GENERATED_LOC = re.compile(r'\bloc\("op\d+"\)')
_DENSE = re.compile(r"dense<(.*)>\s*:\s*(?:tensor|vector)<([^>]*)>", re.S)


def has_kernels(text: str) -> bool:
    """Does the text hold a `gpu.module` or `gpu.launch_func`?"""
    return _KERNEL_OPS.search(text) is not None


def has_gpu_runtime_op(text: str) -> bool:
    """Does the text name `gpu.alloc`, `dealloc`, `memset`, `memcpy` or `wait`?"""
    return _RUNTIME_OP.search(text) is not None


def has_generic_gpu_runtime_op(text: str) -> bool:
    """Does generic-form text hold such an op (`"gpu.wait"`) or an async token type?"""
    return _GENERIC_RUNTIME_OP.search(text) is not None


def has_generated_locs(text: str) -> bool:
    """Does the text carry the generator's name locations (`loc("op3")`)?"""
    return _GENERATED_LOC.search(text) is not None


def dense_literal(text: str) -> tuple[str, str] | None:
    """(body, shape) of a `dense<body> : tensor<shape>` (or `vector<...>`) attribute."""
    m = _DENSE.fullmatch(text.strip())
    return (m.group(1), m.group(2)) if m else None
