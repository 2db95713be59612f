#!/usr/bin/env bash
# The checks to run once on a GPU machine, in one device-tool call: the environment, the note's
# experiment on the GPU and the CPU, the engine ladder's CUDA rungs, the explain breakdowns,
# mini-batches, the loader and float16, compiled's CUDA graphs, the crossover sweep, the CUDA
# test cases that skip elsewhere, the ladder benchmark and, last, the Triton kernel tests. The
# plan (steps, limits, order) is scripts/gpu_check/plan.py; scripts/gpu_check/run.py runs it.
#
# Runs from the source tree (PYTHONPATH) with the machine's own Python: no virtual environment,
# no Qt, no display, no network. It needs python3 (3.10+) with torch (>=2.4; a CUDA build),
# scikit-learn, numpy and pytest (Triton for the persistent rung and its tests; numba for the
# native rung: without them those rungs report themselves unavailable). The small pure-Python
# dependencies it may lack (platformdirs, pytest-timeout) come from wheels/gpu/, which
# scripts/gpu_wheels.sh downloads beforehand on a connected machine, into a temporary folder on
# PYTHONPATH; nothing is written to the system's site-packages. wheels/ is git-ignored: the
# device tool copies it only when the call carries it:
#     scripts/gpu_wheels.sh                              (here, once, with network)
#     GPU_CHECK_DRY=1 scripts/gpu_check.sh               (here: the plan and its check, a second)
#     run(command="scripts/gpu_check.sh", carry=["wheels"], timeout_s=540)
# timeout_s=540 is the steps' budget (480 s) and the margin (60 s) for the start-up and the
# packing; the plan check refuses to start when this line, the README or the plan disagree.
#
# $OUT (default /tmp/gpu-check) holds three files at every moment: summary.txt (each step's exit
# status, time and limit), gpu-check.log (everything printed, as it is printed) and
# gpu-check.tar.gz (every step's output, the runs store data/, the runs' CSV), the last two
# replaced after every step by a rename: a call cut at any moment brings back every step
# finished so far. A step that fails or times out is noted and the next one runs; the exit
# status is 0, 1 if $OUT cannot be made, 2 if the plan breaks a rule or does not fit
# GPU_CHECK_BUDGET_S (another budget scales every limit, at least 10 s each), and 128 + N when
# signal N stopped it (the step under way is stopped and packed first).
#   PYTHON=.venv/bin/python scripts/gpu_check.sh    (another interpreter, e.g. make's .venv)
cd "$(dirname "$0")/.." || exit 1
exec "${PYTHON:-python3}" scripts/gpu_check/run.py
