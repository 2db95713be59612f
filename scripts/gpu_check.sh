#!/usr/bin/env bash
# The checks to run on a GPU machine, in two device-tool calls. The first (the default) answers
# the note: the environment and the devices, the note's experiment on the GPU and the CPU, the
# engine ladder's CUDA rungs (graph and persistent), explain on CUDA, mini-batches. The second,
# `rest`, the rest: the loader, float16 through the GradScaler, bfloat16, a CNN, a transformer
# and a model file on every rung that trains them, compiled's CUDA graphs, the crossover sweep,
# the note's list of when the GPU wins, whether an empty profile slows what follows, the CUDA
# test cases and the Triton kernel tests. The plan (steps, limits, order) is
# scripts/gpu_check/plan.py; scripts/gpu_check/run.py runs it.
#
# Runs from the source tree (PYTHONPATH) with the machine's own Python: no virtual environment,
# no Qt, no platformdirs, no display, no network. It needs python3 (3.10+) with torch (>=2.4; a
# CUDA build), scikit-learn, numpy and pytest, and refuses to start, in one line, without them
# (Triton for the persistent rung and its tests, numba for the native rung: without them those
# rungs report themselves unavailable). Nothing needs to be carried:
#     GPU_CHECK_DRY=1 scripts/gpu_check.sh [first|rest]   (here: the plan and its check)
#     make test-gpu-image                                   (here: all of it in the replica)
#     run(command="scripts/gpu_check.sh", timeout_s=360)
#     run(command="scripts/gpu_check.sh rest", timeout_s=360)   (at once, while it is warm)
# Each call's steps fit 280 s and the call 300 s with its margin; timeout_s=360 leaves a
# minute more, for a stalled machine only. The plan check refuses to start when this header,
# the README or docs/gpu-check.md give another timeout_s.
#
# $OUT (default /tmp/gpu-check) holds three files at every moment: summary.txt (each step's exit
# status, time and limit), gpu-check.log (everything printed, as it is printed) and
# gpu-check.tar.gz (every step's output, the runs store data/, the runs' CSV), the last two
# replaced after every step by a rename: a call cut at any moment brings back every step
# finished so far. A step that fails or times out is noted and the next one runs; the exit
# status is 0, 1 if $OUT cannot be made, 2 if the plan breaks a rule, does not fit
# GPU_CHECK_BUDGET_S (another budget scales every limit, at least 10 s each) or the interpreter
# lacks a module every step needs, and 128 + N when signal N stopped it (the step under way is
# stopped and packed first).
#   PYTHON=.venv/bin/python scripts/gpu_check.sh    (another interpreter, e.g. make's .venv)
cd "$(dirname "$0")/.." || exit 1
exec "${PYTHON:-python3}" scripts/gpu_check/run.py "$@"
