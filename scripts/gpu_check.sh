#!/usr/bin/env bash
# The checks a session with a GPU machine should run once (the device tool's budget is small):
# the CUDA test cases that skip elsewhere, then the note's experiment and the explain breakdown
# on the GPU, each saved under ${OUT:-/tmp/gpu-check} for the closing note.
#   scripts/gpu_check.sh            (expects `make test`'s .venv, or run `make .venv/.installed-stamp`)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
export IRIS_GUI_DATA_DIR="$out/data" QT_QPA_PLATFORM=offscreen
py=.venv/bin/python
$py -m iris_gui devices --json | tee "$out/devices.json"
$py -m pytest -q -rs -k cuda tests/engine 2>&1 | tail -15 | tee "$out/cuda-tests.txt"
$py -m iris_gui compare --devices all --records every-epoch,every:200,device,none --repeat 3 \
    2>&1 | tee "$out/compare.txt"
$py -m iris_gui compare --devices all --records every-epoch,device,none --repeat 3 --json \
    --no-save >"$out/compare.json"
$py -m iris_gui explain --device cuda 2>&1 | tee "$out/explain-cuda.txt"
$py -m iris_gui explain --device cuda --record none --json >"$out/explain-cuda-none.json"
$py -m iris_gui explain --device cpu --json >"$out/explain-cpu.json"
