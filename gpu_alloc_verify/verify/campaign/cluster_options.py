"""What the fuzz subcommand's cluster options (`--cluster`, `--shards`,
`--shard-pipeline`, `--shard-config`, defined in `verify.cli.fuzz_args`) ask for.

Kept apart from the driver (`verify.campaign.cluster`) so that reading the
command line imports neither Hypothesis nor Dask.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gpu_alloc_verify.verify.model.errors import UsageError

if TYPE_CHECKING:
    from gpu_alloc_verify.generators.programs import GenConfig
    from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions


@dataclass
class ClusterOptions:
    address: str  # "local:N" or a scheduler address
    seeds: int | None = None  # seeds per (lowering, pipeline, configuration); None: auto
    pipelines: list[str] = field(default_factory=list)  # empty: the campaign's --pipeline
    configs: list[GenConfig] = field(default_factory=list)  # empty: the campaign's generator
    lowering_timeout: float | None = None

    @property
    def local(self) -> bool:
        return self.address == "local" or self.address.startswith("local:")


def cluster_requested(args: argparse.Namespace, opts: FuzzOptions) -> bool:
    """Whether this fuzz command runs on a cluster; UsageError for cluster
    options without one, or for a resume that does not match how the
    campaign ran.  Sets a local campaign's `opts.shards` (--shards, or the
    resumed campaign's)."""
    shards = getattr(args, "shards", None)
    if shards is not None and shards < 1:
        raise UsageError("--shards must be at least 1")
    resumed_shards = opts.resume is not None and isinstance(opts.resume.setting("shards"),
                                                             list)
    if opts.resume is not None:
        recorded = opts.resume.setting("shard_count")
        if shards is not None and not resumed_shards and shards != (recorded or 1):
            raise UsageError(f"--shards {shards} differs from campaign "
                             f"{opts.resume.campaign}'s ({recorded or 1}); drop --shards to "
                             "resume it")  # the shards define the programs drawn
        opts.shards = recorded if isinstance(recorded, int) and recorded > 0 else 1
    elif shards is not None:
        opts.shards = shards
    if getattr(args, "cluster", None):
        if opts.resume is not None and not resumed_shards:
            raise UsageError(f"campaign {opts.resume.campaign} ran on one machine; resume it "
                             "without --cluster")
        return True
    if opts.resume is not None and resumed_shards:
        raise UsageError(f"campaign {opts.resume.campaign} ran on a cluster; resume it with "
                         "--cluster tcp://HOST:PORT or --cluster local:N")
    given = [flag for flag, value in (("--shard-pipeline", getattr(args, "shard_pipeline", None)),
                                      ("--shard-config", getattr(args, "shard_config", None)))
             if value]
    if given:
        raise UsageError(f"{', '.join(given)} only apply with --cluster")
    return False


def cluster_options(args: argparse.Namespace, opts: FuzzOptions) -> ClusterOptions:
    from gpu_alloc_verify.verify.campaign.shards import parse_gen_config

    address = str(args.cluster)
    if address.startswith("local"):
        n = address.partition(":")[2]
        if address != "local" and not (n.isdigit() and int(n) > 0):
            raise UsageError(f"--cluster {address}: use local:N with N worker processes, "
                             "or tcp://HOST:PORT")
    if args.shards is not None and args.shards < 1:
        raise UsageError("--shards must be at least 1")
    configs = [parse_gen_config(c, opts.gen) for c in args.shard_config or []]
    return ClusterOptions(address, args.shards, list(args.shard_pipeline or []), configs,
                          getattr(args, "lowering_timeout", None))
