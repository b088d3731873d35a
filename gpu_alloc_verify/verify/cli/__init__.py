"""`gpu-alloc-verify` (also `python -m gpu_alloc_verify`): fuzz, check,
replay, report, triage, findings, lowerings, invariants, bench, selfcheck.
Defaults come from `[tool.gpu-alloc-verify]` in the nearest pyproject.toml
(verify.config); flags override them.

Exit status: 0 no violation and nothing unknown; 1 at least one violation
(and only then); 2 usage, input or environment error (the message says what
is missing and how to get it) or an internal error; 3 nothing violated but
some verdict unknown (`--allow-unknown` makes it 0), or `check` checked
nothing (every lowering rejected the file or could not take it; never 0);
130 interrupted; 141 stdout or stderr closed by its reader (`| head`),
quietly.

Layout: each command's arguments are defined in `<command>_args.py` (in
option groups; those several commands share are in `arguments.py`), apart
from the module that runs it, `<command>.py`; `parser.py` assembles the
parser, `entry.py` is `main`.
"""

from gpu_alloc_verify.verify.cli.check_text import check_violation_id
from gpu_alloc_verify.verify.cli.defaults import apply_config
from gpu_alloc_verify.verify.cli.entry import main
from gpu_alloc_verify.verify.cli.parser import build_parser

__all__ = ["apply_config", "build_parser", "check_violation_id", "main"]
