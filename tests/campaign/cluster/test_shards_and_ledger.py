"""The parts of a cluster campaign that need no cluster: the shard plan,
the driver's ledger (dedupe, ids, resume), the example database choice,
the command line, and that the embedded default loads neither Dask nor Redis."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis.database import DirectoryBasedExampleDatabase, InMemoryExampleDatabase

from gpu_alloc_verify.generators.programs import GenConfig
from gpu_alloc_verify.verify.campaign.example_db import NeverDelete, open_database
from gpu_alloc_verify.verify.campaign.ledger import BatchWriter, Ledger
from gpu_alloc_verify.verify.campaign.shards import (
    Shard,
    default_shards,
    gen_from_dict,
    gen_to_dict,
    parse_gen_config,
    plan,
    relabel,
    shard_seed,
    split,
    streams,
)
from gpu_alloc_verify.verify.cli import main
from gpu_alloc_verify.verify.model.errors import UsageError
from gpu_alloc_verify.verify.model.results import read_records
from tests.campaign.cluster.conftest import LOWERING, ROOT


def test_plan_is_the_product_of_seeds_lowerings_pipelines_and_configs() -> None:
    configs = [GenConfig(), GenConfig(max_ops=4).linear()]
    shards = plan(7, ["mlir-opt-19", "xdsl:pr69969"], ["gpu-to-llvm", "p2"], configs,
                  seeds=3, max_examples=100, pipeline_free={"xdsl:pr69969"})
    # mlir-opt-19: 2 pipelines x 2 configs x 3 seeds; xdsl: 1 x 2 x 3
    assert len(shards) == 12 + 6
    assert [s.index for s in shards] == list(range(18))
    assert {s.label for s in shards} == {"mlir-opt-19 | gpu-to-llvm", "mlir-opt-19 | p2",
                                         "xdsl:pr69969"}
    # each (lowering, pipeline, config) gets max_examples, split over its seeds
    per = {}
    for s in shards:
        key = (s.label, json.dumps(s.config, sort_keys=True))
        per[key] = per.get(key, 0) + s.max_examples
    assert set(per.values()) == {100}
    # seed index 0 is the campaign's seed; the others differ and repeat across lowerings
    assert [s.seed for s in shards[:3]] == [7, shard_seed(7, 1), shard_seed(7, 2)]
    assert len({shard_seed(7, k) for k in range(50)}) == 50
    assert shards[0].gen() == configs[0] and shards[3].gen() == configs[1]
    assert Shard.from_json(json.loads(json.dumps(shards[5].to_json()))) == shards[5]


def test_split_and_default_shards() -> None:
    assert split(10, 3) == [4, 3, 3]
    assert split(2, 5) == [1, 1]
    # A function of --max-examples alone: no worker count to make programs differ.
    assert default_shards(1000) == 10
    assert default_shards(300) == 3
    assert default_shards(30) == 1  # never under 20 examples a shard
    assert default_shards(10**6) == 64
    assert streams(5, 3, 10) == [(5, 4), (shard_seed(5, 1), 3), (shard_seed(5, 2), 3)]


def test_gen_configs_round_trip_and_parse() -> None:
    gen = GenConfig(max_ops=5).supported_by(19)
    assert gen_from_dict(json.loads(json.dumps(gen_to_dict(gen)))) == gen
    base = GenConfig(max_ops=6)
    assert parse_gen_config("max_ops=12,linear_tokens", base) == GenConfig(max_ops=12).linear()
    assert parse_gen_config("supported=16", base) == GenConfig(max_ops=6).supported_by(16)
    with pytest.raises(UsageError, match="max_ops=N"):
        parse_gen_config("max_ops=lots", base)


def test_relabel_round_trip() -> None:
    rec = {"program": "p", "results": {"mlir-opt-19": {"status": "ok"}},
           "found": [["mlir-opt-19", "stream-no-leak"]]}
    there = relabel(rec, "mlir-opt-19", "mlir-opt-19 | p2")
    assert list(there["results"]) == ["mlir-opt-19 | p2"]
    assert there["found"] == [["mlir-opt-19 | p2", "stream-no-leak"]]
    assert relabel(there, "mlir-opt-19 | p2", "mlir-opt-19") == rec


def _rec(shard: int, text: str, violated: bool = False, draw: int = 0) -> dict:
    verdict = "violated" if violated else "holds"
    return {"shard": shard, "program": text, "draw": draw, "features": ["f"],
            "results": {LOWERING: {"status": "ok", "verdicts": {"stream-no-leak": verdict}}},
            "found": [[LOWERING, "stream-no-leak"]] if violated else []}


def test_ledger_writes_each_program_of_a_label_once(tmp_path: Path) -> None:
    shards = plan(0, [LOWERING], ["gpu-to-llvm"], [GenConfig()], 2, 10)
    path = tmp_path / "r.jsonl"
    with BatchWriter(path) as writer:
        ledger = Ledger(writer, "c1", shards)
        assert ledger.program(_rec(0, "a"))
        assert ledger.program(_rec(0, "b", violated=True, draw=2))  # draw 1: a duplicate
        assert not ledger.program(_rec(0, "a"))  # a retried shard sends it again
        assert not ledger.program(_rec(1, "a"))  # shard 0 has it: a local run judges it once
        assert ledger.program(_rec(1, "c", draw=1))
        assert not ledger.program(_rec(9, "z"))  # no such shard
        ledger.sync()
        ledger.shard_done(0, {"examples": 2, "draws": 5, "stopped_by": "max-examples",
                              "violations": [
                                  {"lowering": LOWERING, "invariant": "stream-no-leak",
                                   "ops": 3, "shrunk": True, "program": "b"}],
                              "db_saves": [["6b", "76"]]})
    recs = read_records(path)
    programs = [r for r in recs if r["kind"] == "program"]
    assert [r["id"] for r in programs] == ["c1-s0-p0", "c1-s0-p1", "c1-s1-p0"]
    assert [r["draw"] for r in programs] == [0, 2, 1]
    assert (ledger.duplicates, ledger.repeats, ledger.tally.examples) == (1, 1, 3)
    assert ledger.first == {(LOWERING, "stream-no-leak"): 2}
    assert ledger.progress(1) == {"shard": 1, "programs": 1, "draws": 2}
    # a resumed driver takes it all over; shard 1 (unfinished) gets its records
    # back, and skips what shard 0 recorded
    again = Ledger(None, "c1", shards)
    recorded = again.load(recs)
    assert set(again.done) == {0} and list(recorded) == [1]
    assert [(r["program"], r["draw"]) for r in recorded[1]] == [("c", 1)]
    assert again.skip(1) == ["a", "b"]
    assert again.progress(1) == {"shard": 1, "programs": 1, "draws": 2}
    assert again.tally.by_invariant == ledger.tally.by_invariant
    assert not again.program(_rec(1, "c")) and again.program(_rec(1, "d"))
    assert again.count == {0: 2, 1: 2}
    assert again.draws() == 5 and again.db_saves() == [(b"k", b"v")]


def test_best_violation_per_key_over_shards() -> None:
    shards = plan(0, [LOWERING], ["gpu-to-llvm"], [GenConfig()], 3, 30)
    ledger = Ledger(None, "c1", shards)
    v = {"lowering": LOWERING, "invariant": "stream-no-leak"}
    ledger.shard_done(0, {"violations": [{**v, "ops": 4, "shrunk": True, "program": "four"}]})
    ledger.shard_done(1, {"violations": [{**v, "ops": 2, "shrunk": False, "program": "raw"}]})
    ledger.shard_done(2, {"violations": [{**v, "ops": 3, "shrunk": True, "program": "three"}]})
    ((shard, best),) = ledger.best_violations()
    assert (shard.index, best["program"]) == (2, "three")


def test_example_database_kinds(tmp_path: Path) -> None:
    assert open_database(None) is None
    assert isinstance(open_database(str(tmp_path / "db")), DirectoryBasedExampleDatabase)
    inner = InMemoryExampleDatabase()
    db = NeverDelete(inner)
    db.save(b"k", b"v")
    db.delete(b"k", b"v")  # a concurrent shard's example stays
    db.move(b"k", b"k.secondary", b"v")  # a shrink's downgrade still moves
    assert list(db.fetch(b"k")) == [] and list(db.fetch(b"k.secondary")) == [b"v"]


def test_redis_database_is_shared_and_never_deletes(redis_url: str) -> None:
    db = open_database(redis_url, check=True)
    assert isinstance(db, NeverDelete)
    db.save(b"key", b"value")
    db.delete(b"key", b"value")
    again = open_database(redis_url)
    assert again is not None and list(again.fetch(b"key")) == [b"value"]


def test_unreachable_redis_is_an_environment_error(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("redis")
    from tests.campaign.cluster.conftest import free_port

    rc = main(["fuzz", "--lowering", LOWERING, "--max-examples", "3", "-j", "1",
               "--db", f"redis://127.0.0.1:{free_port()}/0"])
    assert rc == 2
    assert "cannot reach the Redis server" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--shards", "0"], "--shards must be at least 1"),
    (["--shard-config", "max_ops=3"], "only apply with --cluster"),
    (["--cluster", "local:zero"], "use local:N"),
])
def test_cluster_usage_errors(argv: list[str], message: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["fuzz", "--lowering", LOWERING, "--max-examples", "3", "-j", "1", *argv])
    assert rc == 2
    assert message in capsys.readouterr().err


def test_embedded_default_loads_neither_dask_nor_redis(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from gpu_alloc_verify.verify.cli import main\n"
        f"rc = main(['fuzz', '--lowering', '{LOWERING}', '--max-examples', '5', '-j', '1',"
        f" '--no-shrink', '--db', {str(tmp_path / 'db')!r}, '--json'])\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'dask', 'distributed',"
        " 'redis'})\n"
        "print('LOADED', loaded, rc, file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert "LOADED [] " in out.stderr, out.stderr[-2000:]
