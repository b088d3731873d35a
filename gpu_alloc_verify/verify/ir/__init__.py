"""Reading MLIR text (stage: read); the user-file side built on it is
`verify.source`.

- `parse`: the one front door for MLIR text (`parse`): the fast reader
  first, xDSL's parser where it declines.
- `fastparse`: a light reader of generic-form MLIR.
- `xdsl_context`: the xDSL dialect sets `parse` reads with.
- `lowered_ir`: parsing lowered modules.
- `attrs`, `types`, `locations`, `graph`: facts of parsed ops, types by their
  text, source locations, reachability.
- `ir_lines`: MLIR lines for people (line-based, for text that may not parse).
- `text`: the one line-level reader and rewriter of MLIR text (function
  headers, dependency lists, launches, names masked, properties rewritten);
  `custom_form`: xDSL's generic printout in mlir-opt's custom form;
  `generic_lines`: the line model of generic-form text the mutants edit;
  `kernel_text`: a custom-form `gpu.func` in the generic form xDSL reads.
  Outside `verify.ir` no module matches MLIR text by pattern
  (`tests/ir/test_text_scan.py`).
- `tools`: where the MLIR tools of each LLVM version are.
"""
