#!/usr/bin/env bash
# The checks to run once on a GPU machine, in one device-tool call: the environment, the note's
# experiment and the engine ladder on the GPU, the explain breakdowns, the crossover sweep, the
# CUDA test cases that skip elsewhere, the ladder benchmark and, last, the Triton kernel tests.
#
# Runs from the source tree (PYTHONPATH) with the machine's own Python: no virtual environment,
# no Qt, no display, no network. It needs python3 (3.10+) with torch (>=2.4; a CUDA build),
# scikit-learn, numpy and pytest (Triton for the persistent rung and its tests; numba for the
# native rung: without them those rungs report themselves unavailable). The small pure-Python
# dependencies it may lack (platformdirs, pytest-timeout) are installed from wheels/gpu/, which
# scripts/gpu_wheels.sh downloads beforehand on a connected machine, into a temporary folder
# that goes on PYTHONPATH; nothing is written to the system's site-packages. wheels/ is
# git-ignored: the device tool copies it only when the call carries it:
#     scripts/gpu_wheels.sh                                  (here, once, with network)
#     GPU_CHECK_DRY=1 scripts/gpu_check.sh                   (here: the plan, in a second)
#     run(command="GPU_CHECK_PACK=1 scripts/gpu_check.sh", carry=["wheels"], timeout_s=480)
#     (timeout_s: the budget + 60 s, for the start-up, the wheels and the packing)
# GPU_CHECK_PACK=1 leaves in $OUT only summary.txt, gpu-check.log and gpu-check.tar.gz (all
# the rest), because the device tool brings back at most 8 files.
#
# The budget. A session's device time (15 minutes) includes the machine's start (minutes), and
# one call runs at most 600 s, so the steps' time limits add up to at most GPU_CHECK_BUDGET_S
# (default 480 s; at most 540 s fits one call with its margin). Every step gets its whole limit
# whatever the steps before it did (none is starved), the steps run in order of value per
# second, and a step's time includes the kill: TERM a few seconds before its limit, KILL at it.
# The plan's limits are sized for 480 s and the script refuses to start (exit 2) when they add
# up to more. Another GPU_CHECK_BUDGET_S scales every limit in proportion: up (a larger one), or
# down (a smaller one; at least 10 s each, refused when even that does not fit).
#
# GPU_CHECK_DRY=1 prints the plan (each step, its limit, the running total against the budget,
# its command), writes summary.txt and gpu-check.log, and runs nothing: a second, no Python.
#
# Everything it writes (logs, JSON, CSV, the runs store, the summary) goes to ${OUT:-/tmp/gpu-check}.
# A step that fails or times out is noted and the next one runs; the summary of exit codes
# comes last, and the exit status is 0 unless the output folder cannot be made (1) or the plan
# does not fit the budget (2).
#   PYTHON=.venv/bin/python scripts/gpu_check.sh    (another interpreter, e.g. make's .venv)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
py=${PYTHON:-python3}
out=${OUT:-/tmp/gpu-check}
wheels=${GPU_WHEELS:-$root/wheels/gpu}
dry=${GPU_CHECK_DRY:-0}
planned_budget=480  # what the limits below are sized for
max_budget=540      # one device call (600 s) less the start-up, the wheels and the packing
min_limit=10        # no step is scaled below this
budget=${GPU_CHECK_BUDGET_S:-$planned_budget}
mkdir -p "$out" || { echo "gpu_check: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/gpu-check.log") 2>&1
log_pid=$!

finish() {  # finish STATUS: close the log (tee) and exit
    exec >&- 2>&-
    wait "$log_pid" 2>/dev/null
    exit "$1"
}

refuse() {
    echo "gpu_check: REFUSED: $*" >&2
    finish 2
}

# The steps, in order of value per second. Each is: step NAME LIMIT_S FILE COMMAND... where
# FILE (under $out) gets the command's stdout; a .txt file gets stderr too, a .json file's
# stderr goes to FILE.err.txt (kept only when not empty). The limits add up to $planned_budget.
plan() {
    step "install wheels" 10 install-wheels.txt bash -c install_wheels
    step "environment" 15 environment.txt bash -c environment
    step "devices" 15 devices.json "$py" -m iris_gui devices --json
    # The note's own experiment on both devices: every recording choice that matters.
    step "compare" 70 compare.txt "$py" -m iris_gui compare --devices all \
        --records every-epoch,device,none --repeat 2
    # The engine ladder on every device (the note's loop first on each); compiles on both.
    step "ladder" 80 ladder.txt "$py" -m iris_gui compare --engines all --devices all
    # Mini-batches (issue 20): resident batches by index on both devices, every-epoch (a sync
    # per step) against device; then the tutorial's loader with workers, pinned memory and
    # non-blocking copies on the GPU, and float16 autocast with its gradient scaler.
    step "mini-batches" 25 minibatch.txt "$py" -m iris_gui compare --devices all --batch 32 \
        --records every-epoch,device --epochs 300
    step "loader cuda" 20 loader-cuda.txt "$py" -m iris_gui train --device cuda --batch 32 \
        --data-path loader --workers 2 --pin-memory --non-blocking --persistent-workers \
        --epochs 100
    step "float16 cuda" 10 float16-cuda.txt "$py" -m iris_gui train --device cuda --batch 32 \
        --precision float16 --engine lean --epochs 300
    step "explain cuda" 20 explain-cuda.txt "$py" -m iris_gui explain --device cuda
    step "explain cuda graph" 10 explain-cuda-graph.txt "$py" -m iris_gui explain \
        --device cuda --engine graph --record device
    step "explain cuda persistent" 10 explain-cuda-persistent.txt "$py" -m iris_gui explain \
        --device cuda --engine persistent --record device
    step "sweep" 35 sweep.txt "$py" -m iris_gui sweep --devices all \
        --engines eager,graph,persistent --threads 1 --min-seconds 0.2
    step "export runs" 10 export-runs.txt bash -c export_runs
    # The kernel tests carry the cuda marker too: they get a step (and a limit) of their own.
    # -v: a run killed at its limit still shows which tests passed; a test module that cannot
    # be imported here (a missing package) does not stop the others.
    step "cuda tests" 95 cuda-tests.txt "$py" -m pytest -m "cuda and not kernels" -v -rs \
        -p no:cacheprovider --continue-on-collection-errors tests
    step "ladder benchmark cuda" 25 ladder-bench-cuda.txt "$py" benchmarks/ladder.py \
        --device cuda --epochs 5000 --repeat 3 --engines eager,lean,manual,graph,persistent
    # On the device, not in Triton's interpreter (TRITON_INTERPRET is unset below). The
    # ahead-of-time fit checks need no GPU (make test-kernels runs them): left out here.
    step "kernel tests" 30 kernel-tests.txt "$py" -m pytest -m kernels -v -rs \
        -p no:cacheprovider --ignore=tests/kernels/test_kernel_fits.py tests/kernels
}

# need MODULE DIST: make MODULE importable, from $wheels when the interpreter lacks it.
need() {
    local module=$1 dist=$2 wheel
    "$py" -c "import $module" 2>/dev/null && { echo "$module: already installed"; return 0; }
    wheel=$(ls "$wheels"/"$dist"-*.whl 2>/dev/null | sort -V | tail -n 1)
    if [[ -z $wheel ]]; then
        echo "no $dist wheel in $wheels (run scripts/gpu_wheels.sh, and carry wheels/)"
        return 1
    fi
    if "$py" -m pip --version >/dev/null 2>&1; then
        PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --disable-pip-version-check --no-index --no-deps \
            --target "$deps" "$wheel" || return 1
    else  # no pip: a pure-Python wheel is a zip of what goes into site-packages
        "$py" -m zipfile -e "$wheel" "$deps" || return 1
    fi
    "$py" -c "import $module" && echo "$module: installed from $(basename "$wheel")"
}

install_wheels() {
    local status=0
    need platformdirs platformdirs || status=1
    if grep -q '^timeout *=' pyproject.toml; then  # the [tool.pytest.ini_options] option it reads
        need pytest_timeout pytest_timeout || status=1
    fi
    return "$status"
}

environment() {
    "$py" -c "import sys
print('python', sys.version.split()[0], sys.executable)
missing = []
for name in ('torch', 'sklearn', 'numpy', 'numba', 'triton', 'pytest', 'platformdirs',
             'pytest_timeout'):
    try:
        module = __import__(name)
        print(name, getattr(module, '__version__', '(no version)'))
    except ImportError as error:
        print(name, 'missing:', error)
        missing.append(name)
if 'torch' not in missing:
    import torch
    print('torch cuda', torch.version.cuda, 'available', torch.cuda.is_available())
    for i in range(torch.cuda.device_count()):
        print('  cuda:%d' % i, torch.cuda.get_device_name(i))
sys.exit(1 if {'torch', 'sklearn', 'numpy', 'pytest'} & set(missing) else 0)"
    local status=$?
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi -L
        nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit \
            --format=csv
    else
        echo "no nvidia-smi"
    fi
    return "$status"
}

export_runs() {  # every stored run as CSV, and their loss curves
    "$py" -m iris_gui runs export --csv "$out/runs.csv" || return 1
    local ids
    ids=$("$py" -m iris_gui runs list --json | "$py" -c "import json, sys
print(','.join(str(run['id']) for run in json.load(sys.stdin)))") || return 1
    [[ -n $ids ]] || { echo "no stored runs"; return 1; }
    "$py" -m iris_gui plot --runs "$ids" --out "$out/loss-curves.csv"
}

show() {  # a command as one line, for the plan
    local word line=
    for word in "$@"; do
        [[ $word == "$py" ]] && word=python
        [[ $word =~ [[:space:]\'\"] ]] && word="'$word'"
        line+="$word "
    done
    echo "${line% }"
}

# The first pass only collects the plan.
phase=collect
plan_names=() plan_asked=() plan_files=() plan_commands=()
step() {
    local name=$1 asked=$2 file=$3
    shift 3
    if [[ $phase == collect ]]; then
        plan_names+=("$name") plan_asked+=("$asked") plan_files+=("$file")
        plan_commands+=("$(show "$@")")
        return
    fi
    run_step "$@"
}
plan

echo "gpu_check: $(date -u +%FT%TZ), python: $(command -v "$py" || echo "$py (not found)"), out: $out"
[[ $budget =~ ^[0-9]+$ ]] || refuse "GPU_CHECK_BUDGET_S=$budget is not a whole number of seconds"
asked_total=0
for limit in "${plan_asked[@]}"; do asked_total=$((asked_total + limit)); done
if ((asked_total > planned_budget)); then
    refuse "the steps' limits add up to ${asked_total} s, more than the ${planned_budget} s" \
        "the plan is sized for: lower some limits in scripts/gpu_check.sh's plan()"
fi
((budget > max_budget)) && echo "gpu_check: note: a ${budget} s budget does not fit one" \
    "600 s device call with its margin (${max_budget} s)"
# Another budget: every limit in proportion (rounded down: the sum stays within the budget). A
# smaller one: those that would fall below $min_limit get it, and the others share what is left.
limits=("${plan_asked[@]}") floored=()
if ((budget > planned_budget)); then
    for i in "${!plan_asked[@]}"; do limits[i]=$((plan_asked[i] * budget / planned_budget)); done
elif ((budget < asked_total)); then
    for i in "${!plan_asked[@]}"; do floored[i]=0; done
    changed=1
    while ((changed)); do
        changed=0 fixed=0 rest=0
        for i in "${!plan_asked[@]}"; do
            ((floored[i])) && fixed=$((fixed + min_limit)) || rest=$((rest + plan_asked[i]))
        done
        for i in "${!plan_asked[@]}"; do
            ((floored[i])) && continue
            if ((rest == 0 || plan_asked[i] * (budget - fixed) / rest < min_limit)); then
                floored[i]=1 changed=1
            fi
        done
    done
    for i in "${!plan_asked[@]}"; do
        if ((floored[i])); then
            limits[i]=$min_limit
        else
            limits[i]=$((plan_asked[i] * (budget - fixed) / rest))
        fi
    done
fi
total=0
echo "== plan: ${#limits[@]} steps in this order, each with its time limit and the running total" \
    "against the ${budget} s budget$( ((budget < asked_total || budget > planned_budget)) \
    && echo " (limits scaled from ${asked_total} s)")"
for i in "${!limits[@]}"; do
    total=$((total + limits[i]))
    printf '%3d. %-26s %4d s %5d/%d s  -> %s\n' $((i + 1)) "${plan_names[$i]}" "${limits[$i]}" \
        "$total" "$budget" "${plan_files[$i]}"
    printf '       $ %s\n' "${plan_commands[$i]}"
done
if ((total > budget)); then
    refuse "the steps' limits add up to ${total} s, more than the ${budget} s budget" \
        "(GPU_CHECK_BUDGET_S; each step gets at least ${min_limit} s)"
fi
echo "   limits: ${total} s of ${budget} s"

deps=
if [[ $dry != 1 ]]; then
    deps=$(mktemp -d "${TMPDIR:-/tmp}/iris-gui-gpu-deps.XXXXXX")
    trap 'rm -rf "$deps"' EXIT
    export PYTHONPATH="$deps:$root${PYTHONPATH:+:$PYTHONPATH}"
    export IRIS_GUI_DATA_DIR="$out/data" QT_QPA_PLATFORM=offscreen
    # Unbuffered: a step killed at its limit keeps what it printed so far.
    export PYTHONUNBUFFERED=1
    unset TRITON_INTERPRET  # the kernels run on the device, not in Triton's interpreter
    export -f need install_wheels environment export_runs
    export py wheels deps out
fi
start=$SECONDS
index=0
names=() codes=() durations=()

run_step() {
    local name=${plan_names[$index]} limit=${limits[$index]} file=${plan_files[$index]}
    local rc t0=$SECONDS grace=5
    index=$((index + 1))
    local left=$((budget - (SECONDS - start)))
    ((left < limit)) && limit=$left
    if ((limit < 5)); then
        echo "== $name: skipped, the ${budget} s budget is spent"
        names+=("$name") codes+=("skipped") durations+=(0)
        return
    fi
    if [[ $dry == 1 ]]; then  # the plan above has shown the command
        echo "== $index/${#limits[@]} $name (at most ${limit} s): dry run, not started"
        names+=("$name") codes+=("dry") durations+=(0)
        return
    fi
    echo "== $index/${#limits[@]} $name (at most ${limit} s; $((SECONDS - start)) of" \
        "${budget} s used) -> $file"
    ((limit < 20)) && grace=2
    # TERM $grace s before the limit, KILL at it: the step's time includes the kill.
    if [[ $file == *.json ]]; then
        local err="$out/${file%.json}.err.txt"
        timeout -k "$grace" $((limit - grace)) "$@" >"$out/$file" 2>"$err"
        rc=$?
        tail -n 20 "$err"
        [[ -s $err ]] || rm -f "$err"
        echo "   $(wc -c <"$out/$file") bytes of JSON"
    else
        timeout -k "$grace" $((limit - grace)) "$@" >"$out/$file" 2>&1
        rc=$?
        tail -n 40 "$out/$file"
    fi
    ((rc == 124 || rc == 137)) && echo "   timed out after ${limit} s"
    names+=("$name") codes+=("$rc") durations+=($((SECONDS - t0)))
}

phase=run
plan

echo
echo "== summary (exit codes; 124 = timed out) after $((SECONDS - start)) s of the ${budget} s" \
    "budget, files in $out"
{
    [[ $dry == 1 ]] && echo "dry run: nothing was started"
    printf '%-28s %8s %5s %7s\n' step code took limit
    for i in "${!names[@]}"; do
        printf '%-28s %8s %3d s %5d s\n' "${names[$i]}" "${codes[$i]}" "${durations[$i]}" \
            "${limits[$i]}"
    done
} | tee "$out/summary.txt"
[[ -n $deps ]] && rm -rf "$deps"
if [[ ${GPU_CHECK_PACK:-0} == 1 ]]; then
    # The device tool brings back at most 8 files from $OUT: one archive of everything, with
    # the summary and the log beside it to read at once.
    echo "== packing $out into gpu-check.tar.gz"
    pack=$(mktemp -d "${TMPDIR:-/tmp}/iris-gui-gpu-pack.XXXXXX") \
        && tar -czf "$pack/gpu-check.tar.gz" -C "$out" --exclude gpu-check.log . \
        && find "$out" -mindepth 1 -maxdepth 1 ! -name summary.txt ! -name gpu-check.log \
            -exec rm -rf {} + \
        && mv "$pack/gpu-check.tar.gz" "$out/" && rmdir "$pack"
fi
finish 0
