"""Metamorphic property: a meaning-preserving rewrite of the lowered module
does not change a decided verdict.

Generated programs are lowered once by the real `mlir-opt-19` (one batch);
each lowered module is rewritten by every rewrite of `tests/soundness/
rewrites.py` (handles through stack slots, runtime calls outlined into
helpers, scf to cf, selects with constant conditions, all of them chained),
printed back by `mlir-opt-19` in generic form with locations, and judged
again against the same source program.  Per (program, rewrite, invariant):

- `violated` never becomes `holds` (the rewrite hid a bug: unsound), and
- `holds` never becomes `violated` (the rewrite invented one: imprecise in a
  way that reports a false alarm);
- becoming `unknown` is allowed (never counted as holds) but counted.

Counters are printed by `test_metamorphic_counters` (run with `-s`); the
flips themselves, with the source program and the rewritten module, go to a
JSONL file whose path is printed too.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.invariants.options import CheckOptions
from gpu_alloc_verify.verify.invariants.pipeline import Judgement, active_invariants, judge
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.program import Program
from tests.conftest import collect_programs, need_mlir_opt
from tests.soundness import rewrites

SPEC = "mlir-opt-19"
INVARIANTS = [i for i in active_invariants() if i != "differential"]
OPTIONS = CheckOptions(tuple(INVARIANTS))
DECIDED = ("holds", "violated")
# ~40 programs: fully lowerable ones with linear tokens (clean stream/event
# code, some scf), lowerable ones with fan-out/fan-in/un-awaited tokens (the
# double-destroy and leak findings: `violated` verdicts to keep), and
# unrestricted ones (ops left unconverted, dynamic sizes, `unknown`s).
PROGRAM_MIX: list[tuple[str, GenConfig, int]] = [
    ("supported-19-linear", GenConfig().supported_by(19), 16),
    ("supported-19", GenConfig(supported=19), 12),
    ("any", GenConfig(), 12),
]


@dataclass
class Change:
    rewrite: str
    program: int
    invariant: str
    before: str
    after: str
    detail: str = ""

    def kind(self) -> str:
        if self.before == "violated" and self.after == "holds":
            return "violated->holds"
        if self.before == "holds" and self.after == "violated":
            return "holds->violated"
        if self.before in DECIDED and self.after == "unknown":
            return "decided->unknown"
        if self.before == "unknown" and self.after in DECIDED:
            return "unknown->decided"
        return "other"


@dataclass
class RewriteStats:
    programs_rewritten: int = 0
    pairs: int = 0  # (program, invariant) verdict pairs compared
    decided_pairs: int = 0  # ... whose verdict before was holds or violated
    kinds: Counter[str] = field(default_factory=Counter)
    by_invariant: Counter[tuple[str, str]] = field(default_factory=Counter)
    changes: list[Change] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # the judge raised


@dataclass
class Metamorphic:
    programs: list[Program]
    labels: list[str]
    baseline: list[Judgement | None]
    baseline_errors: list[str]  # the judge raised on the lowered module itself
    stats: dict[str, RewriteStats]
    rewritten: dict[str, list[str]]
    seconds: dict[str, float]
    dump: Path


def _judge(program: Program, text: str) -> Judgement:
    return judge(program, LoweringOutcome("ok", lowered=text), SPEC, OPTIONS)


@pytest.fixture(scope="module")
def metamorphic(tmp_path_factory: pytest.TempPathFactory) -> Metamorphic:
    need_mlir_opt(19)
    clock = time.perf_counter()
    seconds: dict[str, float] = {}
    programs: list[Program] = []
    labels: list[str] = []
    for label, cfg, n in PROGRAM_MIX:
        got = collect_programs(n, cfg)
        programs += got
        labels += [label] * len(got)
    seconds["generate"] = time.perf_counter() - clock

    clock = time.perf_counter()
    outcomes = resolve(SPEC).lower_batch(programs)
    seconds["lower"] = time.perf_counter() - clock

    clock = time.perf_counter()
    ok = [k for k, o in enumerate(outcomes) if o.status == "ok"]
    baseline: list[Judgement | None] = [None] * len(programs)
    baseline_errors: list[str] = []
    for k in ok:
        try:
            baseline[k] = judge(programs[k], outcomes[k], SPEC, OPTIONS)
        except Exception as e:  # a harness crash: no baseline, so no pairs for k
            baseline_errors.append(f"program {k}: {type(e).__name__}: {e}")
    seconds["judge baseline"] = time.perf_counter() - clock

    stats: dict[str, RewriteStats] = {}
    rewritten: dict[str, list[str]] = {}
    originals = [outcomes[k].lowered for k in ok]
    clock = time.perf_counter()
    printed = rewrites.roundtrip(originals)  # what mlir-opt-19 prints back unchanged
    seconds["roundtrip"] = time.perf_counter() - clock
    for name in rewrites.REWRITES:
        clock = time.perf_counter()
        texts = rewrites.apply(name, originals)
        rewritten[name] = texts
        seconds[f"rewrite {name}"] = time.perf_counter() - clock
        clock = time.perf_counter()
        st = stats[name] = RewriteStats()
        for k, before_text, text in zip(ok, printed, texts, strict=True):
            if name != "identity" and text == before_text:
                continue  # nothing to rewrite in this module
            base = baseline[k]
            if base is None:
                continue
            st.programs_rewritten += 1
            try:
                after = _judge(programs[k], text)
            except Exception as e:  # a harness crash on valid IR: recorded, never a flip
                st.errors.append(f"program {k}: {type(e).__name__}: {e}")
                continue
            for inv in INVARIANTS:
                b, a = base.results[inv], after.results[inv]
                st.pairs += 1
                st.decided_pairs += b.verdict in DECIDED
                if b.verdict == a.verdict:
                    continue
                detail = "; ".join(v.detail for v in (a.violations or b.violations))[:500]
                if a.verdict == "unknown" and a.reason:
                    detail = f"unknown: {a.reason}"[:500]
                ch = Change(name, k, inv, b.verdict, a.verdict, detail)
                st.changes.append(ch)
                st.kinds[ch.kind()] += 1
                st.by_invariant[(inv, ch.kind())] += 1
        seconds[f"judge {name}"] = time.perf_counter() - clock

    dump = tmp_path_factory.mktemp("metamorphic") / "changes.jsonl"
    with dump.open("w") as f:
        for name, st in stats.items():
            for ch in st.changes:
                f.write(json.dumps({
                    "rewrite": name, "program": ch.program, "mix": labels[ch.program],
                    "invariant": ch.invariant, "before": ch.before, "after": ch.after,
                    "kind": ch.kind(), "detail": ch.detail,
                    "source": programs[ch.program].to_mlir(),
                    "lowered": outcomes[ch.program].lowered,
                    "rewritten": rewritten[name][ok.index(ch.program)],
                }) + "\n")
    return Metamorphic(programs, labels, baseline, baseline_errors, stats, rewritten, seconds,
                       dump)


def _table(m: Metamorphic) -> str:
    rows = [f"metamorphic: {len(m.programs)} programs "
            f"({', '.join(f'{n} {lab}' for lab, _, n in PROGRAM_MIX)}), "
            f"{len(INVARIANTS)} invariants, lowering {SPEC}; "
            f"{sum(j is not None for j in m.baseline)} judged "
            f"({len(m.baseline_errors)} judge crashes on the lowered module)"]
    head = (f"{'rewrite':28} {'progs':>5} {'pairs':>6} {'decided':>7} {'v->h':>5} "
            f"{'h->v':>5} {'->unk':>5} {'unk->':>5} {'other':>5} {'errors':>6}")
    rows += [head, "-" * len(head)]
    total: Counter[str] = Counter()
    for name, st in m.stats.items():
        k = st.kinds
        rows.append(f"{name:28} {st.programs_rewritten:5} {st.pairs:6} {st.decided_pairs:7} "
                    f"{k['violated->holds']:5} {k['holds->violated']:5} "
                    f"{k['decided->unknown']:5} {k['unknown->decided']:5} {k['other']:5} "
                    f"{len(st.errors):6}")
        total.update({"pairs": st.pairs, "decided": st.decided_pairs, **k,
                      "errors": len(st.errors)})
    rows.append(f"{'total':28} {'':5} {total['pairs']:6} {total['decided']:7} "
                f"{total['violated->holds']:5} {total['holds->violated']:5} "
                f"{total['decided->unknown']:5} {total['unknown->decided']:5} "
                f"{total['other']:5} {total['errors']:6}")
    rows.append("changes by (rewrite, invariant, kind):")
    for name, st in m.stats.items():
        for (inv, kind), n in sorted(st.by_invariant.items()):
            rows.append(f"  {name:28} {inv:28} {kind:17} {n}")
    other = Counter((ch.before, ch.after) for st in m.stats.values() for ch in st.changes
                    if ch.kind() == "other")
    if other:
        rows.append("other transitions: " + ", ".join(f"{b}->{a} x{n}"
                                                      for (b, a), n in sorted(other.items())))
    rows.append("seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in m.seconds.items())
                + f"; total {sum(m.seconds.values()):.2f}")
    rows.append(f"every change (source, lowered, rewritten): {m.dump}")
    return "\n".join(rows)


@pytest.mark.slow
def test_metamorphic_counters(metamorphic: Metamorphic) -> None:
    """Prints the counters; checks that the experiment has teeth: every
    rewrite changed modules, and the baseline has both kinds of decided verdict
    on the handle invariants, so both flip directions can be observed."""
    print("\n" + _table(metamorphic))
    for name, st in metamorphic.stats.items():
        assert st.programs_rewritten > 0, f"rewrite {name} changed no module"
        assert st.pairs > 0
    base = Counter((inv, r.verdict) for j in metamorphic.baseline if j
                   for inv, r in j.results.items())
    assert base[("stream-no-leak", "holds")] > 0
    assert base[("stream-no-leak", "violated")] + base[("stream-no-use-after-destroy",
                                                        "violated")] > 0


def test_rewrites_keep_runtime_calls_and_their_locations(metamorphic: Metamorphic) -> None:
    """Each rewritten module, as mlir-opt-19 prints it back, makes the same
    runtime calls with the same `loc(...)`: a multiset of (callee, loc)."""
    originals = metamorphic.rewritten["identity"]
    for name, texts in metamorphic.rewritten.items():
        for before, after in zip(originals, texts, strict=True):
            assert _runtime_calls(after) == _runtime_calls(before), name


def _runtime_calls(text: str) -> Counter[tuple[str, str]]:
    out: Counter[tuple[str, str]] = Counter()
    for line in text.splitlines():
        m = rewrites._CALL.match(line)
        if m:
            callee = rewrites._CALLEE.search(m["attrs"])
            if callee and callee["name"].startswith("mgpu"):
                out[(callee["name"], m["loc"])] += 1
    return out


def test_judge_reads_every_lowered_module(metamorphic: Metamorphic) -> None:
    errors = metamorphic.baseline_errors
    assert not errors, (f"{len(errors)} judge crash(es) on mlir-opt-19's own output (those "
                        "programs are left out of every comparison):\n" + "\n".join(errors[:5]))


@pytest.mark.parametrize("rewrite", list(rewrites.REWRITES))
def test_judge_reads_every_rewritten_module(metamorphic: Metamorphic, rewrite: str) -> None:
    errors = metamorphic.stats[rewrite].errors
    assert not errors, f"{len(errors)} judge crash(es) on rewritten IR:\n" + "\n".join(errors[:5])


@pytest.mark.parametrize("rewrite", list(rewrites.REWRITES))
def test_no_decided_verdict_flips(metamorphic: Metamorphic, rewrite: str) -> None:
    """The property: per invariant, violated never becomes holds and holds
    never becomes violated under a meaning-preserving rewrite."""
    st = metamorphic.stats[rewrite]
    flips = [ch for ch in st.changes if ch.kind() in ("violated->holds", "holds->violated")]
    v2h = sum(ch.kind() == "violated->holds" for ch in flips)
    h2v = len(flips) - v2h
    lines = [f"{rewrite}: {v2h} violated->holds, {h2v} holds->violated of "
             f"{st.decided_pairs} decided pairs ({st.programs_rewritten} modules); "
             f"details in {metamorphic.dump}"]
    for ch in flips[:12]:
        lines.append(f"  program {ch.program} ({metamorphic.labels[ch.program]}) "
                     f"{ch.invariant}: {ch.before} -> {ch.after}  {ch.detail[:160]}")
    if flips:
        pytest.fail("\n".join(lines), pytrace=False)
