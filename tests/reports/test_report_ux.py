"""Report UX (issue 29): --verbose prints every unknown reason in full, an
interrupted report keeps the previous one, the page leads with a summary,
and long sources are not clipped (headless Chromium)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import gpu_alloc_verify.reports.html as html
from gpu_alloc_verify.verify.campaign.report import triage_for_report
from gpu_alloc_verify.verify.cli import main

FUZZ = ["fuzz", "--lowering", "xdsl:pr69969", "--max-examples", "40", "--seed", "3", "-j", "1"]
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    d = tmp_path_factory.mktemp("ux")
    results = d / "results.jsonl"
    main([*FUZZ, "--results", str(results), "--json"])
    end = [json.loads(ln) for ln in results.read_text().splitlines()
           if '"campaign-end"' in ln][-1]
    return results, end["summary"]


@pytest.mark.slow
def test_verbose_prints_every_unknown_reason_in_full(campaign: tuple[Path, dict],
                                                    capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    _, summary = campaign
    reasons = [u["reason"] for u in summary["unknown"]]
    assert reasons, "the campaign needs unknown verdicts"
    main([*FUZZ, "--results", str(tmp_path / "r.jsonl")])
    short = capsys.readouterr().out
    main([*FUZZ, "--results", str(tmp_path / "v.jsonl"), "--verbose"])
    verbose = capsys.readouterr().out
    assert all(r in verbose for r in reasons)
    assert not all(r in short for r in reasons)  # grouped and cut without --verbose
    assert len(verbose.splitlines()) > len(short.splitlines())


def test_an_interrupted_report_keeps_the_previous_one(campaign: tuple[Path, dict],
                                                     tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    results, _ = campaign
    out = tmp_path / "report"
    out.mkdir()
    shutil.copy(results, out / "results.jsonl")  # as `fuzz --report DIR` leaves it
    _render(out / "results.jsonl", out)
    before = (out / "index.html").read_bytes()

    def interrupted(*args: object, **kwargs: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(html, "render_html", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _render(out / "results.jsonl", out)
    assert (out / "index.html").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]  # no temporary left
    monkeypatch.undo()
    (out / "index.html").write_text("stale")
    _render(out / "results.jsonl", out)
    assert (out / "index.html").read_text() != "stale"
    assert (out / "results.jsonl").read_bytes() == results.read_bytes()  # carried over
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def _render(results: Path, out: Path) -> Path:
    """The report of `results` with its root causes (no lit tests), made by
    the caller and rendered by `html.render_report`."""
    found, notes = triage_for_report(results)
    return html.render_report(results, out, triage=found, notes=notes)


def _chromium(tmp_path: Path) -> list[str]:
    assert CHROMIUM is not None
    return [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'prof'}"]


# Opens every <details>, then records, on <body>, the first section's id and
# how many sources are clipped (content taller than the box).
PROBE = """<script>
document.querySelectorAll('details').forEach(d => d.open = true);
const pres = [...document.querySelectorAll('pre.src')];
document.body.dataset.first = document.querySelector('body > section').id;
document.body.dataset.clipped = pres.filter(p => p.scrollHeight > p.clientHeight + 2).length;
document.body.dataset.longest = Math.max(...pres.map(p => p.querySelectorAll('.line').length));
</script>"""


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no headless chromium (apt-get install chromium)")
def test_summary_first_and_sources_whole_in_chromium(campaign: tuple[Path, dict],
                                                     tmp_path: Path) -> None:
    results, summary = campaign
    page = _render(results, tmp_path / "rep")
    text = page.read_text()
    assert "{&#34;" not in text and '{"' not in text.split("<body>")[1]  # no raw JSON
    probe = page.with_name("probe.html")
    probe.write_text(text.replace("</body>", PROBE + "</body>"))
    dom = subprocess.run([*_chromium(tmp_path), "--window-size=1280,900", "--dump-dom",
                          probe.resolve().as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    body = dom.stdout[dom.stdout.index("<body"):].split(">", 1)[0]
    assert 'data-first="summary"' in body
    assert 'data-clipped="0"' in body
    longest = int(body.split('data-longest="')[1].split('"')[0])
    assert longest > 24  # a source longer than the old 24rem clip was shown
    assert 'id="summary-unknown"' in dom.stdout and 'id="next-steps"' in dom.stdout
    n = sum(u["count"] for u in summary["unknown"])
    assert f"<strong>{n}</strong> unknown verdict" in dom.stdout
    assert 'class="program-link" href="#u-0"' in dom.stdout
