"""Swarm testing (Groce, Zhang, Eide, Chen, Regehr: "Swarm Testing", ISSTA
2012): each program first draws which features it may use, a coin per
feature, then draws under that subset.  A campaign then meets every feature
without a flag, and the deep combinations of a few features are not drowned
by the rest (a program without `dealloc` keeps its buffers alive long
enough to be used by many ops; one without `host` never synchronizes).

The switches are `GenConfig` booleans and generator kinds.  A configuration
narrows the set (a switch it has off stays off: `supported_by`, `linear`,
`runnable` keep their meaning) and forces (`GenConfig.forced`: on in every
program, as `fuzz --cf-tokens` asks).  The drawn subset is recorded as the
program's tags, `swarm.<switch>` (a feature `tag.swarm.<switch>` in
results.jsonl), so triage can say which switches a root cause needs.  The
coins come first, so the shrinker turns switches off on the way to a
smaller program.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from gpu_alloc_verify.generators.core import GenConfig

_COIN = st.booleans()

# The `GenConfig` booleans each program draws (when the configuration has
# them on), in drawing order; the kinds follow, all but the first (the shrink
# target, `wait`, is always on).
SWITCHES: tuple[str, ...] = (
    "fanout", "fanin", "unawaited", "dynamic_shapes", "host_shared", "kernels",
    "host_buffers", "memref_args", "scalar_args", "results", "memory_spaces",
    "alloc_spaces", "cf_tokens", "cf_forms", "while_loops", "arg_trips",
)


def draw_swarm(draw: st.DrawFn, cfg: GenConfig) -> tuple[GenConfig, frozenset[str]]:
    """The configuration one program is drawn under, and its tags (the
    switches and kinds it has on)."""
    on: dict[str, Any] = {}
    for name in SWITCHES:
        allowed = bool(getattr(cfg, name))
        on[name] = allowed and (name in cfg.forced or draw(_COIN))
    first, *rest = cfg.kinds
    kinds = (first, *(k for k in rest if k in cfg.forced or draw(_COIN)))
    drawn = replace(cfg, swarm=False, kinds=kinds, **on)
    tags = {f"swarm.{name}" for name, value in on.items() if value}
    tags |= {f"swarm.kind.{k}" for k in kinds}
    return drawn, frozenset(tags)
