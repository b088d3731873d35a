"""Every consumer of an op kind handles what the op table says (issue 39, item 2).

`verify.model.op_specs` is the one table of op kinds.  Each consumer keeps
its per-op logic in a dispatch table, keyed by model class (`OpSpec.model`),
by MLIR name (`OpSpec.mlir`) or by generator kind (`OpSpec.gen_kind`); one
test checks all of them against the spec and names each consumer that misses
a kind (or keys one the spec lacks).  A consumer that exposes no table yet
says why in `PENDING`: the test reads its `HANDLED_OPS` (MLIR names or spec
kinds) the moment it appears.  A second test scans the product for lists of
op names kept by hand outside the spec.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gpu_alloc_verify.generators import features as features_mod
from gpu_alloc_verify.generators import programs as programs_mod
from gpu_alloc_verify.oracles import source_interp
from gpu_alloc_verify.oracles.source_xdsl import gpu_ops
from gpu_alloc_verify.verify.lowerings import xdsl_build
from gpu_alloc_verify.verify.model import op_specs, printer, runtime_table
from gpu_alloc_verify.verify.model.op_specs import SPECS, OpSpec
from gpu_alloc_verify.verify.model.program import OP_KINDS
from gpu_alloc_verify.verify.source import facts, light, to_program

PRODUCT = Path(__file__).resolve().parents[2] / "gpu_alloc_verify"
assert (PRODUCT / "verify").is_dir(), PRODUCT  # a scan of nothing passes vacuously


def _classes(keep: Callable[[OpSpec], bool] = lambda s: True) -> frozenset[object]:
    return frozenset(s.model for s in SPECS if s.model is not None and keep(s))


def _mlir(keep: Callable[[OpSpec], bool]) -> frozenset[object]:
    return frozenset(op_specs.names(keep))


@dataclass(frozen=True)
class Consumer:
    """A consumer's table (its keys, read when checked) and the keys the
    spec says it must have; `skipped`: key -> why it deliberately has none."""

    keys: Callable[[], Collection[object]]
    expected: frozenset[object]
    skipped: dict[object, str] = field(default_factory=dict)
    exact: bool = True  # False: the table also keys ops the spec does not hold


_ALL_CLASSES = _classes()
# Kinds the in-process consumers leave to the text path (`OpSpec.text_only`).
_TEXT = "judged from its text (verify.model.program.in_process_gap)"
_TEXT_CLASSES = dict.fromkeys(_classes(lambda s: s.text_only), _TEXT)
_TEXT_NAMES: dict[object, str] = dict.fromkeys(_mlir(lambda s: s.text_only), _TEXT)
CONSUMERS: dict[str, Consumer] = {
    # Keyed by model class (`verify.model.program.op_handler`).
    "verify.model.printer (text)": Consumer(lambda: printer._OP_PRINTERS, _ALL_CLASSES),
    "verify.model.printer.constants_of (hoisted constants)": Consumer(
        lambda: printer._OP_CONSTANTS, _ALL_CLASSES),
    "verify.source.light (the fast reader's objects)": Consumer(
        lambda: light._OP_BUILDERS, _ALL_CLASSES, _TEXT_CLASSES),
    "verify.lowerings.xdsl_build (xDSL module)": Consumer(
        lambda: xdsl_build._OP_BUILDERS, _ALL_CLASSES, _TEXT_CLASSES),
    "oracles.source_interp (the source interpreter)": Consumer(
        lambda: source_interp._OP_RUNNERS, _ALL_CLASSES, _TEXT_CLASSES),
    "generators.features (feature tags)": Consumer(
        lambda: features_mod._OP_FEATURES, _ALL_CLASSES),
    # Keyed by MLIR name.
    "verify.source.to_program (the model of a user's file)": Consumer(
        lambda: to_program._HANDLERS, _mlir(lambda s: s.model is not None), _TEXT_NAMES),
    "verify.source.facts (source facts of any file)": Consumer(
        lambda: facts.GPU_OPS, frozenset(op_specs.ORDERED_GPU_OPS)),
    "oracles.source_xdsl.gpu_ops (the source runner)": Consumer(
        lambda: gpu_ops.RUNNERS, frozenset(op_specs.GPU_OPS)),
    # Keyed by generator kind.
    "generators.programs (the generator's kinds)": Consumer(
        lambda: programs_mod._GENERATORS, frozenset(op_specs.GEN_KINDS)),
    # Tables behind a `HANDLED_OPS` hook (see PENDING), MLIR names.
    "oracles.lowered_interp": Consumer(
        lambda: _hook("gpu_alloc_verify.oracles.lowered_interp"),
        frozenset(op_specs.CALL_PATTERN_OPS), exact=False),
    "oracles.lowered_gpu": Consumer(
        lambda: _hook("gpu_alloc_verify.oracles.lowered_gpu"),
        _mlir(lambda s: s.call_pattern or s.kind == "launch"), exact=False),
    "oracles.kernel_interp": Consumer(
        lambda: _hook("gpu_alloc_verify.oracles.kernel_interp"),
        frozenset(op_specs.KERNEL_BODY_OPS), exact=False),
}

# Consumers whose table is not readable yet: consumer -> why.  Each is
# checked as soon as its module has `HANDLED_OPS` (then drop it from here).
PENDING: dict[str, str] = {}


class _NoHook(Exception):
    pass


def _hook(module: str) -> Collection[str]:
    """A module's `HANDLED_OPS`, spec kinds read as their MLIR names."""
    try:
        handled = getattr(importlib.import_module(module), "HANDLED_OPS", None)
    except ModuleNotFoundError:
        raise AssertionError(f"{module} is gone: point CONSUMERS at what has its table") \
            from None
    if handled is None:
        raise _NoHook(module)
    return {op_specs.BY_KIND[k].mlir if k in op_specs.BY_KIND else k for k in handled}


def _name(key: object) -> str:
    return key.__name__ if isinstance(key, type) else str(key)


def gaps(consumers: dict[str, Consumer], pending: dict[str, str]) -> list[str]:
    """What each consumer misses or has beyond the spec, one line per consumer."""
    out: list[str] = []
    for consumer, c in consumers.items():
        try:
            table = c.keys()
        except _NoHook:
            if consumer not in pending:
                out.append(f"{consumer}: no HANDLED_OPS and not PENDING")
            continue
        keys = set(table)
        if not set(c.skipped) <= c.expected or not all(r.strip() for r in c.skipped.values()):
            out.append(f"{consumer}: a skipped key is no spec key, or its reason is empty")
        missing = c.expected - set(c.skipped) - keys
        if missing:
            out.append(f"{consumer} handles no {sorted(map(_name, missing))}: add an entry to "
                       "its table, or list the kind in its skipped keys with the reason")
        extra = keys - c.expected if c.exact else set()
        if extra:
            out.append(f"{consumer}: entries for {sorted(map(_name, extra))}, which the op "
                       "table (verify.model.op_specs) does not say it handles")
        if isinstance(table, Mapping) and not all(callable(h) for h in table.values()):
            out.append(f"{consumer}: an entry is not callable")
    return out


def test_every_consumer_covers_the_op_table() -> None:
    found = gaps(CONSUMERS, PENDING)
    assert not found, "\n".join(found)


def test_a_missing_handler_names_its_consumer() -> None:
    name = "verify.source.facts (source facts of any file)"
    short = {k: v for k, v in facts.GPU_OPS.items() if k != "gpu.memset"}
    found = gaps({name: Consumer(lambda: short, CONSUMERS[name].expected)}, {})
    assert found == [f"{name} handles no ['gpu.memset']: add an entry to its table, or list "
                     "the kind in its skipped keys with the reason"]


def test_a_hook_is_checked_once_it_appears(monkeypatch: pytest.MonkeyPatch) -> None:
    name = "oracles.lowered_gpu"
    module = importlib.import_module(f"gpu_alloc_verify.{name}")
    monkeypatch.setattr(module, "HANDLED_OPS", ("wait", "gpu.alloc"), raising=False)
    assert gaps({name: CONSUMERS[name]}, PENDING) == [
        f"{name} handles no ['gpu.dealloc', 'gpu.launch_func', 'gpu.memcpy', 'gpu.memset']: "
        "add an entry to its table, or list the kind in its skipped keys with the reason"]


def test_the_spec_is_one_entry_per_kind() -> None:
    assert len({s.kind for s in SPECS}) == len({s.mlir for s in SPECS}) == len(SPECS)
    assert [s.model for s in op_specs.MODEL_SPECS] != [] and _ALL_CLASSES == set(OP_KINDS)
    assert len(op_specs.MODEL_SPECS) == len(OP_KINDS)
    known = {f.name for f in runtime_table.all_functions()}
    for s in SPECS:
        assert set(s.runtime) <= known, f"{s.kind}: {set(s.runtime) - known} are no mgpu calls"
        assert not s.call_pattern or s.leftover, f"{s.kind}: converted, so a leftover if not"


def _op_name_lists(tree: ast.AST) -> Iterable[tuple[int, list[str]]]:
    """Tuple, list and set literals naming two or more gpu ops of the table
    (a dict's keys are a consumer's table, checked above; the gpu dialect's
    container and kernel-side ops, `gpu.module`, `gpu.thread_id`, are no op kinds)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            found = [e.value for e in node.elts if isinstance(e, ast.Constant)
                     and isinstance(e.value, str) and e.value in _GPU_NAMES]
            if len(found) >= 2:
                yield node.lineno, found


_GPU_NAMES = frozenset(op_specs.GPU_OPS)


def test_no_op_name_list_outside_the_spec() -> None:
    spec = Path(op_specs.__file__).resolve()
    found = []
    for path in sorted(PRODUCT.rglob("*.py")):
        rel = path.relative_to(PRODUCT).as_posix()
        if path.resolve() == spec:
            continue
        found += [f"{rel}:{line}: {names}"
                  for line, names in _op_name_lists(ast.parse(path.read_text()))]
    assert not found, ("op names listed by hand; derive the list from "
                       "verify.model.op_specs:\n" + "\n".join(found))
