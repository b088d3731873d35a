"""`vector.print` in host code, on the source side.

It prints a scalar (or a string literal, or only its punctuation) to
stdout and reads no buffer, so it changes nothing a run observes; the text
is kept with the run's prints for the report.  A string literal is a
constant global of the lowered module (`printString` of it), made at its
first use under the op's location: the source side makes the same host
buffer, so both sides hold the same allocations.  The lowered side's
`printF32`, `printNewline`, ... (`oracles.lowered_host.VECTOR_PRINTERS`) are
as silent.  Printing a whole vector value needs vector values on the host,
which this interpreter does not model: unknown, naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Operation

from gpu_alloc_verify.oracles.kernel_api import MemRefView
from gpu_alloc_verify.oracles.llvm_values import type_name
from gpu_alloc_verify.oracles.source_xdsl.state import state
from gpu_alloc_verify.oracles.source_xdsl.values import Unmodelled
from gpu_alloc_verify.verify.ir.xdsl_context import gpu_unregistered


def _print(self: Any, interpreter: Interpreter, op: Operation,
           args: PythonValues) -> PythonValues:
    if op.operands and type_name(op.operands[0].type).startswith("vector<"):
        raise Unmodelled(f"vector.print of a {type_name(op.operands[0].type)} value on the host")
    st = state(interpreter)
    literal = op.properties.get("stringLiteral") or op.attributes.get("stringLiteral")
    if literal is not None and not args:
        text = getattr(literal, "data", str(literal))
        key = f"vector.print str at {id(op)}"
        if key not in st.globals:
            data = text.encode() + b"\0"
            st.at(op)
            ptr = st.rt.host_alloc(len(data))
            st.rt.initialize(ptr, data)
            st.globals[key] = MemRefView(ptr, 0, (len(data),), (1,), "i8")
    else:
        text = str(args[0]) if args else ""
    st.prints.append(f"vector.print {text}")
    return ()


@lru_cache(maxsize=1)
def vector_functions() -> InterpreterFunctions:
    """`vector.print` on the class the source context parses it into (xDSL's
    own `vector.PrintOp`: no terminator)."""
    op_type = gpu_unregistered().get_optional_op("vector.print")
    assert op_type is not None  # the context allows unregistered ops
    run: Callable[..., Any] = _print
    cls: type[InterpreterFunctions] = register_impls(
        type("VectorFunctions", (InterpreterFunctions,),
             {"run_vector_print": impl(op_type)(run)}))
    return cls()
