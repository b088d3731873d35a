"""CI formats: --version, `python -m verify`, --junitxml, the --json schema
and `[tool.gpu-alloc-verify]` defaults, all on real runs of the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import pytest

from gpu_alloc_verify.reports.junit import build_junit
from gpu_alloc_verify.verify.cli import build_parser, check_violation_id, main
from gpu_alloc_verify.verify.config import load_config
from tests.conftest import SYNC_SHARED, need_mlir_opt

ROOT = Path(__file__).resolve().parents[2]
XSD = ROOT / "tests" / "fixtures" / "junit-10.xsd"
FUZZ = ["fuzz", "--lowering", "xdsl:pr69969", "--max-examples", "20", "--no-shrink", "-j", "1",
        "--seed", "0"]



def schema() -> dict[str, Any]:
    text = resources.files("gpu_alloc_verify.verify").joinpath(
        "schema/summary.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def validate_json(summary: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.Draft202012Validator(schema()).validate(summary)


def validate_xml(path: Path) -> ET.Element:
    """Against the JUnit XSD the Jenkins xUnit plugin uses (xmlschema, if
    installed), and structurally as pytest's JUnit XML is shaped."""
    try:
        import xmlschema
    except ImportError:
        pass
    else:
        xmlschema.XMLSchema(str(XSD)).validate(str(path))
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    suites = list(root)
    assert [s.tag for s in suites] == ["testsuite"]
    suite = suites[0]
    cases = suite.findall("testcase")
    assert int(suite.get("tests", "-1")) == len(cases)
    assert int(suite.get("failures", "-1")) == sum(
        1 for c in cases if c.find("failure") is not None)
    assert int(suite.get("skipped", "-1")) == sum(
        1 for c in cases if c.find("skipped") is not None)
    assert suite.get("errors") == "0"
    for c in cases:
        assert c.get("classname") and c.get("name")
        assert not (c.find("failure") is not None and c.find("skipped") is not None)
    return suite


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    rc = main([*argv, "--json"])
    return rc, json.loads(capsys.readouterr().out)


# -- --version and python -m verify ------------------------------------------

def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == (
        f"gpu-alloc-verify {metadata.version('gpu-alloc-verify')}")


@pytest.mark.slow
def test_python_dash_m_is_the_cli(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "--version"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("gpu-alloc-verify ")
    inv = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "invariants"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert inv.returncode == 0 and "stream-no-leak" in inv.stdout
    bad = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check",
                          str(tmp_path / "nope.mlir"),
                          "--lowering", "xdsl:pr69969"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "nope.mlir" in bad.stderr


# -- fuzz: --json schema, ids, --junitxml -------------------------------------

@pytest.fixture(scope="module")
def fuzz_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One small real campaign with --json, --junitxml and --results."""
    d = tmp_path_factory.mktemp("fuzz")
    xml, results = d / "junit.xml", d / "results.jsonl"
    out = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", *FUZZ, "--json",
                          "--junitxml", str(xml), "--results", str(results)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1, 3), out.stderr
    return {"rc": out.returncode, "summary": json.loads(out.stdout), "xml": xml,
            "results": results}


@pytest.mark.slow
def test_fuzz_json_matches_schema(fuzz_run: dict[str, Any]) -> None:
    summary = fuzz_run["summary"]
    validate_json(summary)
    assert summary["schema_version"] == 2 and summary["command"] == "fuzz"
    assert summary["seed"] == 0
    assert summary["violations"], "xdsl:pr69969 leaves ops unconverted within 20 programs"
    assert fuzz_run["rc"] == 1


def test_fuzz_violation_ids_are_the_results_file_ids(fuzz_run: dict[str, Any]) -> None:
    from gpu_alloc_verify.verify.model.results import read_records

    recorded = {(r["lowering"], r["invariant"]): r["id"]
                for r in read_records(fuzz_run["results"]) if r.get("kind") == "violation"}
    ids = {(v["lowering"], v["invariant"]): v["id"] for v in fuzz_run["summary"]["violations"]}
    assert ids == recorded
    assert len(set(ids.values())) == len(ids)


def test_fuzz_junitxml(fuzz_run: dict[str, Any]) -> None:
    summary = fuzz_run["summary"]
    suite = validate_xml(fuzz_run["xml"])
    cases = {(c.get("classname"), c.get("name")): c for c in suite.findall("testcase")}
    expected = {(spec, inv) for spec, per in summary["by_lowering"].items() for inv in per}
    assert set(cases) == expected
    for v in summary["violations"]:
        failures = cases[(v["lowering"], v["invariant"])].findall("failure")
        assert len(failures) == 1
        assert failures[0].get("message", "").startswith(v["id"] + ": ")
        assert f"ERROR: {v['invariant']} violated on {v['lowering']}" in (failures[0].text or "")
        assert "Source:" in (failures[0].text or "")
    violated = {(v["lowering"], v["invariant"]) for v in summary["violations"]}
    unknown = {(u["lowering"], u["invariant"]) for u in summary["unknown"]} - violated
    # Nothing checked is never green: only rejected / not-applicable is skipped too.
    unchecked = {(spec, inv) for spec, per in summary["by_lowering"].items()
                 for inv, c in per.items()
                 if not (c["holds"] or c["violated"] or c["unknown"])}
    skipped = {k for k, c in cases.items() if c.find("skipped") is not None}
    assert skipped == unknown | unchecked
    for key in skipped:
        kind = "unknown: " if key in unknown else "nothing checked: "
        assert cases[key].find("skipped").get("message", "").startswith(kind)  # type: ignore[union-attr]
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["seed"] == "0" and props["campaign"] == summary["campaign"]


# -- check: --json schema, stable ids, --junitxml -----------------------------

def test_check_json_matches_schema_without_violation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    xml = tmp_path / "out" / "check.xml"
    rc, out = run(capsys, "check", str(f), "--lowering", "xdsl:pr69969",
                  "--junitxml", str(xml))
    validate_json(out)
    assert out["command"] == "check" and out["seed"] is None and out["violations"] == []
    assert rc in (0, 3)
    suite = validate_xml(xml)
    assert suite.get("failures") == "0"
    assert int(suite.get("tests", "0")) == len(out["by_lowering"]["xdsl:pr69969"])


@pytest.mark.slow
def test_check_violations_have_stable_ids_and_fail_in_junit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], mutant: Any) -> None:
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    spec = f"mlir-opt:{mutant('sync-alloc-stream')}"
    xml = tmp_path / "check.xml"
    rc, out = run(capsys, "check", str(f), "--lowering", spec, "--lowering", "mlir-opt-19",
                  "--junitxml", str(xml))
    assert rc == 1
    validate_json(out)
    ids = [v["id"] for v in out["violations"]]
    assert len(set(ids)) == len(ids) and ids
    for v in out["violations"]:
        assert v["id"].startswith(check_violation_id(str(f), spec, v["invariant"]))
    _, again = run(capsys, "check", str(f), "--lowering", spec)
    assert [v["id"] for v in again["violations"]] == ids
    suite = validate_xml(xml)
    failing = {(c.get("classname"), c.get("name")) for c in suite.findall("testcase")
               if c.find("failure") is not None}
    assert failing == {(spec, v["invariant"]) for v in out["violations"]}
    assert not any(c.find("failure") is not None for c in suite.findall("testcase")
                   if c.get("classname") == "mlir-opt-19")


def test_check_json_real_mlir_opt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_mlir_opt(16)
    need_mlir_opt(22)
    f = tmp_path / "sync_shared.mlir"
    f.write_text(SYNC_SHARED)
    rc, out = run(capsys, "check", str(f), "--lowering", "mlir-opt-16",
                  "--lowering", "mlir-opt-22")
    assert rc == 0
    validate_json(out)


# -- junit writer on a hand-made summary ---------------------------------------

def test_junit_several_violations_and_unknown_in_one_case(tmp_path: Path) -> None:
    counts = {"holds": 0, "violated": 1, "unknown": 1, "rejected": 0, "not-applicable": 0}
    rec = {"invariant": "stream-no-leak", "lowering": "L", "program": "func.func @f() {}\n",
           "lowered": "", "detail": "leak \x01 <&>", "counterexample": {}}
    summary = {"lowerings": ["L"],
               "by_lowering": {"L": {"stream-no-leak": counts, "event-no-leak": counts}},
               "violations": [{**rec, "id": "a"}, {**rec, "id": "b"}],
               "unknown": [{"lowering": "L", "invariant": "stream-no-leak", "reason": "r1"},
                           {"lowering": "L", "invariant": "event-no-leak", "reason": "r2"}]}
    path = tmp_path / "j.xml"
    build_junit(summary, "s").write(path, encoding="utf-8", xml_declaration=True)
    suite = validate_xml(path)
    leak, event = suite.findall("testcase")
    assert [f.get("message") for f in leak.findall("failure")] == [
        "a: leak \\x01 <&>", "b: leak \\x01 <&>"]
    assert "r1" in (leak.findtext("system-out") or "")
    assert event.find("skipped").get("message") == "unknown: r2"  # type: ignore[union-attr]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("2", "1", "1")


# -- [tool.gpu-alloc-verify] in pyproject.toml -----------------------------------

CONFIG = """
[project]
name = "user-project"

[tool.gpu-alloc-verify]
lowerings = ["xdsl:pr69969"]
pipeline = "gpu-to-llvm"
runtime = "hip"
max-examples = 4
"""


def test_config_defaults_and_flag_overrides(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(CONFIG)
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)  # found from the current directory upwards
    cfg = load_config()
    assert cfg.path == tmp_path / "pyproject.toml"
    args = build_parser(cfg).parse_args(["fuzz"])
    assert (args.runtime, args.max_examples, args.pipeline) == ("hip", 4, "gpu-to-llvm")
    args = build_parser(cfg).parse_args(["fuzz", "--runtime", "sycl", "--max-examples", "9"])
    assert (args.runtime, args.max_examples) == ("sycl", 9)

    rc, out = run(capsys, "fuzz", "--no-shrink", "-j", "1")
    assert out["lowerings"] == ["xdsl:pr69969"] and out["examples"] <= 4
    assert rc in (0, 1, 3)
    rc, out = run(capsys, "fuzz", "--no-shrink", "-j", "1", "--max-examples", "2")
    assert out["examples"] <= 2
    f = tmp_path / "p.mlir"
    f.write_text(SYNC_SHARED)
    rc, out = run(capsys, "check", str(f), "--lowering", "xdsl:pr69969")
    assert out["lowerings"] == ["xdsl:pr69969"]


def test_config_override_lowering_in_subprocess(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(CONFIG.replace("max-examples = 4",
                                                            "max-examples = 3"))
    f = tmp_path / "p.mlir"
    f.write_text(SYNC_SHARED)
    out = subprocess.run([sys.executable, "-m", "gpu_alloc_verify", "check", "p.mlir", "--json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode in (0, 3), out.stderr
    assert json.loads(out.stdout)["lowerings"] == ["xdsl:pr69969"]
    assert f"defaults: {tmp_path / 'pyproject.toml'}" in out.stderr


@pytest.mark.parametrize("table, message", [
    ('colour = "red"', "unknown key 'colour'"),
    ('runtime = "opencl"', "runtime must be one of cuda, hip, sycl"),
    ("max-examples = 0", "max-examples must be a positive integer"),
    ('lowerings = "mlir-opt-19"', "lowerings must be a non-empty list"),
])
def test_bad_config_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        table: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.gpu-alloc-verify]\n{table}\n")
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "p.mlir"
    f.write_text(SYNC_SHARED)
    assert main(["check", str(f), "--lowering", "xdsl:pr69969"]) == 2
    err = capsys.readouterr().err
    assert message in err and str(tmp_path / "pyproject.toml") in err
    assert main(["invariants"]) == 0  # commands without these defaults still run
