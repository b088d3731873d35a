#!/usr/bin/env python3
"""Differential checks on a real CUDA GPU (CuPy); installs nothing.

Draws `--programs` seeded programs that launch catalogue kernels
(`generators.programs`, `GenConfig(max_ops).supported_by(--supported)`,
drawn as `verify.campaign.bench` draws them; programs without a launch are skipped
and more drawn), then for each:

(a) fidelity: the source semantics (`oracles.source_interp`) run on the
    simulator and on `CupyRuntime` (kernels as CUDA C through
    `cupy.RawKernel`) for up to `--assignments` branch assignments per
    function; the outcomes, normalized as `oracles.differential.normalize`
    does, must be equal.  A run the simulator flags as racy, or that either
    side cannot run, is counted apart (not compared).
(b) the `differential` verdict of the program lowered by `--lowering`
    (default xdsl:pr69969), on CuPy and on the simulator: the two verdicts
    must be equal ("violated" on both is a finding of the lowering, listed,
    not a disagreement of the GPU).

With `--corpus`, the modules are instead the real-shaped files of
`tests/corpus` (each with its own `// PIPELINE:`, those its `// VALID:` line
admits for `--lowering`), interpreted as written (`oracles.source_xdsl`):
their `differential` verdict on CuPy and on the simulator must be equal.

With `--stand-in`, a machine without CuPy or a CUDA device runs the "GPU"
side on a second, independent simulator instead, and every line says so
(the script and its table are exercised; the figures prove nothing about
CUDA).  `--table FILE` appends one Markdown row per run to FILE: the
agreement table of CuPy (or its stand-in) and the simulated runtime.
`--prepare DIR` (where mlir-opt-N is installed) writes each corpus file's
generic source and lowered text to `DIR/corpus-LOWERING.json`; `--bundle
DIR` reads them there instead of running mlir-opt (the device machine has
none): `scripts/device_check.sh` prepares and runs everything.

Prints a summary with the first difference (or `--json`).  Exit status: 0
when everything compared agrees, 1 on any disagreement, 2 on a usage or
environment problem (an unknown lowering; no CuPy or no CUDA device: the
message names the package to install, and the check did not run).

    python scripts/gpu_differential.py [--programs 200] [--seed 0]
        [--lowering xdsl:pr69969] [--assignments 4] [--max-ops 8] [--json]
    python scripts/gpu_differential.py --corpus [--lowering mlir-opt-19] [--json] [FILE...]
    python scripts/gpu_differential.py --corpus --prepare DIR --lowering mlir-opt-22
    python scripts/gpu_differential.py --corpus --bundle DIR --stand-in --table T.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# The runtime the "GPU" side runs on: CuPy's, or (`--stand-in`) a simulator.
GPU_SIDE: dict[str, Any] = {"label": "CuPy", "make": None}


def gpu_runtime() -> Any:
    """A fresh runtime of the GPU side."""
    if GPU_SIDE["make"] is None:
        from gpu_alloc_verify.oracles.cupy_runtime import CupyRuntime

        GPU_SIDE["make"] = CupyRuntime
    return GPU_SIDE["make"]()


def use_stand_in() -> None:
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime

    GPU_SIDE.update(label="simulator stand-in (no GPU/CuPy here)",
                    make=lambda: SimulatedRuntime("cuda", 0))


SKIPPED = ("skipped: no GPU/CuPy (CuPy must import and see a CUDA device; "
           "pip install cupy-cuda12x, or the project's [cuda12] extra)")


def draw_programs(n: int, seed: int, max_ops: int, supported: int) -> list[Any]:
    """`n` programs with at least one kernel launch, the same for the same arguments."""
    from gpu_alloc_verify.generators.hypothesis_private import draw_seeded
    from gpu_alloc_verify.generators.programs import GenConfig, programs

    strategy = programs(GenConfig(max_ops=max_ops).supported_by(supported))
    out: list[Any] = []
    index = 0
    while len(out) < n and index < 50 * n + 100:
        program = draw_seeded(strategy, f"gpu-differential:{seed}:{index}")
        index += 1
        if program is not None and program.kernels:
            out.append(program)
    return out


def _source_run(fn: Any, values: dict[str, Any], rt: Any) -> Any:
    from gpu_alloc_verify.oracles.differential import DEFAULT_SIZE
    from gpu_alloc_verify.oracles.source_interp import bind_buffers, run_function

    try:
        bound = {**values, **bind_buffers(fn, rt, DEFAULT_SIZE)}
        return run_function(fn, bound, rt)
    finally:
        rt.close()


def fidelity(program: Any, assignments: int, tally: Counter[str]) -> dict[str, Any] | None:
    """Source semantics on the GPU vs the simulator; the first difference, or None."""
    from gpu_alloc_verify.oracles.differential import default_assignments, differences, normalize
    from gpu_alloc_verify.oracles.runtime import DEVICE_RACE, HOST_RACE
    from gpu_alloc_verify.oracles.simulated import SimulatedRuntime

    for fn in program.functions:
        for assignment in default_assignments(fn)[:assignments]:
            values = dict(assignment)
            sim = _source_run(fn, values, SimulatedRuntime("cuda", 0))
            if sim.status != "ok" or sim.outcome is None:
                tally[f"not run: {sim.status}"] += 1
                continue
            if any(e.kind in (HOST_RACE, DEVICE_RACE) for e in sim.outcome.errors):
                tally["racy (not compared)"] += 1
                continue
            gpu = _source_run(fn, values, gpu_runtime())
            if gpu.status != "ok" or gpu.outcome is None:
                tally[f"not run on the GPU: {gpu.status}"] += 1
                return {"function": fn.name, "args": _shown(values),
                        "difference": f"the GPU run did not finish: {gpu.reason}"}
            s, g = normalize(sim.outcome), normalize(gpu.outcome)
            if s == g:
                tally["agree"] += 1
                continue
            tally["disagree"] += 1
            s_map: Mapping[str, object] = s
            g_map: Mapping[str, object] = g
            diff = differences(s, g) or sorted(k for k in s_map if s_map[k] != g_map[k])
            key = diff[0].split("[")[0] if diff else ""
            return {"function": fn.name, "args": _shown(values), "differences": diff,
                    "simulator": s_map.get(key), "gpu": g_map.get(key)}
    return None


def _shown(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if isinstance(v, (bool, int, float))}


def verdicts(programs: list[Any], spec: str, assignments: int
             ) -> tuple[Counter[str], Counter[str], list[dict[str, Any]], list[str]]:
    """The `differential` verdicts on CuPy and on the simulator, the programs
    where they differ, and the violations both report (findings)."""
    from gpu_alloc_verify.oracles.differential import check, default_assignments, simulated
    from gpu_alloc_verify.verify.lowerings.registry import resolve

    lowering = resolve(spec)
    outcomes = lowering.lower_batch(programs)
    on_gpu: Counter[str] = Counter()
    on_sim: Counter[str] = Counter()
    differ: list[dict[str, Any]] = []
    findings: list[str] = []
    for program, lowered in zip(programs, outcomes, strict=True):
        if lowered.status != "ok":
            on_gpu[f"lowering {lowered.status}"] += 1
            on_sim[f"lowering {lowered.status}"] += 1
            continue
        args = [a for fn in program.functions for a in default_assignments(fn)[:assignments]]
        gpu = check(program, lowered.lowered, runtime_factory=lambda seed: gpu_runtime(),
                    args=args)
        sim = check(program, lowered.lowered, runtime_factory=simulated("cuda"), args=args)
        on_gpu[gpu.verdict] += 1
        on_sim[sim.verdict] += 1
        if gpu.verdict != sim.verdict:
            differ.append({"program": program.to_mlir(), "gpu": _result(gpu),
                           "simulator": _result(sim)})
        elif gpu.verdict == "violated":
            findings.append(gpu.violations[0].detail)
    return on_gpu, on_sim, differ, findings


def corpus_inputs(spec: str, files: list[Path] | None = None) -> list[dict[str, str]]:
    """Each corpus file `spec` admits: its generic source text and lowered
    text, or the status that stops it ("source not read", "lowering ...")."""
    import re

    from gpu_alloc_verify.verify.ir.parse import opaque_pointers
    from gpu_alloc_verify.verify.ir.tools import find_mlir_opt
    from gpu_alloc_verify.verify.lowerings.mlir_opt import MlirOptLowering
    from gpu_alloc_verify.verify.lowerings.registry import resolve
    from gpu_alloc_verify.verify.model.errors import SourceParseError
    from gpu_alloc_verify.verify.source.user_file import from_text

    out: list[dict[str, str]] = []
    for path in files if files is not None else sorted((ROOT / "tests" / "corpus").glob("*.mlir")):
        text = path.read_text()
        valid = re.search(r"^// VALID: (.*)$", text, re.M)
        if valid and spec not in valid.group(1).split():
            continue
        pipeline = re.search(r"^// PIPELINE: (.*)$", text, re.M)
        lowering = resolve(spec, pipeline.group(1) if pipeline else None)
        tool = lowering.path if isinstance(lowering, MlirOptLowering) else find_mlir_opt()
        try:
            source = from_text(text, str(path.relative_to(ROOT)), tool)
        except SourceParseError:
            out.append({"file": path.name, "status": "source not read"})
            continue
        outcome = lowering.lower_batch([source])[0]
        if outcome.status != "ok":
            out.append({"file": path.name, "status": f"lowering {outcome.status}"})
            continue
        out.append({"file": path.name, "status": "ok", "source": source.text,
                    "lowered": opaque_pointers(outcome.lowered)})
    return out


def corpus_verdicts(spec: str, gpu_factory: Any, files: list[Path] | None = None,
                    inputs: list[dict[str, str]] | None = None
                    ) -> tuple[Counter[str], Counter[str], list[dict[str, Any]], list[str]]:
    """`verdicts` for the corpus files as written: each lowered by `spec` with
    its own pipeline (or as `inputs`, a prepared bundle, has them), its
    `differential` run on `gpu_factory`'s runtimes and on the simulator's."""
    from gpu_alloc_verify.oracles.differential import simulated
    from gpu_alloc_verify.oracles.source_xdsl import check_text

    on_gpu: Counter[str] = Counter()
    on_sim: Counter[str] = Counter()
    differ: list[dict[str, Any]] = []
    findings: list[str] = []
    for item in inputs if inputs is not None else corpus_inputs(spec, files):
        if item["status"] != "ok":
            on_gpu[item["status"]] += 1
            on_sim[item["status"]] += 1
            continue
        gpu = check_text(item["source"], item["lowered"], gpu_factory)
        sim = check_text(item["source"], item["lowered"], simulated("cuda"))
        on_gpu[gpu.verdict] += 1
        on_sim[sim.verdict] += 1
        if gpu.verdict != sim.verdict:
            differ.append({"file": item["file"], "gpu": _result(gpu),
                           "simulator": _result(sim)})
        elif gpu.verdict == "violated":
            findings.append(f"{item['file']}: {gpu.violations[0].detail}")
    return on_gpu, on_sim, differ, findings


def _bundle_path(folder: Path, spec: str) -> Path:
    return folder / f"corpus-{spec.replace(':', '_').replace('/', '_')}.json"


def _counts(c: Counter[str]) -> str:
    return "; ".join(f"{k} {v}" for k, v in sorted(c.items()))


def write_table_row(table: Path, what: str, spec: str, compared: int, disagreeing: int,
                    on_gpu: str, on_sim: str) -> None:
    """One row of the agreement table (its header first, in a new file)."""
    new = not table.exists()
    with table.open("a") as f:
        if new:
            f.write("| set | lowering | GPU side | compared | agree | disagree | "
                    "GPU side says | simulator says |\n|---|---|---|---|---|---|---|---|\n")
        f.write(f"| {what} | {spec} | {GPU_SIDE['label']} | {compared} | "
                f"{compared - disagreeing} | {disagreeing} | {on_gpu} | {on_sim} |\n")


def _verdict_row(table: Path, what: str, spec: str, on_gpu: Counter[str],
                 on_sim: Counter[str], disagreeing: int) -> None:
    """The row of a `differential` verdict comparison (runs that reached a verdict)."""
    compared = sum(n for k, n in on_gpu.items()
                   if k in ("holds", "violated", "unknown", "not-applicable"))
    write_table_row(table, what, spec, compared, disagreeing, _counts(on_gpu), _counts(on_sim))


def _corpus_main(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.verify.model.errors import EnvironmentProblem

    start = time.time()
    files = [ROOT / "tests" / "corpus" / f"{n.removesuffix('.mlir')}.mlir"
             for n in args.names] or None
    try:
        if args.prepare:
            args.prepare.mkdir(parents=True, exist_ok=True)
            items = corpus_inputs(args.lowering, files)
            _bundle_path(args.prepare, args.lowering).write_text(json.dumps(items))
            print(f"{len(items)} corpus files for {args.lowering} written to "
                  f"{_bundle_path(args.prepare, args.lowering)}")
            return 0
        inputs = json.loads(_bundle_path(args.bundle, args.lowering).read_text()) \
            if args.bundle else None
        on_gpu, on_sim, differ, findings = corpus_verdicts(
            args.lowering, lambda seed: gpu_runtime(), files, inputs)
    except (EnvironmentProblem, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.table:
        _verdict_row(args.table, "tests/corpus", args.lowering, on_gpu, on_sim, len(differ))
    report = {"corpus": args.lowering, "gpu": dict(on_gpu), "simulator": dict(on_sim),
              "files_disagreeing": len(differ), "first_difference": differ[0] if differ else None,
              "findings": findings[:5], "seconds": round(time.time() - start, 1)}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"tests/corpus with {args.lowering}, {report['seconds']}s: differential on the "
              f"GPU ({GPU_SIDE['label']}) "
              + ", ".join(f"{k} {v}" for k, v in sorted(on_gpu.items()))
              + "; simulator " + ", ".join(f"{k} {v}" for k, v in sorted(on_sim.items()))
              + f"; {len(differ)} files disagree")
        if differ:
            print(json.dumps(differ[0], indent=2))
        for detail in findings[:5]:
            print(f"    finding (GPU and simulator agree): {detail}")
    return 1 if differ else 0


def _result(result: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"verdict": result.verdict}
    if result.reason:
        out["reason"] = result.reason
    if result.violations:
        out["violation"] = result.violations[0].detail
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lowering", default=None,
                        help="default: xdsl:pr69969 (drawn programs), mlir-opt-19 (--corpus)")
    parser.add_argument("--assignments", type=int, default=4,
                        help="branch assignments run per function (default 4)")
    parser.add_argument("--max-ops", type=int, default=8)
    parser.add_argument("--supported", type=int, default=19,
                        help="generate what this upstream version lowers (default 19)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--corpus", action="store_true",
                        help="run the files of tests/corpus as written instead of drawn "
                        "programs (--lowering then defaults to mlir-opt-19)")
    parser.add_argument("--stand-in", action="store_true",
                        help="without CuPy or a CUDA device, run the GPU side on a second "
                        "simulator (said on every line) instead of stopping")
    parser.add_argument("--table", type=Path, metavar="FILE",
                        help="append the agreement table's row(s) of this run to FILE")
    parser.add_argument("--prepare", type=Path, metavar="DIR",
                        help="with --corpus: write the sources and lowered texts to DIR "
                        "(needs mlir-opt-N), run nothing")
    parser.add_argument("--bundle", type=Path, metavar="DIR",
                        help="with --corpus: read what --prepare wrote instead of lowering")
    parser.add_argument("names", nargs="*", help="with --corpus: only these files (stems)")
    args = parser.parse_args(argv)
    if args.lowering is None:
        args.lowering = "mlir-opt-19" if args.corpus else "xdsl:pr69969"

    from gpu_alloc_verify.oracles.cupy_runtime import cupy_available

    if args.corpus and args.prepare:
        return _corpus_main(args)
    if not cupy_available():
        if not args.stand_in:
            print(json.dumps({"skipped": SKIPPED}) if args.json else SKIPPED)
            return 2
        use_stand_in()
        print(f"note: {SKIPPED.removeprefix('skipped: ')}; the GPU side is a second simulator",
              file=sys.stderr)
    if args.corpus:
        return _corpus_main(args)

    from gpu_alloc_verify.verify.model.errors import EnvironmentProblem

    start = time.time()
    programs = draw_programs(args.programs, args.seed, args.max_ops, args.supported)
    tally: Counter[str] = Counter()
    first_source: dict[str, Any] | None = None
    source_differ = 0
    for program in programs:
        found = fidelity(program, args.assignments, tally)
        if found is not None:
            source_differ += 1
            if first_source is None:
                first_source = {"program": program.to_mlir(), **found}
    source_s = time.time() - start
    try:
        on_gpu, on_sim, lowered_differ, findings = verdicts(programs, args.lowering,
                                                            args.assignments)
    except EnvironmentProblem as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    total_s = time.time() - start
    agreeing = len(programs) - source_differ
    if args.table:
        _verdict_row(args.table, f"{len(programs)} drawn programs (seed {args.seed})",
                     args.lowering, on_gpu, on_sim, len(lowered_differ))
        write_table_row(args.table, "source semantics of those programs (runs)", "none",
                        tally["agree"] + tally["disagree"], tally["disagree"], _counts(tally),
                        "the reference")
    report = {
        "programs": len(programs), "seed": args.seed, "lowering": args.lowering,
        "source": {"programs_agreeing": agreeing, "programs_disagreeing": source_differ,
                   "runs": dict(tally), "first_difference": first_source},
        "lowered": {"gpu": dict(on_gpu), "simulator": dict(on_sim),
                    "programs_disagreeing": len(lowered_differ),
                    "first_difference": lowered_differ[0] if lowered_differ else None,
                    "findings": findings[:5]},
        "seconds": {"source": round(source_s, 1), "total": round(total_s, 1)},
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{len(programs)} programs with kernels (seed {args.seed}), "
              f"{total_s:.1f}s; GPU side: {GPU_SIDE['label']}")
        print(f"(a) source semantics, GPU vs simulator: {agreeing} programs agree, "
              f"{source_differ} disagree; runs: "
              + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
        if first_source is not None:
            print("    first difference:")
            print(json.dumps(first_source, indent=2))
        print(f"(b) differential verdicts with {args.lowering}: GPU "
              + ", ".join(f"{k} {v}" for k, v in sorted(on_gpu.items()))
              + "; simulator "
              + ", ".join(f"{k} {v}" for k, v in sorted(on_sim.items()))
              + f"; {len(lowered_differ)} programs disagree")
        if lowered_differ:
            print("    first difference:")
            print(json.dumps(lowered_differ[0], indent=2))
        for detail in findings[:5]:
            print(f"    finding (GPU and simulator agree): {detail}")
    return 1 if source_differ or lowered_differ else 0


if __name__ == "__main__":
    sys.exit(main())
