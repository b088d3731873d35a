"""Prove each upstream fix in patches/ against real MLIR (issue 42, items 3 and 4).

    .venv/bin/python scripts/prove_patches.py [--version 19 --version 22]
        [--no-fetch] [--report docs/patches.md] [--check]

For each defect in patches/defects.json and each LLVM version N it:
1. runs the defect's new test case (patches/tests/<slug>.mlir, a
   `-split-input-file` case in upstream's shape) on the stock `mlir-opt-N`
   and checks it fails at its pinned line for its pinned reason;
2. builds the fix (patches/N/<slug>.patch, applied to upstream's own source
   of that version) as an `mlir-opt --load-pass-plugin` plugin that
   registers the patched pass as `gpu-to-llvm-patched`, and runs the case on
   it: it must pass;
3. runs upstream's existing tests of the case's file (and every GPUCommon
   test whose RUN line uses gpu-to-llvm), plus the upstream file with the
   case appended after `// -----`, on the patched pass: they must pass.

Upstream's source comes from Debian's source package of that version
(`apt-get source --download-only llvm-toolchain-N`), the headers from
`libmlir-N-dev` and `llvm-N-dev` (installed, or extracted from
`apt-get download` into the cache); both are cached under
~/.cache/gpu-alloc-verify (GPU_ALLOC_VERIFY_CACHE overrides) and never
enter the repository.  Whatever is missing makes that version's cells read
"not run: <reason>", never a traceback.  --check exits 1 unless every cell
of every version that could run is "yes".

Plugin build: mlir-opt-19 is statically linked but exports MLIR's symbols,
and mlir-opt-22 links libMLIR.so, so the plugin leaves MLIR undefined (the
executable provides it); the patched source is compiled with hidden
visibility and linked with -Bsymbolic so its copies of the patched
functions bind inside the plugin and only mlirGetPassPluginInfo is exported.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PATCHES = REPO / "patches"
CACHE = Path(os.environ.get("GPU_ALLOC_VERIFY_CACHE", Path.home() / ".cache/gpu-alloc-verify"))
VERSIONS = (19, 22)
PATCHED_PASS = "gpu-to-llvm-patched"
# The upstream files the proof needs, taken out of the orig tarball.
SOURCE_MEMBERS = (
    "mlir/lib/Conversion/GPUCommon",
    "mlir/test/Conversion/GPUCommon",
    "mlir/lib/Dialect/GPU/Transforms/AsyncRegionRewriter.cpp",
    "mlir/test/Dialect/GPU/async-region.mlir",
)
EXISTING_TEST_DIR = "mlir/test/Conversion/GPUCommon"
COMPILE_FLAGS = (
    "-std=c++17", "-O1", "-fPIC", "-fno-rtti", "-fvisibility=hidden",
    "-fvisibility-inlines-hidden", "-D_GNU_SOURCE", "-D__STDC_CONSTANT_MACROS",
    "-D__STDC_FORMAT_MACROS", "-D__STDC_LIMIT_MACROS", "-w",
)
PLUGIN_SOURCE = """\
// Registers the gpu-to-llvm pass compiled into this plugin; its argument is
// renamed by the generated Passes.h.inc this build puts first on the path.
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" __attribute__((visibility("default"))) ::mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "GpuToLLVMPatched", LLVM_VERSION_STRING, []() {
            ::mlir::registerPass([]() -> std::unique_ptr<::mlir::Pass> {
              return ::mlir::createGpuToLLVMConversionPass();
            });
          }};
}
"""


class Unavailable(Exception):
    """A prerequisite of one version is missing; the message says which, in words."""


@dataclass(frozen=True)
class Defect:
    slug: str
    title: str
    source: str
    upstream_test: str
    pin: str  # the case's line that must fail: a CHECK line, or the op a diagnostic names
    reason: str  # what FileCheck or mlir-opt says there
    campaign_pipeline: str  # the pipeline the campaign's program showed the defect on
    rule: str  # the invariant of this tool that the defect breaks
    upstream: str  # what upstream says or did about it, in words

    @property
    def case(self) -> Path:
        return PATCHES / "tests" / f"{self.slug}.mlir"

    @property
    def reproducer(self) -> Path:
        """The campaign's program that showed the defect (docs/findings.md)."""
        return PATCHES / "reproducers" / f"{self.slug}.mlir"

    def patch(self, version: int) -> Path:
        return PATCHES / str(version) / f"{self.slug}.patch"

    def pin_line(self) -> int:
        lines = self.case.read_text().splitlines()
        hits = [i + 1 for i, line in enumerate(lines) if self.pin in line]
        if len(hits) != 1:
            raise ValueError(f"{self.case.name}: the pin {self.pin!r} is on {len(hits)} lines")
        return hits[0]


def load_defects() -> list[Defect]:
    return [Defect(**entry) for entry in json.loads((PATCHES / "defects.json").read_text())]


# --- what each version needs -------------------------------------------------


def tool(version: int, name: str) -> Path:
    return Path(f"/usr/lib/llvm-{version}/bin/{name}")


def source_dir(version: int, fetch: bool) -> Path:
    """Upstream's files of this version, from Debian's source package."""
    root = CACHE / f"llvm-src-{version}"
    if (root / "mlir/lib/Conversion/GPUCommon/GPUToLLVMConversion.cpp").is_file():
        return root
    download = CACHE / "src-dl"
    tarballs = sorted(download.glob(f"llvm-toolchain-{version}_*.orig.tar.xz"))
    if not tarballs:
        if not fetch:
            raise Unavailable(f"upstream source of {version} is not cached "
                              "(run without --no-fetch)")
        download.mkdir(parents=True, exist_ok=True)
        got = subprocess.run(["apt-get", "source", "--download-only", f"llvm-toolchain-{version}"],
                             cwd=download, capture_output=True, text=True)
        tarballs = sorted(download.glob(f"llvm-toolchain-{version}_*.orig.tar.xz"))
        if not tarballs:
            tarballs = _orig_from_main_pool(version, download)
        if not tarballs:
            errors = [ln for ln in got.stderr.splitlines() if ln.startswith("E:")]
            why = errors[0][3:].strip() if errors else "no orig tarball came back"
            raise Unavailable(f"Debian's source package llvm-toolchain-{version} could not be "
                              f"downloaded ({why}); deb-src must be enabled")
    staging = Path(tempfile.mkdtemp(dir=CACHE, prefix=f"llvm-src-{version}."))
    members = [f"*/{m}" if m.endswith((".cpp", ".mlir")) else f"*/{m}/*" for m in SOURCE_MEMBERS]
    untar = subprocess.run(["nice", "tar", "-xf", str(tarballs[-1]), "-C", str(staging),
                            "--strip-components=1", "--wildcards", *members],
                           capture_output=True, text=True)
    if untar.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise Unavailable(f"{tarballs[-1].name} could not be unpacked: {untar.stderr.strip()}")
    staging.rename(root)
    return root


def _orig_from_main_pool(version: int, download: Path) -> list[Path]:
    """The orig tarball from Debian's main pool, checked against apt's Sources index.

    A security upload's .dsc names the orig tarball of the same upstream
    release, which the mirror may keep in the main pool only.
    """
    package = f"llvm-toolchain-{version}"
    shown = subprocess.run(["apt-cache", "showsrc", package], capture_output=True, text=True)
    m = re.search(r"^ ([0-9a-f]{64}) \d+ (" + re.escape(package) + r"_[^ ]+\.orig\.tar\.xz)$",
                  shown.stdout, re.M)
    if m is None:
        return []
    digest, name = m.groups()
    url = f"http://deb.debian.org/debian/pool/main/l/{package}/{name}"
    part = download / f"{name}.part"
    try:
        with urllib.request.urlopen(url, timeout=60) as response, part.open("wb") as out:
            shutil.copyfileobj(response, out)
    except OSError:
        part.unlink(missing_ok=True)
        return []
    sha = hashlib.sha256()
    with part.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            sha.update(chunk)
    if sha.hexdigest() != digest:
        part.unlink()
        return []
    return [part.rename(download / name)]


def include_dir(version: int, fetch: bool) -> Path:
    """MLIR's and LLVM's headers of this version (libmlir-N-dev, llvm-N-dev)."""
    for root in (Path(f"/usr/lib/llvm-{version}/include"),
                 CACHE / f"dev-{version}/usr/lib/llvm-{version}/include"):
        if (root / "mlir/Conversion/Passes.h.inc").is_file() and (root / "llvm/Config").is_dir():
            return root
    if not fetch:
        raise Unavailable(f"libmlir-{version}-dev's headers are neither installed nor cached")
    debs = CACHE / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    packages = [f"libmlir-{version}-dev", f"llvm-{version}-dev"]
    got = subprocess.run(["apt-get", "download", *packages], cwd=debs, capture_output=True,
                         text=True)
    if got.returncode != 0:
        raise Unavailable(f"apt-get download {' '.join(packages)} failed: "
                          f"{got.stderr.strip().splitlines()[-1] if got.stderr.strip() else ''}")
    target = CACHE / f"dev-{version}"
    target.mkdir(parents=True, exist_ok=True)
    for package in packages:
        deb = sorted(debs.glob(f"{package}_*.deb"))[-1]
        # Headers only: the static libraries are not needed by a plugin.
        _run(["bash", "-o", "pipefail", "-c", f"dpkg-deb --fsys-tarfile '{deb}' | "
              f"tar -x -C '{target}' --wildcards '*/include/*'"])
    return include_dir(version, fetch=False)


# --- building a plugin -------------------------------------------------------


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise Unavailable(f"`{' '.join(cmd[:2])} ...` failed:\n{tail}")


def patched_files(patch: Path) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^\+\+\+ b/(\S+)", patch.read_text(), re.M)]


def build_plugin(version: int, patch: Path | None, fetch: bool) -> Path:
    """The plugin of `patch` applied to upstream's source (None: the stock source).

    Builds are cached by the text they compile, so a patch whose hunks are
    unchanged is not rebuilt.
    """
    src = source_dir(version, fetch)
    inc = include_dir(version, fetch)
    build = CACHE / f"build-{version}"
    renamed = build / "inc/mlir/Conversion/Passes.h.inc"
    if not renamed.is_file():
        renamed.parent.mkdir(parents=True, exist_ok=True)
        text = (inc / "mlir/Conversion/Passes.h.inc").read_text()
        renamed.write_text(text.replace('"gpu-to-llvm"', f'"{PATCHED_PASS}"'))
    files = patched_files(patch) if patch else ["mlir/lib/Conversion/GPUCommon/"
                                                "GPUToLLVMConversion.cpp"]
    work = Path(tempfile.mkdtemp(dir=build, prefix="work."))
    try:
        shutil.copytree(src / SOURCE_MEMBERS[0], work / SOURCE_MEMBERS[0])
        if patch:
            _run(["patch", "-p1", "--no-backup-if-mismatch", "-s", "-i", str(patch)], cwd=work)
        (work / "plugin.cpp").write_text(PLUGIN_SOURCE)
        sources = [*files, "plugin.cpp"]
        key = hashlib.sha256(" ".join([*COMPILE_FLAGS, str(inc)]).encode())
        for rel in sources:
            key.update((work / rel).read_bytes())
        plugin = build / f"{patch.stem if patch else 'stock'}-{key.hexdigest()[:12]}/plugin.so"
        if plugin.is_file():
            return plugin
        flags = [*COMPILE_FLAGS, "-I", str(build / "inc"), "-I", str(inc)]
        objects = []
        for i, rel in enumerate(sources):
            obj = work / f"{i}.o"
            _run(["nice", "g++", *flags, "-I", str((work / rel).parent), "-c", str(work / rel),
                  "-o", str(obj)])
            objects.append(str(obj))
        _run(["g++", "-shared", "-Wl,-Bsymbolic", "-o", str(work / "plugin.so"), *objects])
        plugin.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(work / "plugin.so"), plugin)
        stem = plugin.parent.name.rsplit("-", 1)[0]
        for stale in build.iterdir():  # earlier revisions of this patch
            if stale != plugin.parent and re.fullmatch(rf"{re.escape(stem)}-[0-9a-f]{{12}}",
                                                       stale.name):
                shutil.rmtree(stale, ignore_errors=True)
        return plugin
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- running RUN lines -------------------------------------------------------


@dataclass
class Outcome:
    passed: bool
    output: str


def run_lines(test: Path) -> list[str]:
    lines, current = [], ""
    for line in test.read_text().splitlines():
        m = re.match(r"\s*//\s*RUN:(.*)$", line)
        if not m:
            continue
        current += m.group(1).strip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        lines.append(current)
        current = ""
    return lines


_PASS_FLAG = re.compile(r"(?<!\S)--?gpu-to-llvm(?:=\"([^\"]*)\"|='([^']*)'|=(\S+))?(?=\s|$)")


def substitute(line: str, test: Path, version: int, plugin: Path | None) -> str:
    """The RUN line for the stock tool, or with the pass flag mapped to the plugin's pass."""
    line = line.replace("%s", f"'{test}'")
    line = re.sub(r"(?<![\w/-])FileCheck(?![\w-])", str(tool(version, "FileCheck")), line)
    opt = str(tool(version, "mlir-opt"))
    if plugin is not None:
        def to_pipeline(m: re.Match[str]) -> str:
            options = next((g for g in m.groups() if g), "")
            inner = f"{PATCHED_PASS}{{{options}}}" if options else PATCHED_PASS
            return f"'--pass-pipeline=builtin.module({inner})'"
        line = _PASS_FLAG.sub(to_pipeline, line)
        opt += f" --load-pass-plugin='{plugin}'"
    return re.sub(r"(?<![\w/-])mlir-opt(?![\w-])", opt, line)


def run_test(test: Path, version: int, plugin: Path | None) -> Outcome:
    outputs = []
    for line in run_lines(test):
        done = subprocess.run(["bash", "-o", "pipefail", "-c",
                               substitute(line, test, version, plugin)],
                              capture_output=True, text=True, timeout=120)
        outputs.append(done.stdout + done.stderr)
        if done.returncode != 0:
            return Outcome(False, "".join(outputs))
    return Outcome(True, "".join(outputs))


def uses_gpu_to_llvm(test: Path) -> bool:
    return any(_PASS_FLAG.search(line) for line in run_lines(test))


# --- the proof ---------------------------------------------------------------


@dataclass
class Row:
    defect: Defect
    version: int
    fails_stock: str = "not run"
    passes_patched: str = "not run"
    existing_pass: str = "not run"
    tool_holds: str = "not run"

    def cells(self) -> tuple[str, str, str, str]:
        return self.fails_stock, self.passes_patched, self.existing_pass, self.tool_holds


def fails_at_pin(defect: Defect, outcome: Outcome) -> str:
    """'yes' when the stock run fails at the pinned line for the pinned reason."""
    if outcome.passed:
        return "no: it passes on the stock tool"
    line = defect.pin_line()
    name = re.escape(defect.case.name)
    if defect.pin.lstrip().startswith("//"):
        where = re.search(rf"{name}:(\d+):\d+: error: (.*)", outcome.output)
    else:  # mlir-opt's own diagnostic, "offset :L:C" inside a split
        where = re.search(r":(\d+):\d+: error: (.*)", outcome.output)
    if where is None:
        return "no: it fails without a located error"
    got_line, message = int(where.group(1)), where.group(2)
    if got_line != line or defect.reason not in message:
        return f"no: it fails at line {got_line} ({message.strip()[:80]}), pinned {line}"
    return f"yes (line {line}: {defect.reason})"


def with_case_appended(upstream: Path, case: Path, into: Path) -> Path:
    """Upstream's file with the case after `// -----`, as the upstream patch adds it."""
    text = upstream.read_text()
    first, _, rest = text.partition("\n")
    if "-split-input-file" not in first:
        first = first.replace("--gpu-to-llvm", "--gpu-to-llvm -split-input-file")
    body = "\n".join(ln for ln in case.read_text().splitlines() if "RUN:" not in ln)
    into.write_text(f"{first}\n{rest.rstrip()}\n\n// -----\n{body}\n")
    return into


def existing_tests(src: Path) -> list[Path]:
    return sorted(t for t in (src / EXISTING_TEST_DIR).glob("*.mlir") if uses_gpu_to_llvm(t))


def prove(defects: Iterable[Defect], version: int, fetch: bool, log: list[str]) -> list[Row]:
    rows = [Row(d, version) for d in defects]
    if not tool(version, "mlir-opt").is_file() or not tool(version, "FileCheck").is_file():
        for row in rows:
            row.fails_stock = row.passes_patched = row.existing_pass = row.tool_holds = (
                f"not run: mlir-{version}-tools or llvm-{version}-tools is not installed")
        return rows
    for row in rows:
        row.fails_stock = fails_at_pin(row.defect, run_test(row.defect.case, version, None))
    try:
        src = source_dir(version, fetch)
        baseline = [t for t in existing_tests(src) if not run_test(t, version, None).passed]
    except Unavailable as why:
        for row in rows:
            row.passes_patched = row.existing_pass = row.tool_holds = f"not run: {why}"
        return rows
    if baseline:
        names = ", ".join(t.name for t in baseline)
        log.append(f"{version}: fail on the stock tool already, left out: {names}")
    for row in rows:
        patch = row.defect.patch(version)
        if not patch.is_file():
            row.passes_patched = row.existing_pass = row.tool_holds = (
                f"not run: no patch for {version} yet")
            continue
        try:
            print(f"building {version}/{row.defect.slug} ...", file=sys.stderr, flush=True)
            plugin = build_plugin(version, patch, fetch)
        except Unavailable as why:
            row.passes_patched = row.existing_pass = row.tool_holds = f"not run: {why}"
            continue
        case = run_test(row.defect.case, version, plugin)
        row.passes_patched = "yes" if case.passed else "no: " + _first_error(case.output)
        tests = existing_tests(src)
        broken = [t.name for t in tests
                  if t not in baseline and not run_test(t, version, plugin).passed]
        with tempfile.TemporaryDirectory() as tmp:
            upstream = src / row.defect.upstream_test
            combined = with_case_appended(upstream, row.defect.case, Path(tmp) / upstream.name)
            if not run_test(combined, version, plugin).passed:
                broken.append(f"{upstream.name} with the case appended")
        row.existing_pass = (f"yes ({len(tests) - len(baseline)} files)" if not broken
                             else "no: " + ", ".join(broken))
        row.tool_holds = judged_by_tool(row.defect, version, plugin)
    return rows


def rule_counts(defect: Defect, lowering: str, pipeline: str) -> dict[str, int] | str:
    """This tool's verdict counts of the defect's rule on its campaign program."""
    cmd = [sys.executable, "-m", "gpu_alloc_verify", "check", str(defect.reproducer),
           "--lowering", lowering, "--pipeline", pipeline, "--invariant", defect.rule, "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=REPO)
    try:
        counts: dict[str, int] = json.loads(done.stdout)["by_invariant"][defect.rule]
    except (ValueError, KeyError):
        return f"check gave no verdict (exit {done.returncode})"
    return counts


def judged_by_tool(defect: Defect, version: int, plugin: Path) -> str:
    """'yes' when the rule is violated on stock mlir-opt-N and holds patched."""
    stock = rule_counts(defect, f"mlir-opt-{version}", defect.campaign_pipeline)
    wrapper = plugin.parent / "mlir-opt"
    wrapper.write_text(f"#!/bin/sh\nexec {tool(version, 'mlir-opt')} "
                       f"--load-pass-plugin='{plugin}' \"$@\"\n")
    wrapper.chmod(0o755)
    pipeline = re.sub(r"(?<![\w-])gpu-to-llvm(?![\w-])", PATCHED_PASS, defect.campaign_pipeline)
    patched = rule_counts(defect, f"mlir-opt:{wrapper}", pipeline)
    if isinstance(stock, str) or isinstance(patched, str):
        return f"no: {stock if isinstance(stock, str) else patched}"
    if not stock.get("violated"):
        return f"no: {defect.rule} is not violated on stock mlir-opt-{version}"
    if patched.get("violated") or not patched.get("holds"):
        return f"no: {defect.rule} is not proven to hold patched ({patched})"
    return f"yes ({defect.rule})"


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if "error:" in line:
            return line.strip()[:120]
    return output.strip()[:120] or "failed without output"


# --- the report --------------------------------------------------------------


def report(rows: list[Row], log: list[str]) -> str:
    out = [
        "# Patches proven against real MLIR",
        "",
        f"Generated by `scripts/prove_patches.py` on {date.today().isoformat()}.  Per defect",
        "(`patches/defects.json`) and LLVM version: the new test case "
        "(`patches/tests/<slug>.mlir`,",
        "a `-split-input-file` case for the upstream file named) fails on the stock "
        "`mlir-opt-N`",
        "at its pinned line for its pinned reason; it passes with the fix "
        "(`patches/N/<slug>.patch`",
        "on Debian's source of that version, built as a `--load-pass-plugin` plugin that",
        f"registers `{PATCHED_PASS}`); and upstream's existing GPUCommon tests that run",
        "gpu-to-llvm, plus the upstream file with the case appended, pass with the fix;",
        "and this tool (`check --invariant RULE`) finds the defect's rule violated by stock",
        "`mlir-opt-N` on the campaign's program (`patches/reproducers/<slug>.mlir`) and",
        "proves it holds on the patched pass's output.",
        "",
        "| defect | version | fails on stock | passes patched | existing tests pass "
        "| tool: rule holds patched |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        cells = " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in row.cells())
        out.append(f"| `{row.defect.slug}` | {row.version} | {cells} |")
    out += ["", "Defects:", ""]
    for defect in {r.defect.slug: r.defect for r in rows}.values():
        out.append(f"- `{defect.slug}`: {defect.title}; test for "
                   f"`{defect.upstream_test}`, fix in `{defect.source}`; campaign "
                   f"pipeline `{defect.campaign_pipeline}`, rule `{defect.rule}`.  "
                   f"Upstream: {defect.upstream}")
    if log:
        out += ["", "Notes:", ""] + [f"- {line}" for line in log]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", type=int, action="append",
                        help=f"LLVM version to prove on (default: {VERSIONS})")
    parser.add_argument("--only", action="append", help="defect slug (default: all)")
    parser.add_argument("--no-fetch", action="store_true",
                        help="use only what is installed or cached; never call apt-get")
    parser.add_argument("--report", type=Path, help="write the table here (e.g. docs/patches.md)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every cell that could run reads yes")
    args = parser.parse_args(argv)
    CACHE.mkdir(parents=True, exist_ok=True)
    defects = [d for d in load_defects() if not args.only or d.slug in args.only]
    rows: list[Row] = []
    log: list[str] = []
    for version in args.version or VERSIONS:
        rows += prove(defects, version, not args.no_fetch, log)
    text = report(rows, log)
    if args.report:
        args.report.write_text(text)
    print(text)
    bad = [c for r in rows for c in r.cells() if not c.startswith(("yes", "not run"))]
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
