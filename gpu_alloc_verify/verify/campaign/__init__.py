"""Running many programs (stages: lower, judge, record).

- `pipeline`: lower a batch with each lowering, judge every invariant;
  `parallel`: the same on worker processes.
- `fuzz`: the Hypothesis campaign (`progress`, `shrink`, `resume`, `replay`,
  `results` for the append-only JSONL, `example_db`).
- `cluster`, `cluster_options`, `shards`, `worker`, `ledger`: campaigns on Dask.
- `check_file`: one user file through each lowering; `findings_run`: the
  campaigns behind the findings catalogue; `bench`: what each stage costs.
- `report`: a campaign's HTML report made whole (triage, then `repro`'s lit
  tests, then `reports.html`, which only renders them).
"""
