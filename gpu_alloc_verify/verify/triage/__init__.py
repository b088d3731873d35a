"""From a violation to its root cause and a bug report (stage: triage).

- `buckets`: violations grouped into root causes (`triage.json`).
- `signature`: what makes two violations the same root cause.
- `offending`: the lowered lines and source ops of a violation.
- `reduce`, `rejudge`: the smallest program that still shows it.
"""
