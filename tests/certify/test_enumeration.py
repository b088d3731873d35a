"""The certificate's program space: exactly the valid programs, each once
up to renaming of values (op order kept), in an order every machine shares."""

from __future__ import annotations

from collections import Counter

import pytest

from gpu_alloc_verify.verify.certify.canonical import canonical
from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
from gpu_alloc_verify.verify.certify.judge import Shard, Target, judge_shard
from gpu_alloc_verify.verify.certify.space import Step, programs
from gpu_alloc_verify.verify.certify.to_program import to_program
from gpu_alloc_verify.verify.lowerings.mlir_opt import DEFAULT_PIPELINE
from gpu_alloc_verify.verify.tools.runner import find_mlir_opt


def test_every_one_op_program_is_listed_once() -> None:
    # By hand: gpu.wait async (a host wait needs a token); gpu.alloc sync or
    # async, host_shared or not (4); memset, launch_func and memcpy on
    # buffers passed in, each sync or async (6).  Nothing to dealloc yet.
    ones = list(programs(1))
    assert len(ones) == 11
    kinds = Counter((s[0].kind, s[0].is_async) for s in ones)
    assert kinds == Counter({("wait", True): 1, ("alloc", False): 2, ("alloc", True): 2,
                             ("memset", False): 1, ("memset", True): 1,
                             ("launch", False): 1, ("launch", True): 1,
                             ("memcpy", False): 1, ("memcpy", True): 1})


def test_space_one_doubles_the_allocs() -> None:
    assert sum(1 for p in programs(1, (None, 1)) if p[0].kind == "alloc") == 8


def _texts(n: int) -> list[str]:
    return [to_program(p).to_mlir() for p in enumerate_bound(n).programs]


def test_no_sync_op_touches_a_buffer_with_async_work_pending() -> None:
    # The generator's rule: a synchronous op on a buffer waits for its last token.
    for steps in programs(3):
        last: dict[int, int | None] = {}
        awaited: set[int] = set()
        covers: dict[int, set[int]] = {}
        for s in steps:
            if s.kind == "wait" and not s.is_async:
                for d in s.deps:
                    awaited |= covers[d]
            for b in s.buffers:
                t = last.get(b)
                if s.is_async:
                    assert t is None or t in awaited or t in s.deps, steps
                else:
                    assert t is None or t in awaited, steps
            if s.is_async:
                tok = s.defines[-1]
                covers[tok] = {tok}.union(*(covers[d] for d in s.deps))
                for b in s.buffers + s.defines[:-1]:
                    last[b] = tok
            else:
                for b in s.buffers:
                    last[b] = None


def test_renamed_values_are_one_program_and_op_order_is_kept() -> None:
    a = Step("alloc", ("async",), (), (), (0, 1))
    b = Step("alloc", ("async", "shared"), (), (), (2, 3))
    renamed_a = Step("alloc", ("async",), (), (), (7, 5))
    assert canonical((a, b))[0] == canonical((renamed_a, b))[0]
    # Independent async ops in either order are two programs: a pipeline
    # may read the order (gpu-async-region chains async ops in it).
    assert canonical((a, b))[0] != canonical((b, a))[0]


@pytest.mark.skipif(find_mlir_opt(19) is None, reason="needs mlir-opt-19")
def test_gpu_async_region_tells_independent_async_ops_apart() -> None:
    # Why order is kept: an async host_shared alloc and an async launch on a
    # buffer passed in share nothing, yet after gpu-async-region upstream 19
    # lowers one order and not the other.
    alloc = Step("alloc", ("async", "shared"), (), (), (0, 1))
    launch = Step("launch", ("async",), (), (2,), (3,))
    keys = [canonical(p)[0] for p in enumerate_bound(2).programs]
    target = Target("mlir-opt-19", f"func.func(gpu-async-region),{DEFAULT_PIPELINE}")
    judged = []
    for order in ((alloc, launch), (launch, alloc)):
        index = keys.index(canonical(order)[0])
        (rec,) = judge_shard(Shard(target, index, index + 1, 2, False))
        judged.append((rec["status"], sorted({c["cause"] for c in rec["causes"]})))
    assert judged[0] != judged[1], judged


def test_dependency_order_is_kept() -> None:
    # The first dependency is the stream upstream reuses: [%t1, %t2] and
    # [%t2, %t1] are two programs.
    texts = [to_program(p).to_mlir() for p in enumerate_bound(3).programs
              if any(len(s.deps) == 2 for s in p)]
    assert any("[%t1, %t2]" in t for t in texts) and any("[%t2, %t1]" in t for t in texts)


def test_programs_are_distinct_and_the_digest_is_stable() -> None:
    e = enumerate_bound(2)
    texts = _texts(2)
    assert len(set(texts)) == len(texts) == len(e.programs) == 221
    assert e.raw == 221 and e.removed_by_symmetry == 0  # renaming merges no DFS sequence
    assert e.per_size == ((1, 11, 11), (2, 210, 210))
    assert e.digest == enumerate_bound.__wrapped__(2).digest  # recomputed, not cached


def test_every_program_parses_with_mlir_opt() -> None:
    import subprocess

    import pytest

    from gpu_alloc_verify.verify.tools.runner import find_mlir_opt

    tool = find_mlir_opt(19)
    if tool is None:
        pytest.skip("needs mlir-opt-19")
    text = "\n// -----\n".join(_texts(2))
    proc = subprocess.run([tool, "--split-input-file", "--verify-diagnostics"], input=text,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
