"""Minimal reproducers made into lit tests, and proven (issue 30: one job).

From a triage bucket's reduced program this package writes the lit test that
pins its root cause, and proves it before it is written: `export` reduces the
program and writes the test, `lit.cfg.py` and the provenance README;
`checks` and `order` derive the FileCheck lines per kind of defect (`plan`
holds them before they are rendered); `proof` lowers the program and runs
FileCheck to show the test fails on the buggy lowering at the defect and
passes on the fixed one; `parallel` exports many buckets on worker processes;
`lower_tool` is the in-process xDSL lowering lit runs in place of mlir-opt,
printed in mlir-opt's custom form by `verify.ir.custom_form`.

It sits above triage (it reduces and re-judges through it) and below
`reports`, which only renders the tests (a report's are made through
`parallel` by `verify.campaign.report` before `reports.html` renders them;
the catalogue's by `verify.findings`).
"""
