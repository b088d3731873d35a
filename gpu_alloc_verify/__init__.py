"""gpu-alloc-verify: one import package for the wheel.

The repository keeps the folders the product card lays out (`verify`,
`generators`, `oracles`, `reports`) and `repro` (issue 30) at its top; they
install as `gpu_alloc_verify.verify`, ... (links in gpu_alloc_verify/), so a
project with a `reports/` package of its own can still import this one.
"""
