"""`CheckOptions` (issue #30): the invariants, runtime, solver timeout and
truth policy of a judgement as one value, with the defaults the separate
parameters had."""

from __future__ import annotations

from argparse import Namespace

import pytest

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.campaign.check_file import CHECK_OPTIONS
from gpu_alloc_verify.verify.campaign.fuzz import FuzzOptions
from gpu_alloc_verify.verify.campaign.selfcheck import SELFCHECK_OPTIONS, Options
from gpu_alloc_verify.verify.cli import apply_config, build_parser
from gpu_alloc_verify.verify.cli.fuzz import new_options
from gpu_alloc_verify.verify.config import Config
from gpu_alloc_verify.verify.invariants.ground_truth import EXECUTION_DECIDED
from gpu_alloc_verify.verify.invariants.options import (
    CAMPAIGN_TRUTH,
    DEFAULT_TRUTH,
    RUNTIMES,
    CheckOptions,
    campaign_truth,
)
from gpu_alloc_verify.verify.invariants.pipeline import active_invariants, judge
from gpu_alloc_verify.verify.invariants.solver import DEFAULT_TIMEOUT_MS
from gpu_alloc_verify.verify.invariants.witness import DEFAULT_CROSSCHECK_SHARE, TruthPolicy
from gpu_alloc_verify.verify.lowerings.base import LoweringOutcome
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.verdicts import InvariantId
from gpu_alloc_verify.verify.source.to_program import program_from_text
from tests.builders import DECLS, generic
from tests.conftest import collect_programs
from tests.invariants.test_witness import LEAKY, SOURCE


def test_defaults_are_those_of_the_parameters_before() -> None:
    opts = CheckOptions()
    assert opts.invariants == tuple(active_invariants())
    assert opts.invariants[0] == InvariantId.LOWERING_NO_CRASH
    assert opts.runtime == "cuda"
    assert opts.timeout_ms == DEFAULT_TIMEOUT_MS == 2000
    assert opts.truth is DEFAULT_TRUTH and opts.truth == TruthPolicy()
    assert RUNTIMES == ("cuda", "hip", "sycl")
    # each caller's own default, as it judged before
    assert CHECK_OPTIONS == CheckOptions(truth=TruthPolicy(crosscheck=True, native=True))
    assert CAMPAIGN_TRUTH == TruthPolicy(crosscheck=True, share=DEFAULT_CROSSCHECK_SHARE)
    assert campaign_truth(0) == TruthPolicy(crosscheck=False, share=0)
    assert FuzzOptions([]).check == CheckOptions(truth=CAMPAIGN_TRUTH)
    assert Options(["mlir-opt-19"]).check == SELFCHECK_OPTIONS == CheckOptions(
        (InvariantId.LOWERING_NO_CRASH, *EXECUTION_DECIDED), truth=None)


def test_invariants_given_as_text_are_ids_in_a_tuple() -> None:
    opts = CheckOptions(["stream-no-leak", "async-order"])  # type: ignore[arg-type]
    assert opts.invariants == (InvariantId.STREAM_NO_LEAK, InvariantId.ASYNC_ORDER)
    assert CheckOptions("stream-no-leak").invariants == (  # type: ignore[arg-type]
        InvariantId.STREAM_NO_LEAK,)
    with pytest.raises(ValueError):
        CheckOptions(("no-such-invariant",))  # type: ignore[arg-type]


def test_options_are_frozen_hashable_and_replaced() -> None:
    opts = CheckOptions()
    with pytest.raises(AttributeError):
        opts.runtime = "hip"  # type: ignore[misc]
    hip = opts.replace(runtime="hip", timeout_ms=50)
    assert (hip.runtime, hip.timeout_ms, hip.invariants) == ("hip", 50, opts.invariants)
    assert opts.runtime == "cuda"
    assert hash(hip) == hash(CheckOptions(runtime="hip", timeout_ms=50))
    assert len({opts, CheckOptions(), hip, opts.replace(truth=None)}) == 3


@pytest.mark.parametrize("runtime", ["opencl", "CUDA", "", "rocm"])
def test_an_unknown_runtime_is_a_clear_value_error(runtime: str) -> None:
    with pytest.raises(ValueError, match=r"unknown runtime .*one of cuda, hip, sycl"):
        CheckOptions(runtime=runtime)
    with pytest.raises(ValueError, match="unknown runtime"):
        CheckOptions().replace(runtime=runtime)


def test_judge_with_explicit_options_gives_the_default_verdicts_on_generated_programs(
        ) -> None:
    lowering = resolve("xdsl:pr69969")  # in process: an unconverted alloc, a violation or two
    progs = collect_programs(6, GenConfig(max_ops=6))
    explicit = CheckOptions(tuple(active_invariants()), "cuda", DEFAULT_TIMEOUT_MS,
                            TruthPolicy())
    for program, outcome in zip(progs, lowering.lower_batch(progs), strict=True):
        default = judge(program, outcome, lowering.spec, CheckOptions())
        assert judge(program, outcome, lowering.spec, explicit).verdicts() == default.verdicts()
        assert list(default.verdicts()) == active_invariants()


def test_judge_with_explicit_options_gives_the_default_verdicts() -> None:
    program = program_from_text(SOURCE)
    outcome = LoweringOutcome("ok", lowered=generic("module {\n" + LEAKY + DECLS + "}\n"))
    default = judge(program, outcome, "hand-written", CheckOptions())
    explicit = judge(program, outcome, "hand-written", CheckOptions(
        tuple(active_invariants()), "cuda", DEFAULT_TIMEOUT_MS, TruthPolicy()))
    assert explicit.verdicts() == default.verdicts()
    assert default.verdicts()["stream-no-leak"] == "violated"
    assert list(default.verdicts()) == active_invariants()
    # a subset keeps its order and its verdicts
    some = (InvariantId.STREAM_NO_LEAK, InvariantId.LOWERING_NO_CRASH)
    subset = judge(program, outcome, "hand-written", CheckOptions(some))
    assert subset.verdicts() == {i: default.verdicts()[i] for i in some}
    assert list(subset.verdicts()) == list(some)


def _parsed(*argv: str) -> Namespace:
    args = build_parser().parse_args(argv)
    apply_config(args, Config())  # as `main` does: the runtime from the pipeline
    return args


def test_fuzz_flags_reach_the_check_options() -> None:
    opts = new_options(_parsed(
        "fuzz", "--lowering", "xdsl:split-api", "--seed", "0", "--invariant", "async-order",
        "--invariant", "stream-no-leak", "--runtime", "sycl", "--solver-timeout", "77",
        "--crosscheck-share", "0.5"), None)
    # catalogue order, as before
    assert opts.check == CheckOptions(("stream-no-leak", "async-order"),  # type: ignore[arg-type]
                                      "sycl", 77, TruthPolicy(crosscheck=True, share=0.5))
    plain = new_options(_parsed("fuzz", "--lowering", "xdsl:split-api", "--seed", "0"), None)
    assert plain.check == CheckOptions(truth=CAMPAIGN_TRUTH)
    off = new_options(_parsed("fuzz", "--lowering", "xdsl:split-api", "--seed", "0",
                               "--crosscheck-share", "0"), None)
    assert off.check.truth == TruthPolicy(crosscheck=False, share=0.0)
