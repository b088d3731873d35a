"""Reading MLIR text into the generator's `Program` model, where it fits.

`check` does not need this: it reads any module as written
(`verify.ir.source_module`, `verify.ir.source_read`).  The model is needed where
the harness re-runs a program it printed (replaying a campaign record,
`verify.api`) and by what executes programs (the differential oracle, the
in-process xDSL lowerings); for a user's file they use it when the file fits
(`model_of`), and say why not otherwise (`model_gap`).

The text is first normalized to generic form by any `mlir-opt` found (no
pass); without one, xDSL reads it directly (generic form only).  Ops outside
the model are an error that names the op and its position.
"""

from __future__ import annotations

import re
from typing import Any

from xdsl.parser import Parser

from verify.ir import locations
from verify.ir.attrs import source_loc
from verify.ir.lowered_ir import op_name
from verify.ir.source_text import normalize
from verify.ir.tools import find_mlir_opt
from verify.ir.types import memref_text
from verify.ir.xdsl_context import gpu_unregistered
from verify.model.errors import SourceParseError
from verify.model.program import (
    Alloc,
    Arg,
    Dealloc,
    For,
    Function,
    HostLoad,
    HostStore,
    If,
    Memcpy,
    MemRefType,
    Memset,
    Op,
    Program,
    Wait,
)

_IGNORED = {"arith.constant", "func.return", "scf.yield", "memref.dim"}


def model_of(generic: str, name: str) -> Program | None:
    """The model of already normalized generic text, or None where it does not fit."""
    try:
        return _parse_generic(generic, name, file_ids=True)
    except Exception:  # outside the model, whatever the reader tripped on
        return None


def model_gap(generic: str, name: str) -> str:
    try:
        _parse_generic(generic, name, file_ids=True)
    except SourceParseError as e:
        return str(e)
    except Exception as e:  # noqa: BLE001 - any reason is the answer asked for
        return f"{name}: {type(e).__name__}: {e}"
    return ""


_XDSL_POS = re.compile(r"^\S*:(\d+):(\d+)$")


def program_from_text(text: str, name: str = "<input>") -> Program:
    """The model of MLIR text, normalized by the newest mlir-opt found (as is
    without one: generic form only)."""
    tool = find_mlir_opt()
    return _parse_generic(normalize(text, name, tool) if tool else text, name)


def _parse_generic(generic: str, name: str, file_ids: bool = False) -> Program:
    try:
        module = Parser(gpu_unregistered(), generic, name).parse_module()
    except Exception as e:  # xDSL raises several error types
        msg = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
        pos = _XDSL_POS.match(msg[0]) if msg else None
        if pos and len(msg) > 1:
            raise SourceParseError(f"{name}:{pos.group(1)}:{pos.group(2)}: not valid MLIR: "
                                   f"{msg[-1]}; fix the file there") from e
        raise SourceParseError(f"{name}: not valid MLIR: {msg[0] if msg else e}") from e
    return _Reader(name, file_ids).module(module)


class _Reader:
    def __init__(self, name: str, file_ids: bool = False) -> None:
        self.file = name
        self.file_ids = file_ids
        self.names: dict[Any, str] = {}
        self.consts: dict[Any, int] = {}
        self.count = 0
        self.used_ids: set[str] = set()

    def where(self, op: Any) -> str:
        """The op's line and column in the file being read."""
        pos = locations.position(getattr(op, "location", None))
        at = locations.split_file_key(pos) if pos else None
        return f"{self.file}:{at[1]}:{at[2]}" if at else self.file

    def fail(self, op: Any, why: str) -> SourceParseError:
        return SourceParseError(f"{self.where(op)}: {why}")

    def name(self, value: Any, prefix: str = "v") -> str:
        if value not in self.names:
            self.count += 1
            self.names[value] = f"%{prefix}{self.count}"
        return self.names[value]

    def op_id(self, op: Any) -> str:
        # A name location is the op's id; a file location too where the text
        # itself is lowered (it is then the key lowered calls carry, see
        # `verify.extract.facts.source_loc`).
        loc = locations.parse(str(getattr(op, "location", "")))
        named = loc.name if loc is not None and loc.kind == "name" and not loc.children \
            else None
        key = named or (source_loc(op) if self.file_ids else None)
        if key and key not in self.used_ids:
            self.used_ids.add(key)
            return key
        k = len(self.used_ids) + 1
        while f"op{k}" in self.used_ids:
            k += 1
        self.used_ids.add(f"op{k}")
        return f"op{k}"

    def module(self, module: Any) -> Program:
        funcs = []
        for op in module.body.blocks[0].ops:
            if op_name(op) != "func.func":
                raise self.fail(op, f"'{op_name(op)}' at module level is not modelled; "
                                "put the gpu ops inside func.func")
            funcs.append(self.function(op))
        if not funcs:
            raise SourceParseError(f"{self.file}: no func.func in the module")
        return Program(tuple(funcs))

    def function(self, op: Any) -> Function:
        fname = str(op.properties["sym_name"].data)
        if not op.regions or not op.regions[0].blocks:
            raise self.fail(op, f"@{fname} is a declaration; the model holds bodies only")
        block = op.regions[0].blocks[0]
        args = []
        for i, a in enumerate(block.args):
            ty = str(a.type)
            if ty not in ("i1", "index"):
                raise self.fail(op, f"argument {i} of @{fname} has type {ty}; "
                                "only i1 (branch) and index (size) arguments are modelled")
            self.names[a] = f"%{'cond' if ty == 'i1' else 'size'}{i}"
            args.append(Arg(self.names[a], ty))
        return Function(fname, tuple(args), self.ops(block))

    def ops(self, block: Any) -> tuple[Op, ...]:
        out: list[Op] = []
        for op in block.ops:
            res = self.op(op)
            if res is not None:
                out.append(res)
        return tuple(out)

    def segments(self, op: Any) -> list[int] | None:
        seg = _first_set(op.properties.get("operandSegmentSizes"),
                         op.attributes.get("operand_segment_sizes"))
        return list(seg.get_values()) if seg is not None else None

    def token_and_deps(self, op: Any, n_deps: int) -> tuple[str | None, tuple[str, ...]]:
        deps = tuple(self.name(v, "t") for v in op.operands[:n_deps])
        tok = [r for r in op.results if "gpu.async.token" in str(r.type)]
        return (self.name(tok[0], "t") if tok else None), deps

    def n_token_operands(self, op: Any) -> int:
        return sum(1 for v in op.operands if "gpu.async.token" in str(v.type))

    def op(self, op: Any) -> Op | None:
        name = op_name(op)
        if name == "arith.constant":
            # Not `a or b`: xDSL's IntegerAttr of 0 is falsy.
            value = getattr(_first_set(op.properties.get("value"), op.attributes.get("value")),
                            "value", None)
            data = getattr(value, "data", None)
            if isinstance(data, (int, float)):
                self.consts[op.results[0]] = int(data)
            return None
        if name in _IGNORED:
            return None
        oid = self.op_id(op)
        if name == "gpu.wait":
            token, deps = self.token_and_deps(op, len(op.operands))
            return Wait(oid, token, deps)
        if name == "gpu.alloc":
            seg = self.segments(op) or [self.n_token_operands(op), 0, 0]
            token, deps = self.token_and_deps(op, seg[0])
            mem = [r for r in op.results if "memref" in str(r.type)][0]
            mtype = _memref_type(op, str(mem.type), self)
            dyn = tuple(self.name(v) for v in op.operands[seg[0]:seg[0] + seg[1]])
            shared = "hostShared" in op.properties or "hostShared" in op.attributes
            return Alloc(oid, self.name(mem, "m"), token, deps, shared, mtype, dyn)
        if name in ("gpu.dealloc", "gpu.memset", "gpu.memcpy"):
            n_tok = self.n_token_operands(op)
            token, deps = self.token_and_deps(op, n_tok)
            rest = list(op.operands[n_tok:])
            if name == "gpu.dealloc":
                return Dealloc(oid, token, deps, self.name(rest[0], "m"),
                               _memref_type(op, str(rest[0].type), self))
            if name == "gpu.memset":
                return Memset(oid, token, deps, self.name(rest[0], "m"),
                              _memref_type(op, str(rest[0].type), self),
                              self.consts.get(rest[1], 0))
            return Memcpy(oid, token, deps, self.name(rest[0], "m"), self.name(rest[1], "m"),
                          _memref_type(op, str(rest[0].type), self))
        if name == "memref.store":
            return HostStore(oid, self.name(op.operands[1], "m"),
                             _memref_type(op, str(op.operands[1].type), self),
                             self.consts.get(op.operands[0], 0))
        if name == "memref.load":
            return HostLoad(oid, self.name(op.results[0]), self.name(op.operands[0], "m"),
                            _memref_type(op, str(op.operands[0].type), self))
        if name == "scf.if":
            cond = op.operands[0]
            if cond not in self.names or not self.names[cond].startswith("%cond"):
                raise self.fail(op, "scf.if on a value other than an i1 function argument "
                                "is not modelled")
            if op.results:
                raise self.fail(op, "scf.if with results is not modelled")
            then = self.ops(op.regions[0].blocks[0])
            orelse = self.ops(op.regions[1].blocks[0]) if op.regions[1].blocks else ()
            return If(oid, self.names[cond], then, orelse)
        if name == "scf.for":
            lb, ub, step = (self.consts.get(v) for v in op.operands[:3])
            if lb is None or ub is None or not step or len(op.operands) > 3:
                raise self.fail(op, "scf.for needs constant bounds and no iter_args")
            body = op.regions[0].blocks[0]
            iv = self.name(body.args[0], "i")
            return For(oid, iv, max(0, -(-(ub - lb) // step)), self.ops(body))
        raise self.fail(op, f"'{name}' is not modelled (supported: gpu.wait, gpu.alloc, "
                        "gpu.dealloc, gpu.memset, gpu.memcpy, memref.load/store, scf.if, "
                        "scf.for, arith.constant); remove it or rewrite it with those ops")


def _memref_type(op: Any, text: str, reader: _Reader) -> MemRefType:
    parsed = memref_text(text)
    if parsed is None or parsed.rest:
        raise reader.fail(op, f"memref type {text} is not modelled (no layout or "
                          "memory space supported)")
    return MemRefType(parsed.dims, parsed.elem)


def _first_set(*attrs: Any) -> Any:
    return next((a for a in attrs if a is not None), None)
