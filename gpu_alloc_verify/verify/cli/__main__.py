"""`python -m gpu_alloc_verify.verify.cli ...`: the `gpu-alloc-verify` command line."""

import sys

from gpu_alloc_verify.verify.cli.entry import main

if __name__ == "__main__":  # worker processes that import __main__ must not run it
    sys.exit(main())
