"""A user's `.mlir` file as the harness checks it: as written.

The file is validated and printed in generic form, with every op's location
(`loc("FILE":line:col)`), by the `mlir-opt` under test (a file valid for 16
but not for 22 is checked on 16; see `verify.campaign.check_file`).  That text is what
gets lowered, and what source facts are read from, so every verdict names
the user's `file:line:col`.  Without any `mlir-opt` (an in-process lowering
only), the file must be in generic form, which xDSL reads directly.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from gpu_alloc_verify.verify.ir.locations import tag_locations
from gpu_alloc_verify.verify.ir.parse import ParsedModule
from gpu_alloc_verify.verify.model.errors import SourceParseError
from gpu_alloc_verify.verify.model.program import Program
from gpu_alloc_verify.verify.source.facts import SourceFacts, read_source
from gpu_alloc_verify.verify.source.text import normalize, parse_text

_LOC_STRING = 'loc("'


STDIN_NAME = "<stdin>"  # the name standard input goes by (`check -`), as in Python's tracebacks


def read_text(path: str | Path) -> str:
    """The file's text; SourceParseError (exit status 2) with one line saying
    what is wrong and what to do.  STDIN_NAME reads standard input (a file of
    that name is `./<stdin>`)."""
    if str(path) == STDIN_NAME:
        return _decoded(sys.stdin.buffer.read(), STDIN_NAME)
    path = Path(path)
    if not path.exists():
        raise SourceParseError(f"{path}: no such file; give the path of a .mlir file")
    if path.is_dir():
        raise SourceParseError(f"{path}: is a directory; give a .mlir file inside it")
    try:
        data = path.read_bytes() if path.is_file() else _read_stream(path)
    except OSError as e:
        raise SourceParseError(f"{path}: cannot read it ({e.strerror or e}); check its "
                               "permissions") from e
    return _decoded(data, str(path))


# A FIFO, a device or a socket given by path (`<(cmd)` is a pipe): read
# while data comes, and refused when none comes for this long (a FIFO
# nobody writes to would block forever, as `cat` does) or when it does not
# end (`/dev/zero`).
STREAM_SILENCE_S = 10.0
STREAM_MAX_BYTES = 256 << 20


def _read_stream(path: Path) -> bytes:
    import os
    import select

    silence_s = STREAM_SILENCE_S
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        chunks: list[bytes] = []
        size = 0
        while True:
            if not poller.poll(int(silence_s * 1000)):
                raise SourceParseError(
                    f"{path}: not a regular file, and nothing was written to it in "
                    f"{silence_s:g} s (a FIFO with no writer?); give a regular .mlir file, "
                    "or - to read standard input")
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:  # woken with nothing to read yet
                continue
            if not chunk:  # the writer closed it
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > STREAM_MAX_BYTES:
                raise SourceParseError(
                    f"{path}: not a regular file, and it did not end within "
                    f"{STREAM_MAX_BYTES >> 20} MiB; give a regular .mlir file")
    finally:
        os.close(fd)


def _decoded(data: bytes, path: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise SourceParseError(
            f"{path}:{line}:{col}: byte 0x{data[e.start]:02x} is not UTF-8; MLIR files are "
            "UTF-8: re-save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
    if not text.strip():
        raise SourceParseError(f"{path}: the file is empty; give a module with a func.func "
                               "holding gpu ops")
    return text


@dataclass
class SourceModule:
    """One source module: `text` is what the lowerings lower."""

    name: str  # the file as the user named it
    written: str  # the file as written
    text: str  # generic form with locations (what `tool` printed)
    tool: str | None  # the mlir-opt that validated it; None: read by xDSL
    tags: frozenset[str] = frozenset()
    _module: ParsedModule | None = field(default=None, repr=False)
    _facts: SourceFacts | None = field(default=None, repr=False)
    _program: Program | None | str = field(default="", repr=False)

    def to_mlir(self, loc_prefix: str = "") -> str:
        """The text to lower; `loc_prefix` prefixes every location's name,
        as `Program.to_mlir` does, so batched diagnostics map back."""
        if not loc_prefix:
            return self.text
        return self.text.replace(_LOC_STRING, _LOC_STRING + loc_prefix)

    def module(self) -> ParsedModule:
        if self._module is None:
            self._module = parse_text(self.text, self.name)
        return self._module

    def facts(self) -> SourceFacts:
        if self._facts is None:
            self._facts = read_source(self.module())
        return self._facts

    def program(self) -> Program | None:
        """The generator's model of this module, when it has one (the
        in-process lowerings and the differential oracle need it); None
        when the file uses what the model does not hold."""
        if self._program == "":
            # By the fast reader where it reads the whole file (xDSL's parse
            # costs ten times as much on a long one), else by xDSL.
            from gpu_alloc_verify.verify.source.fast_program import model_of

            self._program = model_of(self.text, self.name)
        return self._program if isinstance(self._program, Program) else None

    def model_gap(self) -> str:
        """Why `program()` is None."""
        from gpu_alloc_verify.verify.source.to_program import model_gap

        return model_gap(self.text, self.name)

    def op_count(self) -> int:
        return sum(1 for _ in self.module().walk())


def load(path: str | Path, tool: str | None) -> SourceModule:
    """The file validated and printed by `tool` (an mlir-opt path)."""
    written = read_text(path)
    return from_text(written, str(path), tool)


def from_text(written: str, name: str, tool: str | None) -> SourceModule:
    """The module `tool` prints, each op's location made a key of its own
    (`verify.ir.locations.tag_locations`: shared, unknown and call-site
    locations would map lowered calls to the wrong op)."""
    if tool is None:  # read by xDSL: an unreadable file is an input error now
        source = SourceModule(name, written, tag_locations(written), None)
        source.module()
        return source
    return SourceModule(name, written, tag_locations(normalize(written, name, tool)), tool)
