#!/usr/bin/env bash
# Installs what the harness and its tests need on a fresh Debian 12 machine:
# the real mlir-opt 16/19/22 (Debian mlir-N-tools), Chromium for the report
# test, redis-server for the cluster tests (each starts its own), a venv at
# .venv with the package and its dev and cluster (Dask, redis) extras.
# Safe to run again: installed pieces are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
for v in 16 19 22; do
  command -v "mlir-opt-$v" >/dev/null 2>&1 || need_apt+=("mlir-$v-tools")
done
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
if [ "${#need_apt[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: apt-get install ${need_apt[*]}" >&2
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
    "${need_apt[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,cluster]'
echo "setup: ready ($(.venv/bin/gpu-alloc-verify lowerings | wc -l) lowerings available)" >&2
