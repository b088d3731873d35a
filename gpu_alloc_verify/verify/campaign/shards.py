"""How a campaign is cut into shards (`fuzz --shards K`, local or `--cluster`).

A shard is one Hypothesis search with its own seed, on one lowering, under
one pass pipeline and one generator configuration: a cluster campaign is the
product seeds x lowerings x pipelines x configurations.  Each (lowering,
pipeline, configuration) gets the campaign's `--max-examples`, split over
its seeds, as a local campaign judges that many programs on every lowering.

The program stream rule: shard k of K draws the first `split(N, K)[k]`
examples of the Hypothesis search seeded `shard_seed(SEED, k)` (N is
`--max-examples`; the generator settings and the example database as it
was when the campaign started also count).  Nothing else: not the worker
count, the scheduling or the timing.  A local campaign with `--shards K`
runs the same K searches one after another in its own process, so it draws
the programs a cluster campaign with the same `--seed` and `--shards` draws.
K is 1 locally unless given; a cluster's default (`default_shards`) depends
on `--max-examples` alone.  Seed index 0 is the campaign's own seed, so a
one-shard campaign draws what a plain local campaign draws.  The plan is
written in the campaign-start record and read back by `--resume`, so it
never depends on the cluster a run finds.

A lowering's results are keyed by its spec; when one spec runs under several
pipelines they are keyed "SPEC | PIPELINE" (its label) so they stay apart,
and violation records carry spec and pipeline apart, as `replay` needs.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from gpu_alloc_verify.generators.programs import GenConfig, campaign_config
from gpu_alloc_verify.verify.model.errors import UsageError

MIN_SHARD_EXAMPLES = 20  # below this a shard's fixed costs (search set-up, shrinking) dominate
DEFAULT_SHARD_EXAMPLES = 100  # a cluster's default shard size
MAX_DEFAULT_SHARDS = 64  # per combination; more workers than that: give --shards


@dataclass(frozen=True)
class Shard:
    index: int
    seed: int | None
    lowering: str  # the spec, as registry.resolve takes it
    pipeline: str
    config: dict[str, Any]  # GenConfig fields
    max_examples: int
    label: str  # key of its results (the spec, or "SPEC | PIPELINE")

    def gen(self) -> GenConfig:
        return gen_from_dict(self.config)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(rec: dict[str, Any]) -> Shard:
        known = {f.name for f in fields(Shard)}
        return Shard(**{k: v for k, v in rec.items() if k in known})


def gen_to_dict(gen: GenConfig) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in vars(gen).items()}


def gen_from_dict(config: dict[str, Any]) -> GenConfig:
    known = {f.name for f in fields(GenConfig)}
    kw: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                          for k, v in config.items() if k in known}
    return GenConfig(**kw)


def parse_gen_config(text: str, base: GenConfig) -> GenConfig:
    """`--shard-config` SPEC: comma-separated `max_ops=N`, `linear_tokens`,
    `supported=VERSION`, applied to a fresh default configuration (the base
    one's max_ops unless given; swarm if the base one is)."""
    gen = campaign_config(base.max_ops, swarm=base.swarm)
    linear, supported = False, None
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, _, value = item.partition("=")
        name = name.strip().replace("-", "_")
        try:
            if name == "max_ops" and value:
                gen = replace(gen, max_ops=int(value))
            elif name == "linear_tokens" and not value:
                linear = True
            elif name == "supported" and value:
                supported = int(value)
            else:
                raise ValueError(item)
        except ValueError:
            raise UsageError(f"--shard-config '{text}': cannot read '{item}'; use "
                             "max_ops=N, linear_tokens, supported=VERSION, comma-separated"
                             ) from None
    if linear:
        gen = gen.linear()
    if supported is not None:
        gen = gen.supported_by(supported)
    return gen


def shard_seed(seed: int | None, index: int) -> int | None:
    """Seed of a combination's `index`-th shard: the campaign's for index 0."""
    if index == 0:
        return seed
    digest = hashlib.sha256(f"{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def default_shards(max_examples: int) -> int:
    """Seeds per combination when `--shards` is not given on a cluster: one per
    DEFAULT_SHARD_EXAMPLES programs, at most MAX_DEFAULT_SHARDS.  A function of
    `--max-examples` alone, never of the workers a run finds, so the same
    command draws the same programs on any cluster (and locally with
    `--shards` set to it)."""
    want = -(-max_examples // DEFAULT_SHARD_EXAMPLES)
    return max(1, min(want, MAX_DEFAULT_SHARDS, max_examples // MIN_SHARD_EXAMPLES))


def streams(seed: int | None, shards: int, max_examples: int) -> list[tuple[int | None, int]]:
    """(seed, examples) of each shard of one combination, in shard order."""
    return [(shard_seed(seed, k), n) for k, n in enumerate(split(max_examples, shards))]


def split(total: int, parts: int) -> list[int]:
    """`total` in `parts` near-equal positive counts (fewer parts if total is small)."""
    parts = max(1, min(parts, total))
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]


def plan(seed: int | None, lowerings: list[str], pipelines: list[str],
         configs: list[GenConfig], seeds: int, max_examples: int,
         pipeline_free: set[str] | None = None) -> list[Shard]:
    """Every shard of the campaign.  `pipeline_free`: specs a pipeline does
    not change (in-process xDSL lowerings): they run under the first one only."""
    free = pipeline_free or set()
    pipelines = list(dict.fromkeys(pipelines))
    counts = split(max_examples, seeds)
    out: list[Shard] = []
    for spec in dict.fromkeys(lowerings):
        own = pipelines[:1] if spec in free else pipelines
        for pipeline in own:
            label = spec if len(own) == 1 else f"{spec} | {pipeline}"
            for gen in dict.fromkeys(configs):
                for k, n in enumerate(counts):
                    out.append(Shard(len(out), shard_seed(seed, k), spec, pipeline,
                                     gen_to_dict(gen), n, label))
    return out


def relabel(rec: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """A program record with its results and found keys renamed from `old`
    to `new` (spec to label on the way to the driver, back on a resume)."""
    if old == new:
        return rec
    out = dict(rec)
    results = rec.get("results")
    if isinstance(results, dict):
        out["results"] = {new if k == old else k: v for k, v in results.items()}
    found = rec.get("found")
    if isinstance(found, list):
        out["found"] = [[new, k[1]] if isinstance(k, list) and len(k) == 2 and k[0] == old
                        else k for k in found]
    return out
