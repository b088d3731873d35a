"""Opening the Hypothesis example database a campaign names with `--db`.

`--db DIR` is a directory database (the default kind: one machine, no
server).  `--db redis://HOST:PORT/N` is Hypothesis's `RedisExampleDatabase`
on Redis database N, so every worker of a cluster campaign, and tomorrow's
campaigns, read and write one set of counterexamples.  Redis is imported only
for a `redis://` (or `rediss://`) address: the embedded default never loads it.

A database that concurrent searches share (Redis always; any database in a
cluster shard, `shared_databases()`) never deletes: Hypothesis deletes a
stored example that no longer fails *its* property, and a shard that did
not look for another shard's fresh counterexample would delete it.  Moves
stay (a shrink downgrading the example it improved on).  Entries of a Redis
database expire after EXPIRE_AFTER without a campaign reading them; a fixed
bug's counterexample stays until then (FLUSHDB, or deleting the
`gpu-alloc-verify:*` keys, forgets them all).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from gpu_alloc_verify.verify.model.errors import EnvironmentProblem, UsageError

REDIS_SCHEMES = ("redis://", "rediss://")
# Keys of this harness in a Redis shared with other Hypothesis users.
KEY_PREFIX = b"gpu-alloc-verify:"
# A counterexample not replayed for this long expires (a weekly campaign keeps them).
EXPIRE_AFTER = timedelta(days=30)

_shared = 0  # > 0 while a cluster shard runs: every database it opens is shared


@contextmanager
def shared_databases() -> Iterator[None]:
    """Within this block every database opened never deletes (a cluster shard)."""
    global _shared
    _shared += 1
    try:
        yield
    finally:
        _shared -= 1


class NeverDelete(ExampleDatabase):
    """Saves, fetches and moves through; ignores deletes."""

    def __init__(self, db: ExampleDatabase) -> None:
        super().__init__()
        self.db = db

    def save(self, key: bytes, value: bytes) -> None:
        self.db.save(key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.db.fetch(key)

    def delete(self, key: bytes, value: bytes) -> None:
        pass

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        self.db.move(src, dest, value)

    def __repr__(self) -> str:
        return f"NeverDelete({self.db!r})"


def is_redis(db: str | None) -> bool:
    return db is not None and db.startswith(REDIS_SCHEMES)


def open_database(db: str | None, check: bool = False) -> ExampleDatabase | None:
    """The database `db` names (None: none).  `check`: for Redis, fail now,
    with what to do, when the server cannot be reached."""
    if not db:
        return None
    if is_redis(db):
        return NeverDelete(_redis(db, check))
    directory = DirectoryBasedExampleDatabase(str(Path(db)))
    return NeverDelete(directory) if _shared else directory


def _redis(url: str, check: bool) -> ExampleDatabase:
    try:
        from hypothesis.extra.redis import RedisExampleDatabase
        from redis import Redis
        from redis.exceptions import RedisError
    except ImportError as e:
        raise EnvironmentProblem(
            f"--db {url} needs the redis client: pip install 'gpu-alloc-verify[cluster]' "
            f"({e})") from e
    try:
        client = Redis.from_url(url, socket_connect_timeout=10)
    except ValueError as e:
        raise UsageError(f"--db {url}: not a Redis address ({e}); use "
                         "redis://HOST:PORT/N") from e
    if check:
        try:
            client.ping()
        except RedisError as e:
            raise EnvironmentProblem(
                f"--db {url}: cannot reach the Redis server ({e}); start one "
                "(redis-server --port PORT) or give a directory instead") from e
    return RedisExampleDatabase(client, expire_after=EXPIRE_AFTER, key_prefix=KEY_PREFIX)
