"""`from gpu_alloc_verify import api`: the public API (verify/api.py)."""

from gpu_alloc_verify.verify.api import *  # noqa: F403
from gpu_alloc_verify.verify.api import __all__  # noqa: F401
