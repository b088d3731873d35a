"""Upstream status of a root cause: the llvm/llvm-project issues and PRs
`upstream_status.json` (beside this module) maps root-cause signatures to."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from gpu_alloc_verify.verify.triage.signature import Signature

DATA = Path(__file__).with_name("upstream_status.json")


@cache
def _causes() -> tuple[dict[str, Any], ...]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return tuple(data["causes"])


def _match(sig: Signature, kind: str, pass_name: str) -> dict[str, Any] | None:
    """The first cause whose every `match` regex finds its field (signature
    fields, or the bucket's `kind` and `pass`)."""
    fields = {"invariant": sig.invariant, "source": sig.source, "calls": sig.calls,
              "family": sig.family, "focus": sig.focus, "kind": kind, "pass": pass_name}
    for cause in _causes():
        if all(re.search(rx, fields.get(n, "")) for n, rx in cause.get("match", {}).items()):
            return cause
    return None


def upstream_of(sig: Signature, kind: str, pass_name: str) -> list[dict[str, str]]:
    """The upstream references of a root cause ([] if none is known)."""
    cause = _match(sig, kind, pass_name)
    if cause is None:
        return []
    return [dict(ref, cause=str(cause["id"])) for ref in cause.get("refs", [])]


def cause_id(sig: Signature, kind: str, pass_name: str) -> str | None:
    """The id of the upstream cause a signature matches, if any."""
    cause = _match(sig, kind, pass_name)
    return str(cause["id"]) if cause is not None else None


def patch_of(sig: Signature, kind: str, pass_name: str) -> str | None:
    """The name of the patch in `patches/<version>/` that fixes the upstream
    cause a signature matches, if one is written."""
    cause = _match(sig, kind, pass_name)
    return str(cause["patch"]) if cause is not None and cause.get("patch") else None
