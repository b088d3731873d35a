"""The bench's end-to-end run gives each worker one share of every size."""

from __future__ import annotations

from gpu_alloc_verify.verify.campaign.bench import SIZES, e2e_shares


def test_one_share_per_worker_of_every_size() -> None:
    per_size = 40
    items = [(size, i) for size in SIZES for i in range(per_size)]
    for jobs in (1, 2, 3, 4):
        parts = e2e_shares(len(items), jobs)
        assert len(parts) == jobs
        assert sorted(i for p in parts for i in p) == list(range(len(items)))
        for p in parts:
            assert {items[i][0] for i in p} == set(SIZES)
            assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_fewer_programs_than_workers() -> None:
    assert e2e_shares(0, 2) == []
    assert e2e_shares(1, 4) == [[0]]
