"""Write a directory whole or not at all.

The report is written into a temporary directory next to its target and
renamed into place at the end: an interrupted run (Ctrl-C, a crash) keeps
the previous report; a rerun swaps the directories (old renamed away, new
renamed in, old deleted), so a reader never sees half a report.  Entries of
the old directory the writer does not own (the campaign's results.jsonl,
written there by `fuzz --report DIR`) are carried into the new one first,
as hard links where possible.  `link_tree` brings in, the same way, what
the writer's caller made beforehand in a staging directory (the lit tests).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path


def _link(entry: Path, to: Path) -> None:
    try:
        os.link(entry, to, follow_symlinks=False)
    except OSError:  # another filesystem, or links not allowed
        shutil.copy2(entry, to, follow_symlinks=False)


def _carry(old: Path, new: Path, owned: Callable[[str], bool]) -> None:
    for entry in old.iterdir():
        if owned(entry.name) or (new / entry.name).exists():
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.copytree(entry, new / entry.name, symlinks=True)
            continue
        _link(entry, new / entry.name)


def link_tree(src: str | Path, dst: str | Path) -> None:
    """Put every file under `src` at the same place under `dst`, as a hard
    link where possible (else a copy); folders are made as needed and a
    file already at a place is replaced, others under `dst` are kept."""
    src, dst = Path(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.rglob("*")):
        to = dst / entry.relative_to(src)
        if entry.is_dir() and not entry.is_symlink():
            to.mkdir(parents=True, exist_ok=True)
            continue
        if to.is_symlink() or to.is_file():
            to.unlink()
        _link(entry, to)


def _replace(tmp: Path, target: Path) -> None:
    if not target.exists():
        tmp.rename(target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    old.rmdir()  # only its unique name is wanted
    target.rename(old)
    try:
        tmp.rename(target)
    except BaseException:
        old.rename(target)  # put the previous one back
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def atomic_dir(target: str | Path, owned: Callable[[str], bool]) -> Iterator[Path]:
    """Yield a temporary directory to write `target`'s contents into; on
    success it replaces `target`, on any exception (KeyboardInterrupt too)
    it is deleted and `target` left as it was.  `owned(name)`: whether an
    entry of the old `target` is the writer's (else it is carried over)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)  # as mkdir would make it, not mkdtemp's 0700
    try:
        yield tmp
        if target.is_dir():
            _carry(target, tmp, owned)
        _replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
