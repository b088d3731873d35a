"""What a campaign found, rendered: the HTML report, explain (terminal), JUnit,
the findings catalogue, pretty IR.  Rendering only: lit tests are made and
proven by `repro`."""
