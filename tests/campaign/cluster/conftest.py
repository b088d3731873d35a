"""Real parts for the cluster tests: a `redis-server` on a free port and a
Dask `LocalCluster` of two worker processes (skipped without them)."""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[3]
LOWERING = "xdsl:pr69969"  # in-process: no external tool, fast


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """redis://127.0.0.1:PORT/0 of a fresh redis-server (no persistence)."""
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server not installed (apt-get install redis-server)")
    redis = pytest.importorskip("redis")
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        for _ in range(200):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if proc.poll() is not None:
                    pytest.fail(f"redis-server exited with {proc.returncode}")
                time.sleep(0.025)
        else:
            pytest.fail("redis-server did not answer in 5s")
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


@dataclass
class DaskCluster:
    address: str
    client: Any

    def worker_pids(self) -> dict[str, int]:
        return dict(self.client.run(os.getpid))


def _warm() -> None:
    # Import the harness in the worker once, before any timed campaign.
    import gpu_alloc_verify.verify.campaign.fuzz  # noqa: F401
    import gpu_alloc_verify.verify.campaign.worker  # noqa: F401
    import gpu_alloc_verify.verify.lowerings.xdsl_lowering  # noqa: F401


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[DaskCluster]:
    """A LocalCluster of two single-threaded worker processes, for one test
    module: its threads must be gone before other tests fork workers."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    try:
        client.run(_warm)
        yield DaskCluster(cluster.scheduler_address, client)
    finally:
        client.close()
        cluster.close()
