"""The inputs execution checks a verdict on: a counterexample's witness
(`witness_inputs`) and the boundary set behind a `holds`
(`boundary_inputs`), for a source in the Program model or, by its
calling-convention labels, outside it (`label_*`)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from gpu_alloc_verify.oracles.differential import DEFAULT_SIZE, default_value
from gpu_alloc_verify.oracles.source_interp import ArgValue
from gpu_alloc_verify.verify.model.program import MemRefType, Program
from gpu_alloc_verify.verify.source.facts import SourceFacts


def boundary_inputs(program: Program, function: str, budget: int = 16
                    ) -> list[dict[str, ArgValue]]:
    """Inputs to cross-check a `holds` on: every assignment of the i1
    arguments while it fits the budget, and for integer arguments 0, 1, the
    default size and one past the analysis's unroll bound."""
    from gpu_alloc_verify.verify.extract.calls import DEFAULT_LOOP_BOUND

    fn = next(f for f in program.functions if f.name == function)
    conds = [a.name for a in fn.args if a.type == "i1"]
    ints = [a.name for a in fn.args if a.type not in ("i1",)
            and not isinstance(a.type, MemRefType) and isinstance(default_value(a.type), int)]
    int_values = (DEFAULT_SIZE, 0, 1, DEFAULT_LOOP_BOUND + 1)
    out: list[dict[str, ArgValue]] = []
    bools = list(itertools.product((False, True), repeat=len(conds)))
    for k, value in enumerate(int_values):
        for pattern in bools if k == 0 else bools[:1] + bools[-1:]:
            inputs: dict[str, ArgValue] = dict(zip(conds, pattern, strict=True))
            inputs.update({name: value for name in ints})
            if inputs not in out:
                out.append(inputs)
            if len(out) >= budget:
                return out
        if not ints:
            break
    return out


def witness_inputs(program: Program, facts: SourceFacts, path: Mapping[str, Any]
                   ) -> list[tuple[str, dict[str, ArgValue]]]:
    """(function, inputs) to run for a counterexample `path` ({"f:%label": value}):
    its functions with the values it names, mapped from the analysis's labels
    to the program's arguments by position.  A path that names no function
    (a violation on every path) runs every function on default inputs."""
    by_fn: dict[str, dict[str, ArgValue]] = {}
    for key, value in path.items():
        func, _, label = str(key).rpartition(":")
        labels = facts.arg_names.get(func, [])
        fn = next((f for f in program.functions if f.name == func), None)
        if fn is None or label not in labels:
            continue
        index = labels.index(label)
        if index < len(fn.args):
            by_fn.setdefault(func, {})[fn.args[index].name] = value
    if by_fn:
        return list(by_fn.items())
    return [(fn.name, {}) for fn in program.functions]


def label_witnesses(facts: SourceFacts, path: Mapping[str, Any]
                    ) -> list[tuple[str, dict[str, ArgValue]]]:
    """`witness_inputs` for a source outside the model: inputs by label."""
    by_fn: dict[str, dict[str, ArgValue]] = {}
    for key, value in path.items():
        func, _, label = str(key).rpartition(":")
        if label in facts.arg_names.get(func, []):
            by_fn.setdefault(func, {})[label] = value
    return list(by_fn.items()) or [(f, {}) for f in facts.arg_names]


def label_boundary_inputs(facts: SourceFacts, module: Any, function: str, budget: int = 16
                          ) -> list[dict[str, ArgValue]]:
    """`boundary_inputs` for a source outside the model: i1 arguments by the
    lowered types (every assignment within the budget), the rest default."""
    from gpu_alloc_verify.verify.invariants.lowered_args import function_types, source_groups

    types = function_types(module, function) or []
    labels = facts.lowered_arg_names.get(function, [])
    conds = [base for base, rank in source_groups(labels) if rank == -1
             and labels.index(base) < len(types) and types[labels.index(base)] == "i1"]
    patterns = list(itertools.product((False, True), repeat=len(conds)))[:budget]
    return [dict(zip(conds, p, strict=True)) for p in patterns]
