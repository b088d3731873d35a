#!/usr/bin/env bash
# The CuPy-backed differential, prepared here and run on a GPU machine.
#
#   scripts/device_check.sh prepare   # here: lower the corpus with mlir-opt-19/22
#                                     # into .device/ (the GPU machine has no mlir-opt)
#   scripts/device_check.sh run       # there (or here): the corpus and drawn campaign
#                                     # programs on CuPy and on the simulated runtime
#
# `run` writes the agreement table to $OUT/cupy_table.md (or ./out/ where $OUT
# is unset) and prints it.  Where CuPy or a CUDA device is missing, the GPU
# side is a second simulator, and every row says so ("simulator stand-in"):
# the script runs, its figures say nothing about CUDA.  Python packages the
# GPU machine lacks (xdsl, z3-solver, ...) travel as wheels in .whl/ (see
# /work/.library/device/README.md); `run` installs them first when present.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=.device
PROGRAMS=${PROGRAMS:-40}
if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi

case "${1:-run}" in
prepare)
    mkdir -p "$BUNDLE"
    for v in 19 22; do
        "$PY" scripts/gpu_differential.py --corpus --prepare "$BUNDLE" --lowering "mlir-opt-$v"
    done
    ;;
run)
    if [ -d .whl ]; then
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
            --upgrade --target /tmp/site .whl/*.whl
        export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
    else
        export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
    fi
    out=${OUT:-out}
    mkdir -p "$out"
    table="$out/cupy_table.md"
    rm -f "$table"
    status=0
    for v in 19 22; do
        "$PY" scripts/gpu_differential.py --corpus --bundle "$BUNDLE" --lowering "mlir-opt-$v" \
            --stand-in --table "$table" || status=$?
    done
    "$PY" scripts/gpu_differential.py --programs "$PROGRAMS" --lowering xdsl:pr69969 \
        --stand-in --table "$table" || status=$?
    echo
    cat "$table"
    exit "$status"
    ;;
*)
    echo "usage: $0 prepare|run" >&2
    exit 2
    ;;
esac
