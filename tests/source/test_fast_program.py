"""`check` models a user's file by the fast reader (`verify.source.fast_program`):
the same model as xDSL's reading (`to_program.model_of`), or None where
xDSL's says None, and xDSL's parse only where the fast reader declines."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_alloc_verify.verify.source import fast_program, to_program
from gpu_alloc_verify.verify.source.user_file import load
from tests.conftest import need_mlir_opt

CORPUS = Path(__file__).parent.parent / "corpus"
# Modelled files and files outside the model (calls, kernels of their own,
# host loops, aliases and odd locations).
FILES = ["async_alloc_no_deps.mlir", "async_alloc_two_deps.mlir", "cuda_async_fork_join.mlir",
         "fanout_double_destroy.mlir", "aliases_and_locations.mlir",
         "helpers_and_declarations.mlir", "element_types_kernels.mlir",
         "cf_loop_three_rounds.mlir"]

# A long function of async memsets, a host loop storing at a loop index
# (outside the model), and a function that calls a helper (outside it too).
SHAPES = {
    "chain": "func.func @main() {\n  %t0 = gpu.wait async\n"
             "  %b, %t1 = gpu.alloc async [%t0] () : memref<64xf32>\n"
             "  %c = arith.constant 1.0 : f32\n"
             + "".join(f"  %t{i} = gpu.memset async [%t{i - 1}] %b, %c : memref<64xf32>, f32\n"
                       for i in range(2, 40))
             + "  %td = gpu.dealloc async [%t39] %b : memref<64xf32>\n  gpu.wait [%td]\n"
             "  return\n}\n",
    "loop": """func.func @main(%h: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 8 : index
  %v = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %h[%i] : memref<8xf32>
  }
  return
}
""",
    "call": """func.func @h(%b: memref<4xf32>) {
  return
}
func.func @main() {
  %b = gpu.alloc () : memref<4xf32>
  call @h(%b) : (memref<4xf32>) -> ()
  gpu.dealloc %b : memref<4xf32>
  return
}
""",
}


def _source(tmp_path: Path, name: str) -> tuple[str, str]:
    tool = need_mlir_opt(19)
    if name in SHAPES:
        path = tmp_path / f"{name}.mlir"
        path.write_text(SHAPES[name])
    else:
        path = CORPUS / name
    src = load(path, tool)
    return src.text, src.name


@pytest.mark.parametrize("name", [*FILES, *SHAPES])
def test_the_fast_model_is_xdsls_model(name: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    text, label = _source(tmp_path, name)
    want = to_program.model_of(text, label)
    parsed: list[str] = []
    real = fast_program._parse_generic

    def counted(generic: str, *args: object, **kwargs: object) -> object:
        parsed.append(generic)
        return real(generic, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fast_program, "_parse_generic", counted)
    got = fast_program.model_of(text, label)
    assert got == want
    if name in SHAPES:
        # Read by the fast reader whole (a model, or an op outside it): no
        # xDSL parse.
        assert not parsed
    elif want is not None and fast_program.fast_model(text, label) is not None:
        assert not parsed


def test_the_shapes_cover_both_answers(tmp_path: Path) -> None:
    """The cases above hold a modelled file and files outside the model."""
    answers = {name: fast_program.model_of(*_source(tmp_path, name)) is None
               for name in SHAPES}
    assert answers == {"chain": False, "loop": True, "call": True}
