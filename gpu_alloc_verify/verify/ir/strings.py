"""String literals in printed MLIR: UTF-8 written as escapes, read back as text."""

from __future__ import annotations

import re

# In mlir-opt's printed strings a backslash is `\\` or `\XX`; a run of
# `\XX` bytes of 0x80 and above is usually UTF-8 text (`@"\C6\92..."` for
# `@"ƒ..."`).  xDSL reads such escapes as bytes, not text, so the run is
# written back as the characters it encodes (mlir-opt reads either).
_ESCAPE_RUN = re.compile(r"\\\\|(?:\\[89A-Fa-f][0-9A-Fa-f])+")


def utf8_unescaped(text: str) -> str:
    """`text` with each run of `\\XX` escapes that is UTF-8 text written as
    that text (any other escape kept)."""
    if "\\" not in text:
        return text
    return _ESCAPE_RUN.sub(_decoded_run, text)


def _decoded_run(m: re.Match[str]) -> str:
    run = m.group(0)
    if run == "\\\\":
        return run
    try:
        return bytes.fromhex(run.replace("\\", "")).decode("utf-8")
    except UnicodeDecodeError:  # not UTF-8: bytes, kept as escapes
        return run
