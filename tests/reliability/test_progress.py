"""The campaign's progress line: a `\\r` bar on a terminal, plain lines
every few seconds otherwise."""

from __future__ import annotations

import io

from gpu_alloc_verify.verify.campaign.progress import Progress, ProgressPrinter


def progress(examples: int, fraction: float | None, final: bool = False) -> Progress:
    return Progress("search", examples, examples, 12.5, 2, 8.0, fraction, final)


def test_tty_gets_a_bar_rewritten_in_place() -> None:
    out = io.StringIO()
    p = ProgressPrinter(out, tty=True)
    p(progress(100, 0.25))
    p(progress(200, 0.5, final=True))
    p.done()
    text = out.getvalue()
    assert text.startswith("\r[###.........]  25% 100 programs, 12.5/s, 2 violated verdicts, 8s, "
                           "ETA 24s")
    assert "\r[######......]  50% 200 programs" in text
    assert text.endswith("\n") and text.count("\n") == 1


def test_log_gets_a_line_every_few_seconds() -> None:
    out = io.StringIO()
    p = ProgressPrinter(out, every_s=3600, tty=False)
    for n in range(50):
        p(progress(n, None))
    p(progress(50, None, final=True))
    p.done()
    lines = out.getvalue().splitlines()
    assert lines == ["progress: 0 programs, 12.5/s, 2 violated verdicts, 8s",
                     "progress: 50 programs, 12.5/s, 2 violated verdicts, 8s"]
