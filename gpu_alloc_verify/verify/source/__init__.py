"""The user-file side: MLIR source as written, and what it promises (stage: source).

Source text comes in two kinds, a user's `.mlir` file and a `Program` the
generator made; both end as `facts.SourceFacts`, what the checkers judge the
lowered code against.  Parsing itself is `verify.ir.parse.parse`.

- `user_file`: a user's file as checked (`SourceModule`: read, validated and
  printed in generic form with every location by the `mlir-opt` under test).
- `text`: source text as the harness reads it (`normalize` by `mlir-opt`,
  `parse_text` into a module, `SourceParseError` naming `file:line:col`).
- `facts`: a parsed module's facts (`read_source` -> `SourceFacts`,
  `SourceOp`, `SourceCall`: tokens, buffers, host accesses, branches).
- `views`: ops that name a buffer without touching memory (descriptor
  views, device pointers), which `facts` follows.
- `inline`: one root function with the module functions it calls put in its
  host order (`inline_source`), for `async-order` across calls.
- `of_program`: the facts of either kind of source (`source_facts`; a
  `Program`'s read from its `light` module).
- `light`: a `Program`'s module in the fast reader's objects (cheaper than
  building xDSL's and printing it back).
- `to_program`: MLIR text into the generator's `Program` model, where it fits
  (`program_from_text`, `model_of`, `model_gap`).
"""
