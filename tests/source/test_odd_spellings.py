"""Every spelling `mlir-opt` accepts is read and checked (issue 46): a file
name holding a newline, a location string with an escaped newline, a
non-ASCII quoted symbol name; and a FIFO nobody writes to is refused in
bounded time, naming the path."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from gpu_alloc_verify.verify.campaign.check_file import CHECK_OPTIONS, check_file
from gpu_alloc_verify.verify.ir.locations import parse, quote_string
from gpu_alloc_verify.verify.ir.strings import utf8_unescaped
from gpu_alloc_verify.verify.lowerings.registry import resolve
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.source import user_file
from tests.conftest import need_mlir_opt

PAIR = """func.func @FN() {
  %t0 = gpu.wait async LOC
  %b, %t1 = gpu.alloc async [%t0] () : memref<64xf32>
  %t2 = gpu.dealloc async [%t1] %b : memref<64xf32>
  gpu.wait [%t2] LOC
  return
}
"""

ONE = ("stream-no-leak", "differential")


def _verdicts(path: Path) -> dict[str, str]:
    need_mlir_opt(19)
    _, row = check_file(str(path), [resolve("mlir-opt-19")], CHECK_OPTIONS.replace(invariants=ONE))
    return {i: r.verdict for i, r in row["mlir-opt-19"].results.items()}


@pytest.mark.parametrize("text", ["a\nb", 'q"u\\o', "\x01ƒ\x7f"])
def test_a_quoted_string_reads_back_as_written(text: str) -> None:
    quoted = quote_string(text)
    assert "\n" not in quoted
    found = parse(f"loc({quoted}:3:4)")
    assert found is not None and (found.name, found.line) == (text, 3)


def test_utf8_escapes_read_as_text_and_other_bytes_kept() -> None:
    assert utf8_unescaped(r'@"\C6\92n" "\\C6" "\FF\22"') == r'@"ƒn" "\\C6" "\FF\22"'


def test_a_file_name_with_a_newline_is_checked(tmp_path: Path) -> None:
    f = tmp_path / "new\nline.mlir"
    f.write_text(PAIR.replace("FN", "main").replace(" LOC", ""))
    assert _verdicts(f) == {"stream-no-leak": "holds", "differential": "holds"}


def test_a_location_with_an_escaped_newline_is_not_rejected(tmp_path: Path) -> None:
    # Two ops share the location, so the harness tags each with its own key.
    f = tmp_path / "k.mlir"
    f.write_text(PAIR.replace("FN", "main").replace("LOC", r'loc("a\nb":1:2)'))
    assert _verdicts(f) == {"stream-no-leak": "holds", "differential": "holds"}


def test_a_non_ascii_function_name_is_read_and_checked(tmp_path: Path) -> None:
    f = tmp_path / "k.mlir"
    f.write_text(PAIR.replace("FN", '"ƒünç"').replace(" LOC", "")
                 + 'func.func @main() {\n  call @"ƒünç"() : () -> ()\n  return\n}\n')
    assert _verdicts(f) == {"stream-no-leak": "holds", "differential": "holds"}


def test_a_fifo_with_no_writer_is_refused_naming_it(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(user_file, "STREAM_SILENCE_S", 0.3)
    fifo = tmp_path / "in.mlir"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(SourceParseError, match=r"in\.mlir: not a regular file, and nothing"):
        user_file.read_text(fifo)
    assert time.monotonic() - start < 5


def test_a_fifo_that_is_written_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "in.mlir"
    os.mkfifo(fifo)
    text = PAIR.replace("FN", "main").replace(" LOC", "")
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    try:
        assert user_file.read_text(fifo) == text
    finally:
        writer.join(10)
