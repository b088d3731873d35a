"""Reading and printing MLIR text (stage: read).

- `fastparse`: a light reader of generic-form MLIR (xDSL's parse where it declines).
- `printer`: a `Program` as MLIR text.
- `source_module`, `source_reader`, `source_read`, `source_light`, `source_facts`:
  a source module as written, and what it promises (tokens, buffers, branches).
- `lowered_ir`: parsing lowered modules.
- `ir_lines`, `pretty_ir`: MLIR lines for people (locations, custom form).
"""
