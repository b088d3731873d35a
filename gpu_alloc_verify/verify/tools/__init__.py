"""Every process the harness starts (stage: tools, under every other stage but
the model).

- `runner`: external programs (`mlir-opt`, `mlir-translate`, the runners,
  FileCheck, the C compiler): where they are, how they are started, their
  timeouts, and their failures as one typed result or `ToolError`.
- `commands`: every command line of MLIR's tools (mlir-opt, mlir-translate,
  the JIT runners, FileCheck) and the RUN line of an exported lit test, so a
  flag is spelled once; and `default_reader`, the mlir-opt that reads a text
  when no lowering names its own.
- `blame`: who failed, the tool or its input: a tool that crashed, or fails
  on an empty module too, is `ToolFailed` (named signal and command).
- `pool`: worker processes (forked process pools, Dask's local cluster),
  for the campaign's parallel judging and the report's lit proofs.

Nothing else imports `subprocess` or `multiprocessing`
(`tests/test_layout.py` counts), so a timeout, a hung child or a Ctrl-C is
handled in one place.
"""
