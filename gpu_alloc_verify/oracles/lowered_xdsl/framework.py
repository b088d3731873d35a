"""xDSL's interpreter, dispatching over op names, for both readers' IR.

Implementations are written as xDSL's framework has them (`@impl`,
`@impl_terminator`, `@impl_external` on `InterpreterFunctions` classes,
`Interpreter.register_implementations`), so the lowered oracle is one more
set of functions beside `oracles.source_xdsl`'s.  Two things differ from
`xdsl.interpreter.Interpreter`, both for the fast reader (`verify.ir.
fastparse`, some 30 times cheaper to read than xDSL's parse):

- dispatch is by the op's MLIR name, not its Python class: the fast
  reader's ops are all one class, and xDSL's own parse gives one generic
  class to each op it does not register;
- values live in one flat map, not a scope per block entered: a loop of
  `cf.br`s would otherwise chain a scope per round, and every lookup walks it.

An op nobody registered gets the framework's own dispatch, hence its own
error (`InterpretationError`), which callers turn into their verdict.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from typing import Any, TypeAlias, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImplResult,
    PythonValues,
    ReturnedValues,
    Successor,
)
from xdsl.ir import Operation, Region
from xdsl.irdl import IRDLOperation, irdl_op_definition
from xdsl.utils.exceptions import InterpretationError

from gpu_alloc_verify.oracles.kernel_api import KernelUnsupported
from gpu_alloc_verify.oracles.llvm_values import Unsupported
from gpu_alloc_verify.verify.ir import fastparse
from gpu_alloc_verify.verify.ir.locations import where as location_where
from gpu_alloc_verify.verify.ir.lowered_ir import op_name
from gpu_alloc_verify.verify.ir.protocols import IRValue
from gpu_alloc_verify.verify.ir.xdsl_context import all_dialects
from gpu_alloc_verify.verify.model import budget
from gpu_alloc_verify.verify.model.errors import NotModelled
from gpu_alloc_verify.verify.model.harness_defects import record

_Impl: TypeAlias = Callable[[InterpreterFunctions, Interpreter, Any, PythonValues], OpImplResult]

@cache
def op_type(name: str) -> type[Operation]:
    """The xDSL class `@impl` takes for op `name`: its registered one, or, for
    a name xDSL does not register, a bare class of that name (xDSL's own
    generic class would claim every trait, a terminator's among them)."""
    found = all_dialects().get_optional_op(name)
    if found is not None and found.name == name:
        return found
    bare = type(f"Unregistered_{name.replace('.', '_')}", (IRDLOperation,),
                {"name": name, "__module__": __name__})
    return irdl_op_definition(bare)


def mlir_name(cls: type[Operation]) -> str:
    return cls.name


class StepLimit(Exception):
    """More steps than a run may take (see `NamedInterpreter.step_limit`)."""


class OutOfTime(StepLimit):
    """The file's time limit ran out (`verify.model.budget`); `str()` says so."""


class InterpreterFault(Unsupported):
    """A Python exception inside an op's implementation, on xDSL's objects:
    a harness defect (`verify.model.harness_defects`, recorded where it
    arose); `str()` is the reason in words, naming the op and construct."""


# Raised on purpose by implementations: each is its own verdict input.
_DECLINES: tuple[type[BaseException], ...] = (
    StepLimit, Unsupported, KernelUnsupported, NotModelled, InterpretationError)


def _fault(op: Operation | fastparse.Op, error: Exception) -> InterpreterFault:
    where = location_where(getattr(op, "location", None))
    return InterpreterFault(record("the lowered-IR interpreter", op_name(op), where, error))


class NamedInterpreter(Interpreter):
    """An `Interpreter` over xDSL's ops or the fast reader's, by op name.

    `env` maps every SSA value (either reader's) to its Python value;
    `steps` counts the ops run, past `step_limit` a run ends (StepLimit)."""

    step_limit = 200_000

    def __init__(self, module: ModuleOp | fastparse.Op) -> None:
        # The fast reader's module stands in for xDSL's: the framework only
        # keeps it (symbol lookups are not used here).
        super().__init__(module=module, index_bitwidth=64)  # type: ignore[arg-type]
        self.env: dict[IRValue, Any] = {}
        self.steps = 0
        self._by_name: dict[str, tuple[InterpreterFunctions, _Impl]] = {}

    def register_implementations(self, impls: InterpreterFunctions, /,
                                 override: bool = False) -> None:
        super().register_implementations(impls, override=override)
        # `_impls` is the framework's own listing of a class's `@impl`s.
        for cls, fn in type(impls)._impls():
            self._by_name[mlir_name(cls)] = (impls, fn)

    def adopt(self, template: NamedInterpreter) -> None:
        """Take the implementations registered on `template` (stateless ones,
        registered once per process: registering costs some 40 times what
        setting up a run does).  Later registrations here leave it as it is."""
        impls = template._impls
        self._impls = dataclasses.replace(
            impls, _external_funcs_dict=dict(impls._external_funcs_dict))
        self._by_name = dict(template._by_name)

    def handled(self) -> frozenset[str]:
        """The MLIR names of the ops registered here."""
        return frozenset(self._by_name)

    def run_op_named(self, op: Operation | fastparse.Op, inputs: PythonValues
                     ) -> OpImplResult:
        """Run `op` by its name; the framework's dispatch (and so its error)
        for a name nobody registered."""
        entry = self._by_name.get(op_name(op))
        if entry is None:
            try:
                return self._impls.run(self, cast(Operation, op), inputs)
            except InterpretationError as e:
                raise self.unknown_op(op_name(op), e) from None
        ft, fn = entry
        return fn(ft, self, op, inputs)

    def unknown_op(self, name: str, error: InterpretationError) -> Exception:
        """What a run raises for op `name` nobody implements: by default the
        framework's own error; subclasses turn it into their verdict."""
        return error

    def run_ssacfg_region(self, region: Region, args: PythonValues,
                          name: str = "region") -> PythonValues:
        """Run `region` from its entry block until a terminator returns;
        an empty region, or a block without a terminator, returns nothing."""
        env = self.env
        value_of = env.__getitem__
        by_name = self._by_name  # xDSL's generic ops are all named builtin.unregistered
        blocks = region.blocks
        block = blocks[0] if blocks else None
        values: PythonValues = args
        while block is not None:
            for arg, v in zip(block.args, values, strict=False):
                env[arg] = v
            result: OpImplResult | None = None
            op = None
            try:
                for op in block.ops:
                    self.steps += 1
                    if self.steps > self.step_limit:
                        raise StepLimit(f"more than {self.step_limit} steps")
                    if not self.steps & 1023 and budget.expired():
                        raise OutOfTime(budget.limit_words("the lowered-IR interpreter"))
                    inputs = tuple(map(value_of, op.operands))
                    # `run_op_named`, inlined for the common case (a registered name)
                    entry = by_name.get(op.name)
                    result = entry[1](entry[0], self, op, inputs) if entry is not None \
                        else self.run_op_named(op, inputs)
                    for r, v in zip(op.results, result.values, strict=False):
                        env[r] = v
                    if result.terminator_value is not None:
                        break
            except _DECLINES:
                raise
            except Exception as e:
                # On the fast reader's objects the caller reruns on xDSL's
                # (`oracles.lowered_interp`); there, the fault is the harness's.
                if op is None or isinstance(op, fastparse.Op):
                    raise
                raise _fault(op, e) from e
            if result is None or result.terminator_value is None:
                return ()
            flow = result.terminator_value
            if isinstance(flow, Successor):
                block, values = flow.block, flow.args
                continue
            assert isinstance(flow, ReturnedValues)
            return flow.values
        return ()
