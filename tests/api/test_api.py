"""The public API (`verify.api`), `Program`'s repr, the pytest example of
docs/pytest-plugin.md and the plugin's hygiene (it loads no profile by itself)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_alloc_verify.verify import api
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.invariants.pipeline import active_invariants
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.pytest_plugin import PREFIX, project_profile
from gpu_alloc_verify.verify.source.to_program import program_from_text
from tests.conftest import need_mlir_opt

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "test_example.py"


def _example_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("readme_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LEAKY: str = _example_module().LEAKY  # the README example's program


def test_the_plugin_page_shows_the_example_file_verbatim() -> None:
    page = (ROOT / "docs" / "pytest-plugin.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", page, re.S | re.M)
    assert blocks == [EXAMPLE.read_text(encoding="utf-8")]


def test_check_takes_text_or_program_and_gives_verdicts() -> None:
    low = api.lowering("xdsl:pr69969")
    assert api.lowering("xdsl:pr69969") is low  # resolved once per (spec, pipeline)
    wanted = ["stream-no-leak", "lowering-complete"]
    from_text = api.check(LEAKY, low, wanted)
    assert from_text == {"stream-no-leak": "violated", "lowering-complete": "holds"}
    assert api.check(program_from_text(LEAKY), "xdsl:pr69969", wanted) == from_text
    every = api.check(LEAKY, low)
    assert list(every) == active_invariants()


def test_assert_holds_raises_the_rendered_counterexample() -> None:
    api.assert_holds(LEAKY, "xdsl:pr69969", ["stream-no-use-after-destroy"])  # holds
    program = program_from_text(LEAKY)
    # a Program, and the text the generator printed for it (a failing example)
    for subject in (program, repr(program)):
        with pytest.raises(AssertionError) as failure:
            api.assert_holds(subject, "xdsl:pr69969", ["stream-no-leak", "event-no-leak"])
        message = str(failure.value)
        assert message.startswith("ERROR: stream-no-leak violated on xdsl:pr69969\n")
        assert "event-no-leak" not in message
        assert '%t2 = gpu.wait async [%t1] loc("op2")' in message  # its MLIR
        assert re.search(r'^  >> .*mgpuStreamCreate.*<- op1 at program:3:5$', message, re.M)
    with pytest.raises(AssertionError, match=r"<- op1 at gen\.mlir:3:5\n"):
        api.assert_holds(program.to_mlir(), "xdsl:pr69969", ["stream-no-leak"],
                         filename="gen.mlir")


def test_text_is_answered_at_its_own_file_line_col() -> None:
    with pytest.raises(AssertionError) as failure:
        api.assert_holds(LEAKY, "xdsl:pr69969", ["stream-no-leak"], filename="leaky.mlir")
    message = str(failure.value)
    # verdict, invariant, reason, and the counterexample in the text as written
    assert message.startswith("ERROR: stream-no-leak violated on xdsl:pr69969\n")
    assert "stream created by leaky.mlir:3:9 (mgpuStreamCreate) is destroyed 0 time(s)" \
        in message
    assert "Source: leaky.mlir\n" in message and "  4 |   %t1 = gpu.wait async [%t0]\n" in message
    assert re.search(r"^  >> .*mgpuStreamCreate.*<- leaky\.mlir:3:9$", message, re.M)
    assert "program:" not in message and 'loc("op' not in message  # nothing renamed
    # without a filename, the text is `<input>`
    j = api.judgement(LEAKY, "xdsl:pr69969", ["stream-no-leak"])
    assert [v.detail.split(" (")[0] for v in j.violations()] == [
        "stream created by <input>:3:9"]


def _header(path: Path, key: str) -> list[str]:
    return [ln.split(":", 1)[1].split() for ln in path.read_text().splitlines()
            if ln.startswith(f"// {key}")][0]


def test_check_reads_a_kernel_file_as_the_cli_does(capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    need_mlir_opt(19)
    # kernels in a gpu.module @stencil, no catalogue kernel: the model holds
    # none of it, `check` reads it as written
    path = ROOT / "tests" / "corpus" / "fanout_fanin_events.mlir"
    name = str(path.relative_to(ROOT))
    pipeline = " ".join(_header(path, "PIPELINE"))
    low = api.lowering("mlir-opt-19", pipeline)
    expected = dict(kv.split("=") for kv in _header(path, "EXPECT mlir-opt-19"))
    j = api.judgement(path.read_text(), low, filename=name)
    assert {i: v for i, v in j.verdicts().items() if i in expected} == expected
    assert api.check(path.read_text(), low, ["stream-no-leak"], filename=name) == {
        "stream-no-leak": "violated"}
    # the corpus' point (42:11, the gpu.wait async of the fan-out), in this file
    points = _header(path, "POINTS mlir-opt-19 stream-no-leak")
    assert points == ["42:11"]
    (leak,) = [v for v in j.violations() if v.invariant == "stream-no-leak"]
    assert f"stream created by {name}:42:11 " in leak.detail
    assert re.findall(r"\S+:\d+:\d+", leak.detail) == [f"{name}:42:11"]
    # and the very answer of `gpu-alloc-verify check FILE`
    monkeypatch.chdir(ROOT)
    assert main(["check", name, "--lowering", "mlir-opt-19", "--pipeline", pipeline,
                 "--json"]) == 1
    cli = json.loads(capsys.readouterr().out)
    assert sorted((v["invariant"], v["detail"]) for v in cli["violations"]) == sorted(
        (v.invariant, v.detail) for v in j.violations())


def test_text_no_lowering_can_read_is_an_input_error() -> None:
    need_mlir_opt(19)
    with pytest.raises(SourceParseError, match=r"^bad\.mlir:2:\d+: not valid MLIR"):
        api.check("func.func @f() {\n  %x = gpu.wait async [%nope]\n  return\n}\n",
                  "mlir-opt-19", filename="bad.mlir")


def test_unknown_fails_assert_holds_unless_allowed() -> None:
    # the async gpu.alloc is left unconverted: where its stream goes is not followed
    text = """
func.func @main() {
  %m, %t1 = gpu.alloc async () : memref<16x4xf16>
  %t2 = gpu.wait async [%t1]
  return
}
"""
    assert api.check(text, "xdsl:pr69969", ["runtime-contract"]) == {
        "runtime-contract": "unknown"}
    with pytest.raises(AssertionError, match=r"^UNKNOWN on xdsl:pr69969") as failure:
        api.assert_holds(text, "xdsl:pr69969", ["runtime-contract"])
    assert "\n  runtime-contract: " in str(failure.value)
    assert "gpu.alloc async () : memref<16x4xf16>" in str(failure.value)
    api.assert_holds(text, "xdsl:pr69969", ["runtime-contract"], allow_unknown=True)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown invariant.*'no-such'.*valid: "):
        api.check(LEAKY, "xdsl:pr69969", ["stream-no-leak", "no-such"])
    with pytest.raises(TypeError, match="Program or MLIR text"):
        api.check(42, "xdsl:pr69969")  # type: ignore[arg-type]


def test_program_repr_is_its_mlir() -> None:
    program = program_from_text(LEAKY)
    assert repr(program) == program.to_mlir()
    tagged = Program(program.functions, frozenset({"unawaited-token", "a"}))
    assert repr(tagged) == "// tags: a, unawaited-token\n" + program.to_mlir()
    assert program_from_text(repr(tagged)) == program  # still valid MLIR
    from hypothesis.vendor.pretty import pretty

    assert pretty(program) == "\n" + program.to_mlir()


def test_the_package_reexports_the_api_lazily() -> None:
    from gpu_alloc_verify import verify

    assert verify.check is api.check and verify.programs is api.programs
    out = subprocess.run(
        [sys.executable, "-c", "import sys, gpu_alloc_verify.verify; "
         "print('gpu_alloc_verify.verify.api' in sys.modules, "
         "'hypothesis' in sys.modules)"], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("ci", ["", "true"])
def test_importing_the_plugin_changes_no_setting(ci: str) -> None:
    show = ("from hypothesis import settings\n"
            "print(settings.get_current_profile_name(), repr(settings.default))\n")
    env = {"CI": ci, "PATH": "/usr/bin:/bin"}

    def run(code: str) -> list[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env=env).stdout.splitlines()

    plain = run(show)
    # importing registers nothing (it imports no Hypothesis); registering
    # loads none of ours
    ours = run("from gpu_alloc_verify.verify.pytest_plugin import register_profiles\n"
               "register_profiles()\n" + show + "print(sorted(n for n in "
               "settings._profiles if n.startswith('gpu-alloc')))\n")
    assert ours == [*plain,
        "['gpu-alloc-verify-ci', 'gpu-alloc-verify-dev', 'gpu-alloc-verify-nightly']"]


@pytest.mark.parametrize(("env", "profile"), [
    ({}, "dev"), ({"CI": "true"}, "ci"), ({"CI": "0"}, "dev"),
    ({"CI": "true", "HYPOTHESIS_PROFILE": "nightly"}, "nightly"),
    ({"HYPOTHESIS_PROFILE": "gpu-alloc-verify-ci"}, "ci"),
    ({"CI": "1", "HYPOTHESIS_PROFILE": "someone-elses"}, "ci"),
])
def test_the_projects_own_profile(env: dict[str, str], profile: str) -> None:
    assert project_profile(env) == PREFIX + profile


def test_this_suite_runs_under_the_projects_profile() -> None:
    from hypothesis import settings

    assert settings.get_current_profile_name() == project_profile() or (
        "--hypothesis-profile" in " ".join(sys.argv))
    assert list(settings.default.suppress_health_check) == []
