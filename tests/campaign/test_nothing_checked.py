"""Nothing checked is never green.

`check` on a file that every lowering rejects (mlir-opt-16 refuses any sync
`gpu.alloc`), or that no lowering can take (a pass the version lacks),
proves nothing: it exits 3 with "nothing checked: <reason>", and its JUnit
file has skipped test cases with that reason, never passing ones.  Real CLI
(in process and as a subprocess), real mlir-opt.
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.cli import main
from tests.conftest import SYNC_SHARED, need_mlir_opt

ROOT = Path(__file__).parents[2]
CLI = ROOT / ".venv" / "bin" / "gpu-alloc-verify"
NEWER_PASS = "gpu-eliminate-barriers"  # in mlir-opt-19 and 22, not 16


def mlir(tmp_path: Path) -> str:
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    return str(f)


def cases(xml: Path) -> dict[tuple[str, str], ET.Element]:
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None
    return {(c.get("classname", ""), c.get("name", "")): c for c in suite.findall("testcase")}


def passed(case: ET.Element) -> bool:
    return case.find("failure") is None and case.find("skipped") is None


def test_every_lowering_rejects_exits_3_and_junit_skips(tmp_path: Path) -> None:
    need_mlir_opt(16)
    xml = tmp_path / "junit.xml"
    proc = subprocess.run([str(CLI), "check", mlir(tmp_path), "--lowering", "mlir-opt-16",
                           "--junitxml", str(xml)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 3, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("1 lowering(s): nothing checked: mlir-opt-16 rejected the file")
    assert "failed to legalize operation 'gpu.alloc'" in last
    assert "nothing checked: mlir-opt-16 rejected the file" in proc.stderr
    found = cases(xml)
    assert found and not any(passed(c) for c in found.values())
    for case in found.values():
        skip = case.find("skipped")
        assert skip is not None and skip.get("type") == "nothing-checked"
        assert skip.get("message", "").startswith("nothing checked: mlir-opt-16 rejected")
    suite = ET.parse(xml).getroot().find("testsuite")
    assert suite is not None and suite.get("skipped") == str(len(found))


def test_allow_unknown_does_not_make_it_green(tmp_path: Path, capsys) -> None:
    need_mlir_opt(16)
    rc = main(["check", mlir(tmp_path), "--lowering", "mlir-opt-16", "--allow-unknown",
               "--json"])
    captured = capsys.readouterr()
    assert rc == 3
    out = json.loads(captured.out)  # stdout stays one JSON object
    assert out["violations"] == [] and out["by_lowering"]["mlir-opt-16"]
    assert "nothing checked: mlir-opt-16 rejected the file" in captured.err


def test_no_lowering_has_the_pass_exits_3(tmp_path: Path, capsys) -> None:
    need_mlir_opt(16)
    need_mlir_opt(22)  # the pass exists somewhere: not a typo
    xml = tmp_path / "junit.xml"
    rc = main(["check", mlir(tmp_path), "--lowering", "mlir-opt-16", "--pipeline",
               f"func.func({NEWER_PASS}),gpu-to-llvm", "--junitxml", str(xml)])
    out = capsys.readouterr().out
    assert rc == 3
    assert out.strip().splitlines()[-1] == (
        f"1 lowering(s): nothing checked: mlir-opt-16 has no pass {NEWER_PASS}")
    found = cases(xml)
    assert found and not any(passed(c) for c in found.values())
    assert {c.find("skipped").get("message") for c in found.values()} == {  # type: ignore[union-attr]
        f"nothing checked: mlir-opt-16 has no pass {NEWER_PASS}"}


def test_one_lowering_that_checks_is_enough(tmp_path: Path) -> None:
    need_mlir_opt(16)
    need_mlir_opt(19)
    xml = tmp_path / "junit.xml"
    rc = main(["check", mlir(tmp_path), "--lowering", "mlir-opt-16", "--lowering",
               "mlir-opt-19", "--junitxml", str(xml)])
    assert rc == 0
    found = cases(xml)
    # 16's rejected cases are skipped with its reason; lowering-no-crash held
    # there (it did not crash), and 19's verdicts are real.
    for (spec, inv), case in found.items():
        skip = case.find("skipped")
        if spec == "mlir-opt-16" and inv != "lowering-no-crash":
            assert skip is not None
            assert skip.get("message", "").startswith("nothing checked: mlir-opt-16 rejected")
    assert passed(found[("mlir-opt-16", "lowering-no-crash")])
    assert passed(found[("mlir-opt-19", "sync-alloc-no-stream")])
    assert passed(found[("mlir-opt-19", "stream-no-leak")])


@pytest.mark.parametrize("lowering", ["mlir-opt-19", "xdsl:pr69969"])
def test_a_checked_file_still_exits_0(tmp_path: Path, capsys, lowering: str) -> None:
    if lowering.startswith("mlir-opt"):
        need_mlir_opt(19)
    rc = main(["check", mlir(tmp_path), "--lowering", lowering])
    out = capsys.readouterr().out
    assert rc == 0 and "nothing checked" not in out


def test_junit_case_with_only_rejected_or_not_applicable_is_skipped(tmp_path: Path) -> None:
    # The fuzz shape: counts only, no reasons; one case checked, one not.
    from gpu_alloc_verify.reports.junit import write_junit

    zero = {"holds": 0, "violated": 0, "unknown": 0, "rejected": 0, "not-applicable": 0}
    summary = {"lowerings": ["L"], "violations": [], "unknown": [],
               "by_lowering": {"L": {"stream-no-leak": {**zero, "holds": 3, "rejected": 2},
                                     "event-no-leak": {**zero, "rejected": 2,
                                                       "not-applicable": 3}}}}
    xml = tmp_path / "j.xml"
    write_junit(xml, summary, "fuzz")
    found = cases(xml)
    assert passed(found[("L", "stream-no-leak")])
    skip = found[("L", "event-no-leak")].find("skipped")
    assert skip is not None and skip.get("message") == (
        "nothing checked: every verdict rejected (2) or not-applicable (3)")
