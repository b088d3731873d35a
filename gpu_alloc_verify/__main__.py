"""`python -m gpu_alloc_verify ...` is the `gpu-alloc-verify` command line."""

import sys

from gpu_alloc_verify.verify.cli import main

sys.exit(main())
