"""One JUnit XML file for `check` of several files: the testsuite each file's
run wrote (`reports.junit`), side by side under one <testsuites>, plus a
testsuite with an <error> for each file that could not be read, so a CI
viewer never shows an unreadable file as passed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path


def merge_junit(parts: Sequence[Path], errors: Sequence[tuple[str, str]],
                target: str | Path) -> None:
    """Write the testsuites of the JUnit files `parts` and one erroring
    testsuite per (file name, message) of `errors` to `target`."""
    root = ET.Element("testsuites", {"name": "gpu-alloc-verify"})
    for part in parts:
        root.extend(ET.parse(part).getroot().iter("testsuite"))
    for name, message in errors:
        suite = ET.SubElement(root, "testsuite", {
            "name": f"gpu-alloc-verify check {name}", "errors": "1", "failures": "0",
            "skipped": "0", "tests": "1", "time": "0.000"})
        case = ET.SubElement(suite, "testcase", {"classname": "check", "name": name,
                                                 "time": "0.000"})
        ET.SubElement(case, "error", {"type": "input", "message": message}).text = message
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root.iter("testsuite"))))
    root.set("time", f"{sum(float(s.get('time', '0')) for s in root.iter('testsuite')):.3f}")
    ET.indent(root)
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(out, encoding="utf-8", xml_declaration=True)
