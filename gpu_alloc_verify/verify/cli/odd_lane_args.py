"""The odd-input lane's arguments (`python -m gpu_alloc_verify.verify.cli.odd_lane`)."""

from __future__ import annotations

import argparse


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("-n", type=int, default=500, help="inputs (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=0, help="the inputs' seed (default: %(default)s)")
    ap.add_argument("--scale", type=float, default=0.05,
                    help="share of issue 46's sizes the large families reach "
                    "(default: %(default)s)")
    ap.add_argument("--time-limit", type=float, default=10.0,
                    help="check's --time-limit per input, seconds (default: %(default)s)")
    ap.add_argument("--lowering", default="mlir-opt-19",
                    help="the lowering each input is checked on (default: %(default)s)")
