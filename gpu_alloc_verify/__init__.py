"""gpu-alloc-verify: one import package for the wheel.

The product's parts are plain folders of this package: `verify`,
`generators`, `oracles`, `reports` and `repro` (issue 39). There are no
links and nothing puts the repository root on `sys.path`, so every module
has exactly one importable name, and a project with a `reports/` package of
its own can still import this one.
"""
