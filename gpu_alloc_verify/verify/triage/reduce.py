"""Reducing a program's text while a violation keeps its root-cause signature.

Hypothesis shrinks a campaign's first counterexample of each (lowering,
invariant); a triage bucket's example is often an unshrunk program, and
either may carry what does not matter to the bug (an unused constant, an
argument, a branch around the op).  This reducer works on the text: it tries
deleting lines, whole blocks, function arguments, and unwrapping `scf.if` /
`scf.for` bodies, judges every candidate of a round in one batch on the
buggy lowering, and keeps a candidate only when a violation with the same
signature (`verify.triage.signature`) is still there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from gpu_alloc_verify.verify.ir.fastparse import split_list
from gpu_alloc_verify.verify.ir.text import func_args, memref_arg, opens_scf_region, split_deps
from gpu_alloc_verify.verify.lowerings.base import Lowering
from gpu_alloc_verify.verify.source.user_file import SourceModule
from gpu_alloc_verify.verify.triage.rejudge import Settings, rejudge
from gpu_alloc_verify.verify.triage.signature import signature_of

MAX_ROUNDS = 40

# When reductions stop (time.monotonic()): `findings --time-budget` ends on
# time.  Each accepted round keeps the predicate, so a reduction cut short
# still gives a program that shows the violation, only a larger one.
_deadline: float | None = None


@contextmanager
def reductions_until(deadline: float | None) -> Iterator[None]:
    """Within this block, reductions stop at `deadline` (None: no limit)."""
    global _deadline
    before, _deadline = _deadline, deadline
    try:
        yield
    finally:
        _deadline = before


def reductions_out_of_time() -> bool:
    return _deadline is not None and time.monotonic() > _deadline


@dataclass(frozen=True)
class Edit:
    """Lines to drop, and lines to replace (index -> new text)."""

    drop: frozenset[int]
    replace: tuple[tuple[int, str], ...] = ()

    def apply(self, lines: list[str]) -> list[str]:
        new = dict(self.replace)
        return [new.get(i, ln) for i, ln in enumerate(lines) if i not in self.drop]

    def weight(self, lines: list[str]) -> int:
        removed = sum(len(lines[i]) for i in self.drop)
        return removed + sum(len(lines[i]) - len(t) for i, t in self.replace)


def _block_end(lines: list[str], start: int) -> int | None:
    """Index of the line closing the block opened at `start`."""
    depth = 0
    for i in range(start, len(lines)):
        depth += lines[i].count("{") - lines[i].count("}")
        if depth <= 0 and i > start:
            return i
        if depth <= 0 and i == start:
            return None
    return None


def candidates(lines: list[str]) -> list[Edit]:
    """Every one-step reduction of the text."""
    out: list[Edit] = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("module") or stripped == "}":
            continue
        if stripped.endswith("{"):
            end = _block_end(lines, i)
            if end is not None:
                out.append(Edit(frozenset(range(i, end + 1))))
                if opens_scf_region(line):
                    out.extend(_unwrap(lines, i, end))
            head = func_args(line)
            if head is not None:
                args = split_list(head.args)
                for k in range(len(args)):
                    rest = [a for j, a in enumerate(args) if j != k]
                    out.append(Edit(frozenset(), ((i, head.with_args(rest)),)))
            continue
        if "{" in stripped or stripped.startswith("}"):
            continue
        out.append(Edit(frozenset({i})))
        out.extend(_fewer_deps(line, i))
    if not any("gpu.module" in ln for ln in lines):
        for i, line in enumerate(lines):
            if "attributes {gpu.container_module}" in line:
                out.append(Edit(frozenset(), ((i, line.replace(
                    " attributes {gpu.container_module}", "")),)))
    return out


def _fewer_deps(line: str, i: int) -> list[Edit]:
    """The op with one token of its dependency list dropped: which of two
    tokens a bug needs (an outer one, or one carried by a loop) tells causes apart."""
    cut = split_deps(line)
    deps = split_list(cut[1]) if cut else []
    if cut is None or len(deps) < 2:
        return []
    before, _, after = cut
    return [Edit(frozenset(), ((i, before + ", ".join(d for j, d in enumerate(deps)
                                                      if j != k) + after),))
            for k in range(len(deps))]


def _unwrap(lines: list[str], start: int, end: int) -> list[Edit]:
    """The region's body in place of the region (its else branch dropped)."""
    middle = next((j for j in range(start + 1, end)
                   if lines[j].strip().startswith("} else")), None)
    drop = {start, end} | (set(range(middle, end)) if middle is not None else set())
    # The body moves out one level: dedent it by what the region added.
    outer = len(lines[start]) - len(lines[start].lstrip())
    body = [j for j in range(start + 1, end) if j not in drop and lines[j].strip()]
    inner = min((len(lines[j]) - len(lines[j].lstrip()) for j in body), default=outer)
    cut = max(0, inner - outer)
    return [Edit(frozenset(drop), tuple((j, lines[j][cut:]) for j in body if cut))]


def host_buffers(text: str) -> str:
    """`text` with each memref argument of a function made a synchronous
    `gpu.alloc host_shared` at the top of its body (the generator's model
    reads no memref argument; the gpu ops on the buffer lower the same)."""
    out: list[str] = []
    for line in text.splitlines():
        head = func_args(line)
        if head is None or not line.rstrip().endswith("{"):
            out.append(line)
            continue
        kept, allocs = [], []
        pad = line[:len(line) - len(line.lstrip())] + "  "
        for arg in split_list(head.args):
            a = memref_arg(arg)
            if a is None:
                kept.append(arg)
                continue
            name, mtype, shape = a
            dims = shape.split("x")[:-1]
            sizes = []
            for k, d in enumerate(dims):
                if d.strip() == "?":
                    size = f"{name}_d{k}"
                    allocs.append(f"{pad}{size} = arith.constant 4 : index")
                    sizes.append(size)
            allocs.append(f"{pad}{name} = gpu.alloc host_shared ({', '.join(sizes)}) : {mtype}")
        out.append(head.with_args(kept))
        out.extend(allocs)
    return "\n".join(out) + "\n"


Predicate = Callable[[Sequence[str]], list[bool]]


def in_model(source: SourceModule) -> bool:
    """Is the text in the generator's model (what the in-process lowerings take)?"""
    return source.program() is not None


def signature_predicate(settings: Settings, invariant: str, key: str,
                        lowering: Lowering, model_only: bool = False) -> Predicate:
    """True for texts whose judgement on `lowering` still has a violation of
    `invariant` with signature `key` (and, with `model_only`, that stay in the
    generator's model, so that an in-process fixed lowering takes them)."""
    def check(texts: Sequence[str]) -> list[bool]:
        names = [f"candidate-{k}" for k in range(len(texts))]
        judged = rejudge(texts, names, settings, [[invariant]] * len(texts), lowering,
                         in_model if model_only else None)
        return [any(signature_of(v, settings.pipeline).key == key for v in found or [])
                for found in judged]

    return check


def reduce_text(text: str, keeps: Predicate, max_rounds: int = MAX_ROUNDS) -> str:
    """The smallest text found from `text` for which `keeps` stays true."""
    lines = text.rstrip("\n").splitlines()
    for _ in range(max_rounds):
        if reductions_out_of_time():
            break
        edits = candidates(lines)
        if not edits:
            break
        texts = ["\n".join(e.apply(lines)) + "\n" for e in edits]
        ok = [e for e, good in zip(edits, keeps(texts), strict=True) if good]
        if not ok:
            break
        # All successful deletions together first (they rarely conflict), else
        # the one that removes most.
        merged = Edit(frozenset().union(*(e.drop for e in ok if not e.replace)))
        if len([e for e in ok if not e.replace]) > 1:
            merged_text = "\n".join(merged.apply(lines)) + "\n"
            if keeps([merged_text])[0]:
                lines = merged.apply(lines)
                continue
        best = max(ok, key=lambda e: e.weight(lines))
        lines = best.apply(lines)
    return "\n".join(lines) + "\n"
