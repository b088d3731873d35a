"""The HTML report: root causes, matrix, violations with evidence, coverage, the
trend chart over every campaign, pages per campaign, headless render."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_alloc_verify.reports.history import parse_lines
from gpu_alloc_verify.reports.html import load_results, render_html, render_report
from gpu_alloc_verify.verify.campaign.report import triage_for_report
from gpu_alloc_verify.verify.model.errors import UsageError

BUGGY, REAL = "mlir-opt:buggy", "mlir-opt-19"
KNOWN = ["alloc.sync", "alloc.async", "alloc.host_shared", "alloc.deps=1", "alloc.deps=2",
         "memcpy.async", "wait.async", "scf.if"]


class Dom(HTMLParser):
    """Elements as (tag, attrs, text), with the enclosing matrix row's lowering."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[dict[str, Any]] = []
        self.stack: list[dict[str, Any]] = []
        self.row_lowering: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        el: dict[str, Any] = {"tag": tag, "attrs": attributes, "text": "",
                              "row": self.row_lowering}
        if tag == "tr":
            self.row_lowering = attributes.get("data-lowering")
            el["row"] = self.row_lowering
        self.elements.append(el)
        if tag not in ("meta", "br", "img", "link", "input"):
            self.stack.append(el)

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            el = self.stack.pop()
            if el["tag"] == tag:
                break
        if tag == "tr":
            self.row_lowering = None

    def handle_data(self, data: str) -> None:
        for el in self.stack:
            el["text"] += data

    def find(self, tag: str | None = None, **attrs: str) -> list[dict[str, Any]]:
        def ok(el: dict[str, Any]) -> bool:
            return (tag is None or el["tag"] == tag) and all(
                el["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items())
        return [el for el in self.elements if ok(el)]


def parse(html: str) -> Dom:
    dom = Dom()
    dom.feed(html)
    return dom


def cell(dom: Dom, lowering: str, invariant: str) -> dict[str, Any]:
    [el] = [el for el in dom.find("td", data_invariant=invariant) if el["row"] == lowering]
    return el


def row_cells(dom: Dom, row: dict[str, Any]) -> list[str]:
    """Texts of the td cells of a tr."""
    i = next(k for k, el in enumerate(dom.elements) if el is row)
    out = []
    for el in dom.elements[i + 1:]:
        if el["tag"] == "tr":
            break
        if el["tag"] == "td":
            out.append(el["text"])
    return out


def report_of(results: Path, out: Path, **kwargs: Any) -> Path:
    """render_report on the results' root causes, as `report` makes them
    (without lit tests): the caller triages, render_report only renders."""
    found, notes = triage_for_report(results)
    return render_report(results, out, triage=found, notes=notes, **kwargs)


@pytest.fixture
def report(results_file: Path, tmp_path: Path) -> tuple[Path, str, Dom]:
    page = report_of(results_file, tmp_path / "out", known_features=KNOWN)
    html = page.read_text()
    return page, html, parse(html)


def test_load_results_tolerates_junk_and_truncation(results_file: Path) -> None:
    camps = load_results(results_file)
    assert [c.id for c in camps] == ["nightly-1", "nightly-2"]
    assert all(c.complete for c in camps)
    assert [len(c.programs) for c in camps] == [3, 4]  # the truncated line is skipped
    assert [len(c.violations()) for c in camps] == [1, 4]
    with open(results_file) as f:
        assert parse_lines(f).skipped_lines == 2


def test_killed_campaign_counts_come_from_program_lines(
        tmp_path: Path, campaigns: dict[str, list[dict[str, Any]]]) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in
                            campaigns["nightly-1"] + campaigns["killed-3"]))
    killed = load_results(path)[-1]
    assert not killed.complete
    summary = killed.summary()
    assert summary["examples"] == 2
    assert summary["by_lowering"][REAL]["lowering-complete"]["violated"] == 1
    assert summary["by_invariant"]["stream-no-leak"]["holds"] == 2
    assert killed.coverage() == {"alloc.sync": 2, "alloc.host_shared": 1}
    dom = parse(report_of(path, tmp_path / "out").read_text())
    assert "incomplete" in dom.find(id="campaign")[0]["text"]
    assert cell(dom, REAL, "lowering-complete")["attrs"]["data-violated"] == "1"
    assert [r["attrs"]["data-campaign"] for r in dom.find("tr", **{"class": "latest"})] == \
        ["killed-3"]


def test_matrix_cells(report: tuple[Path, str, Dom]) -> None:
    _, _, dom = report
    assert [r["attrs"]["data-lowering"] for r in dom.find("tr") if r["attrs"].get(
        "data-lowering")] == [BUGGY, REAL]
    leak = cell(dom, BUGGY, "stream-no-leak")
    assert leak["attrs"]["class"] == "violated"
    assert (leak["attrs"]["data-violated"], leak["attrs"]["data-holds"]) == ("1", "2")
    assert "1 violated" in leak["text"] and "2 holds" in leak["text"]
    shared = cell(dom, REAL, "host-shared-flag")
    assert shared["attrs"]["class"] == "unknown" and shared["attrs"]["data-unknown"] == "1"
    clean = cell(dom, REAL, "stream-no-leak")
    assert clean["attrs"]["class"] == "clean" and clean["attrs"]["data-holds"] == "4"
    assert cell(dom, REAL, "lowering-no-crash")["attrs"]["data-not-applicable"] == "1"
    assert cell(dom, BUGGY, "lowering-complete")["attrs"]["data-rejected"] == "1"
    assert cell(dom, REAL, "async-order")["attrs"]["class"] == "empty"  # never checked
    violated = {(c["row"], c["attrs"]["data-invariant"]) for c in dom.find("td", **{
        "class": "violated"})}
    assert violated == {(BUGGY, "stream-no-leak"), (BUGGY, "lowering-complete"),
                        (BUGGY, "host-shared-flag"), (REAL, "lowering-complete"),
                        (REAL, "sync-alloc-no-stream")}
    # A violated cell links to its counterexample when the campaign has one.
    anchors = {el["attrs"]["id"] for el in dom.find("section") if el["attrs"].get("id")}
    links = [a["attrs"]["href"][1:] for a in dom.find("a") if a["row"] and
             a["attrs"].get("href", "").startswith("#v-")]
    assert set(links) == {"v-nightly-2-v0", "v-nightly-2-v2", "v-nightly-2-v1", "v-nightly-2-v3"}
    assert set(links) <= anchors
    status = [el for el in dom.find("td", **{"class": "mono"}) if el["row"] == BUGGY][0]
    assert "rejected 1" in status["text"] and "ok 3" in status["text"]


def test_violation_evidence(report: tuple[Path, str, Dom]) -> None:
    page, html, dom = report
    sections = {s["attrs"]["id"]: s for s in dom.find("section", **{"class": "violation"})}
    assert set(sections) == {f"v-nightly-2-v{k}" for k in range(4)}
    leak = sections["v-nightly-2-v0"]
    assert "stream-no-leak" in leak["text"] and "the stream created by op0" in leak["text"]
    assert "every stream created is destroyed exactly once" in leak["text"]  # description
    assert "Execution: confirmed by execution (native run): @f0(): stream@op0#0" in leak["text"]
    assert leak["attrs"]["data-lowering"] == BUGGY
    # Lowered IR in custom form, no harness locations; the marks are on the calls
    # that take the leaked stream, each naming its source position.
    marked = [el["text"] for el in dom.find("span", **{"class": "line mark-call"})
              if el["attrs"]["id"].startswith("v-nightly-2-v0-L")]
    assert any("llvm.call @mgpuStreamCreate()" in t and "program:3:5" in t for t in marked)
    assert all('loc("' not in t for t in marked)
    # Only calls that take the stream: create (op0), alloc (op1), free (op2), sync (op3).
    assert len(marked) == 4 and all("%0" in t for t in marked)
    assert [t.split("\u2190")[-1].strip() for t in marked] == [
        "program:3:5", "program:4:5", "program:5:5", "program:6:5"]
    offending = dom.find("table", **{"class": "offending"})
    assert "program:3:5" in offending[0]["text"] and "op0" in offending[0]["text"]
    assert "llvm.call @mgpuStreamCreate" in offending[0]["text"]
    ir = [el for el in dom.find("pre", **{"class": "ir"})]
    assert "@mgpuStreamDestroy" not in ir[0]["text"]
    assert "llvm.call @mgpuStreamCreate()" in ir[0]["text"]
    assert "within split" not in html and 'callee = @' not in ir[0]["text"]
    # The command that reproduces it.
    assert "gpu-alloc-verify replay" in leak["text"] and "--id nightly-2-v0" in leak["text"]
    # Traces side by side.
    traces = dom.find("table", **{"class": "traces"})
    assert len(traces) == 1 and "mgpuMemAlloc(64, s0, 0)" in traces[0]["text"]
    assert "alloc op1 on s0" in traces[0]["text"]
    # Path and schedule of the host-shared-flag counterexample.
    flag = sections["v-nightly-2-v2"]
    path = [el for el in dom.find("table", **{"class": "path"})]
    assert len(path) == 1 and "f0:%cond0" in path[0]["text"] and "true" in path[0]["text"]
    assert [li["text"] for li in dom.find("li")] == ["op0 start", "op1 start", "op1 end"]
    assert "op1 is host_shared" in flag["text"]
    # Text from records is escaped, never markup.
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html


def test_coverage_with_known_features(report: tuple[Path, str, Dom]) -> None:
    _, _, dom = report
    rows = {r["attrs"]["data-feature"]: r for r in dom.find("tr") if
            r["attrs"].get("data-feature")}
    assert list(rows)[:len(KNOWN)] == KNOWN
    assert row_cells(dom, rows["alloc.sync"])[:3] == ["alloc.sync", "3", "75.0"]
    assert rows["memcpy.async"]["attrs"]["class"] == "unreached"
    assert row_cells(dom, rows["memcpy.async"])[:2] == ["memcpy.async", "0"]
    assert rows["alloc.deps=2"]["attrs"]["class"] == "unreached"
    assert rows["scf.if"]["attrs"]["class"] == ""


def test_trend_table(report: tuple[Path, str, Dom]) -> None:
    _, _, dom = report
    rows = [r for r in dom.find("tr") if r["attrs"].get("data-campaign")]
    assert [r["attrs"]["data-campaign"] for r in rows] == ["nightly-1", "nightly-2"]
    cols = [row_cells(dom, r) for r in rows]
    assert cols[0][4:7] == ["3", "1", "3"]  # examples, violations, violated verdicts
    assert cols[1][4:7] == ["4", "4", "5"]
    assert cols[1][1] == "2025-10-10 08:53:20 UTC" and cols[1][2] == "1h02m"
    assert rows[1]["attrs"]["class"] == "latest"


def test_every_campaign_has_a_page_and_the_trend_chart(report: tuple[Path, str, Dom]) -> None:
    page, _, dom = report
    # Every campaign of the file is reachable: a link to its own page.
    links = {a["attrs"]["data-campaign"]: a["attrs"]["href"] for a in dom.find("a")
             if a["attrs"].get("data-campaign")}
    assert links == {"nightly-1": "campaign-nightly-1.html", "nightly-2": "index.html"}
    other = parse((page.parent / "campaign-nightly-1.html").read_text())
    assert "nightly-1" in other.find(id="campaign")[0]["text"]
    assert [a["attrs"]["href"] for a in other.find("a") if a["attrs"].get("data-campaign")
            == "nightly-2"][0] == "index.html"
    assert len(other.find("section", **{"class": "violation"})) == 1
    # The chart: an inline SVG, one point per campaign and series.
    [svg] = dom.find("svg", id="trend-chart")
    assert len(dom.find("circle")) == 2 and len(dom.find("rect")) == 2  # violations, coverage
    assert len(dom.find("polyline", **{"class": "series-violations"})) == 1
    assert "nightly-2: 5 violated verdict(s)" in svg["text"]


def test_root_causes_lead_the_page(report: tuple[Path, str, Dom]) -> None:
    page, html, dom = report
    sections = [el["attrs"].get("id") for el in dom.find("section")
                if el["attrs"].get("id") and "violation" not in el["attrs"].get("class", "")]
    assert sections[:2] == ["summary", "root-causes"]  # issue 29: the summary on top
    rows = [r for r in dom.find("tr") if r["attrs"].get("data-bucket")]
    assert rows, "no root cause bucket"
    triage = json.loads((page.parent / "triage.json").read_text())
    assert [b["key"] for b in triage["buckets"]] == [r["attrs"]["data-bucket"] for r in rows]
    assert triage["campaigns"] == ["nightly-1", "nightly-2"]


def test_page_is_self_contained(report: tuple[Path, str, Dom]) -> None:
    page, html, dom = report
    assert not dom.find("script") and not dom.find("link") and not dom.find("img")
    assert all(not el["attrs"].get("src") for el in dom.elements)
    assert all(not el["attrs"].get("href", "").startswith(("http:", "https:", "//"))
               for el in dom.find("a"))
    assert "@import" not in html and "url(" not in html
    assert {p.name for p in page.parent.iterdir()} == {"index.html", "campaign-nightly-1.html",
                                                      "triage.json"}


def test_only_named_campaign_and_errors(results_file: Path, tmp_path: Path) -> None:
    page = report_of(results_file, tmp_path / "a", campaign="nightly-1")
    assert page.name == "campaign-nightly-1.html"
    dom = parse(page.read_text())
    assert cell(dom, BUGGY, "stream-no-leak")["attrs"]["data-violated"] == "1"
    assert len(dom.find("section", **{"class": "violation"})) == 1
    with pytest.raises(UsageError, match="no campaign 'nope'"):
        report_of(results_file, tmp_path / "b", campaign="nope")
    assert not (tmp_path / "b").exists()
    with pytest.raises(UsageError, match="does not exist"):
        report_of(tmp_path / "missing.jsonl", tmp_path / "c")
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"kind": "campaign-st')
    html = report_of(empty, tmp_path / "d").read_text()
    assert "holds no campaign" in html and "1 malformed line skipped" in html


def test_end_summary_violations_without_violation_lines(
        tmp_path: Path, campaigns: dict[str, list[dict[str, Any]]]) -> None:
    records = [r for r in campaigns["nightly-2"] if r["kind"] != "violation"]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    dom = parse(report_of(path, tmp_path / "out").read_text())
    sections = dom.find("section", **{"class": "violation"})
    assert len(sections) == 4 and sections[0]["attrs"]["id"] == "v-nightly-2-v0"


CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)


SECTIONS = ["root-causes", "campaign", "verdicts", "violations", "unknown",
            "coverage-section", "trend-section"]


def _chromium(tmp_path: Path) -> list[str]:
    assert CHROMIUM is not None
    return [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'prof'}"]


def _only(page: Path, section: str, extra: str = "") -> Path:
    """A copy of the page that shows one section (and runs `extra`, a script)."""
    html = page.read_text().replace(
        "</style>", f"header, body > section:not(#{section}) {{ display: none !important; }}"
        "</style>").replace("</body>", extra + "</body>")
    out = page.parent / f"_only_{section}.html"
    out.write_text(html)
    return out


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no headless chromium (apt-get install chromium)")
def test_headless_chromium_renders(report: tuple[Path, str, Dom], tmp_path: Path) -> None:
    page, _, _ = report
    base = _chromium(tmp_path)
    url = page.resolve().as_uri()
    dom = subprocess.run([*base, "--dump-dom", url], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    parsed = parse(dom.stdout)
    assert parsed.find("table", id="matrix") and parsed.find("table", id="trend")
    assert parsed.find("svg", id="trend-chart")
    assert cell(parsed, BUGGY, "stream-no-leak")["attrs"]["class"] == "violated"
    # Each section alone, screenshotted at 1280 px: it renders (not blank).
    present = [s for s in SECTIONS if f'<section id="{s}"' in page.read_text()]
    assert len(present) >= 6
    for section in present:
        shot = tmp_path / f"{section}.png"
        proc = subprocess.run([*base, f"--screenshot={shot}", "--window-size=1280,900",
                               "--hide-scrollbars", _only(page, section).resolve().as_uri()],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        data = shot.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", data[16:24]) == (1280, 900)
        assert distinct_pixel_bytes(data) > 64, f"section {section} renders blank"


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no headless chromium (apt-get install chromium)")
def test_matrix_fits_1280px(report: tuple[Path, str, Dom], tmp_path: Path) -> None:
    """The verdict matrix, all invariants, needs no horizontal scrolling at 1280 px."""
    page, _, _ = report
    probe = ("<script>const m = document.getElementById('matrix');"
             "document.body.setAttribute('data-overflow', "
             "String(m.scrollWidth - m.parentElement.clientWidth));"
             "document.body.setAttribute('data-page', "
             "String(document.documentElement.scrollWidth));</script>")
    proc = subprocess.run([*_chromium(tmp_path), "--window-size=1280,900", "--dump-dom",
                           _only(page, "verdicts", probe).resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [body] = parse(proc.stdout).find("body")
    assert int(body["attrs"]["data-overflow"]) <= 0
    assert int(body["attrs"]["data-page"]) <= 1280


def distinct_pixel_bytes(png: bytes) -> int:
    """Distinct byte values in the decompressed image data (no imaging library needed)."""
    pos, idat = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind = png[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += png[pos + 8:pos + 8 + length]
        pos += 12 + length
    return len(set(zlib.decompress(idat)))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8)
FIELDS = ["time", "lowerings", "seed", "config", "program", "features", "results", "summary",
          "coverage", "invariant", "lowering", "lowered", "detail", "counterexample",
          "marked_calls", "id", "pipeline", "examples", "by_lowering", "verdicts", "path",
          "confirmation"]
COUNTS = st.dictionaries(st.sampled_from(["holds", "violated", "unknown", "odd"]), JSON,
                         max_size=3)
RESULTS = st.dictionaries(st.sampled_from([BUGGY, REAL]), st.fixed_dictionaries(
    {"status": JSON, "verdicts": st.dictionaries(st.sampled_from(["stream-no-leak", "new-inv"]),
                                                 JSON | st.sampled_from(["holds", "violated"]),
                                                 max_size=2)}), max_size=2)
SUMMARY = st.fixed_dictionaries({}, optional={
    "examples": JSON, "by_lowering": st.dictionaries(st.sampled_from([BUGGY, "x"]), st.dictionaries(
        st.sampled_from(["stream-no-leak", "z"]), COUNTS | JSON, max_size=2), max_size=2) | JSON,
    "by_invariant": JSON, "violations": st.lists(JSON, max_size=2)})
RECORD = st.fixed_dictionaries(
    {"kind": st.sampled_from(["campaign-start", "program", "violation", "campaign-end", "x"]),
     "campaign": st.sampled_from(["a", "b", "", None])},
    optional={**{f: JSON for f in FIELDS}, "results": RESULTS | JSON, "summary": SUMMARY | JSON,
              "lowered": st.just('%0 = "llvm.call"() <{callee = @mgpuStreamCreate}> loc("op0")')
              | JSON, "marked_calls": st.lists(st.sampled_from(["op0", "op1"])) | JSON})


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RECORD | JSON, max_size=6))
def test_odd_records_never_break_the_report(records: list[Any]) -> None:
    lines = [json.dumps(r) for r in records]
    html = render_html(parse_lines(lines), known_features=["alloc.sync"])
    assert html.startswith("<!DOCTYPE html>")
