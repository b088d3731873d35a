"""`certify`: every valid program up to a bound, checked, and a certificate."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gpu_alloc_verify.verify.model.errors import UsageError

EXIT_VIOLATED = 1


def cmd_certify(args: argparse.Namespace) -> int:
    from gpu_alloc_verify.reports.certificate_html import write_certificate_html
    from gpu_alloc_verify.verify.certify.certificate import build_certificate
    from gpu_alloc_verify.verify.certify.enumeration import enumerate_bound
    from gpu_alloc_verify.verify.certify.run import (
        CertifyOptions,
        default_targets,
        main_progress,
        run_certify,
    )

    if args.ops < 1:
        raise UsageError("--ops must be at least 1")
    out = Path(args.out)
    targets = default_targets(args.pipeline, args.lowering)
    opts = CertifyOptions(args.ops, targets, out, spaces=args.spaces, cluster=args.cluster,
                          progress=main_progress)
    t0 = time.monotonic()
    records = run_certify(opts)
    cert = build_certificate(enumerate_bound(args.ops, args.spaces), targets, records,
                             round(time.monotonic() - t0, 1))
    (out / "certificate.json").write_text(json.dumps(cert, indent=2) + "\n", "utf-8")
    page = write_certificate_html(cert, out)
    if args.json:
        print(json.dumps(cert, indent=2))
    else:
        print(_summary(cert, out, page))
    return EXIT_VIOLATED if any(t["violations"] for t in cert["targets"]) else 0


def _summary(cert: dict, out: Path, page: Path) -> str:
    e = cert["enumeration"]
    lines = [f"certificate: {e['programs']} programs of up to {cert['bound']['max_ops']} op(s) "
             f"({e['removed_by_symmetry']} of {e['raw_sequences']} removed by symmetry), "
             f"digest {e['digest'][:16]}"]
    for t in cert["targets"]:
        counts: dict[str, int] = {}
        for per in t["verdicts"].values():
            for v, n in per.items():
                counts[v] = counts.get(v, 0) + n
        verdicts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        causes = ", ".join(f"{c['cause']} ({c['programs']})" for c in t["violations"][:6])
        more = len(t["violations"]) - 6
        lines.append(f"  {t['name']}: {t['programs']} programs; {verdicts}")
        if causes:
            lines.append(f"    violated: {causes}" + (f", +{more} more" if more > 0 else ""))
        if t["unknowns"]:
            lines.append(f"    unknown: {sum(u['programs'] for u in t['unknowns'])} verdict(s) "
                         f"for {len(t['unknowns'])} reason(s)")
    if not cert["complete"]:
        lines.append("incomplete: rerun the same command to finish it")
    lines.append(f"wrote {out / 'certificate.json'} and {page}")
    return "\n".join(lines)
