"""Attribution by experiment: where a root cause's reproducer shows it.

A catalogue entry names versions, a pass and a component; each is measured
here on the reduced reproducer, never guessed from where campaigns happened
to see it:

- versions: the reproducer judged again on every installed `mlir-opt-N`
  under its pipeline; it reproduces where a violation with its cause (the
  signature without the lowering family) shows.
- pass: the pipeline run prefix by prefix; the first pass whose output shows
  the cause is at fault.  Then each earlier pass is left out in turn: one
  whose absence loses the cause makes the input shape the faulty pass
  mishandles, so the fix could be in either, and both are named.
- component: invalid IR that a non-GPU conversion alone gives on the same
  program (`finalize-memref-to-llvm`: upstream's gpu-to-llvm includes its
  patterns) is that conversion's defect, not the GPU lowering's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc_verify.verify.lowerings.mlir_opt import top_level_passes
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.triage.rejudge import Settings, lowering_for, rejudge
from gpu_alloc_verify.verify.triage.signature import Signature, signature_of

# Non-GPU conversions gpu-to-llvm runs the patterns of, by the first version
# that names them so (16 calls MemRefToLLVM `convert-memref-to-llvm`).
COMPONENT_PASSES = (("finalize-memref-to-llvm", 17), ("convert-memref-to-llvm", 0))
# The source file upstream keeps each pass's patterns in, for the report.
SOURCES = {
    "gpu-to-llvm": "mlir/lib/Conversion/GPUCommon/GPUToLLVMConversion.cpp",
    "gpu-async-region": "mlir/lib/Dialect/GPU/Transforms/AsyncRegionRewriter.cpp",
    "finalize-memref-to-llvm": "mlir/lib/Conversion/MemRefToLLVM/MemRefToLLVM.cpp",
    "convert-memref-to-llvm": "mlir/lib/Conversion/MemRefToLLVM/MemRefToLLVM.cpp",
    "convert-scf-to-cf": "mlir/lib/Conversion/SCFToControlFlow/SCFToControlFlow.cpp",
}


def cause_of(sig: Signature) -> tuple[str, str, str]:
    """A signature without its lowering family: the same on every version and pipeline."""
    return (sig.invariant, sig.source, sig.calls)


@dataclass
class Attribution:
    program: str
    pipeline: str
    # mlir-opt-N -> "reproduces", "does not reproduce" or why it was not judged
    versions: dict[str, str] = field(default_factory=dict)
    first_pass: str | None = None  # the first pass whose output shows the cause
    shape_from: list[str] = field(default_factory=list)  # earlier passes it needs
    component: str | None = None  # a non-GPU pass that alone shows it

    def reproduces_on(self) -> list[str]:
        return [v for v, said in self.versions.items() if said == "reproduces"]

    def pass_text(self) -> str:
        """The pass at fault in words, with an earlier pass that makes its input."""
        if self.component is not None:
            return (f"`{self.component}` (reproduces with that pass alone: no GPU pass "
                    "involved)")
        if self.first_pass is None:
            return "not attributed (no prefix of the pipeline shows it)"
        text = f"`{self.first_pass}` (the first pass whose output shows it)"
        if self.shape_from:
            text += ("; its input shape comes from " + ", ".join(f"`{p}`" for p in self.shape_from)
                     + " (without it the defect does not show): the fix can be in either")
        return text


def shows(text: str, spec: str, pipeline: str, cause: tuple[str, str, str]) -> bool | None:
    """Does `text`, lowered by `spec` with `pipeline`, show a violation of
    `cause`?  None when it cannot be judged (the tool or a pass is missing)."""
    settings = Settings(spec, pipeline)
    try:
        found = rejudge([text], ["attributed"], settings, [[cause[0]]],
                        lowering_for(settings))[0]
    except Exception:  # noqa: BLE001 - a tool or pass that is missing: not judged
        return None
    if found is None:
        return None
    return any(cause_of(signature_of(v, pipeline)) == cause for v in found)


def _version_number(spec: str) -> int:
    tail = spec.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def attribute(text: str, sig: Signature, pipeline: str, spec: str,
              versions: Sequence[str]) -> Attribution:
    """The measured attribution of reproducer `text` of `sig`, seen with
    `spec` and `pipeline`; `versions`: the installed `mlir-opt-N` to re-check."""
    cause = cause_of(sig)
    out = Attribution(text, pipeline)
    for version in versions:
        said = shows(text, version, pipeline, cause)
        out.versions[version] = ("reproduces" if said else "does not reproduce"
                                 if said is False else "not judged (tool missing)")
    probe = next((v for v in out.reproduces_on() if v == spec), None) or \
        next(iter(out.reproduces_on()), None)
    if probe is None:
        return out
    passes = top_level_passes(pipeline)
    for k in range(1, len(passes) + 1):
        if shows(text, probe, ",".join(passes[:k]), cause):
            out.first_pass = _bare(passes[k - 1])
            out.shape_from = [_bare(passes[j]) for j in range(k - 1)
                              if shows(text, probe, ",".join(passes[:j] + passes[j + 1:k]),
                                       cause) is False]
            break
    if sig.invariant == InvariantId.LOWERING_NO_CRASH:
        for name, since in COMPONENT_PASSES:
            if _version_number(probe) >= since and shows(text, probe, name, cause):
                out.component = name
                break
    return out


def _bare(pass_text: str) -> str:
    """`func.func(gpu-async-region)` -> `gpu-async-region`."""
    inner = pass_text
    while "(" in inner and inner.endswith(")"):
        inner = inner[inner.index("(") + 1:-1]
    return inner


def installed() -> list[str]:
    """`mlir-opt-N` for every version installed here, oldest first."""
    from gpu_alloc_verify.verify.ir.tools import KNOWN_VERSIONS, find_mlir_opt

    return [f"mlir-opt-{v}" for v in sorted(KNOWN_VERSIONS) if find_mlir_opt(v)]
