"""From a lowered module to the runtime calls it makes (stage: extract).

`calls.extract` walks the lowered IR (`cfg`: loops and unrolling, `control`:
branch conditions, `memory`: values through memory, `values`: handles and
unknowns, `state`: the walk's state) into `facts.Facts`: calls, escapes,
cuts and leftovers, with Z3 path conditions.
"""
