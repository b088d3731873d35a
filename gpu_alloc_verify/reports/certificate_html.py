"""The certificate as a page of the HTML report (`certificate.html`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from gpu_alloc_verify.reports.html import TEMPLATES, _env


def write_certificate_html(cert: dict[str, Any], out: Path) -> Path:
    """Write `out/certificate.html` (and the report's stylesheet beside it)."""
    out.mkdir(parents=True, exist_ok=True)
    page = out / "certificate.html"
    page.write_text(_env().get_template("certificate.html").render(cert=cert), "utf-8")
    shutil.copyfile(TEMPLATES / "report.css", out / "report.css")
    return page
