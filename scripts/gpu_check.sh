#!/usr/bin/env bash
# The checks to run once on a GPU machine (the device tool's budget is small): the CUDA test
# cases that skip elsewhere, then the note's experiment and the explain breakdown on the GPU.
#
# Runs from the source tree (PYTHONPATH) with the machine's own Python: no virtual environment,
# no Qt, no display, no network. It needs python3 (3.10+) with torch (>=2.4; a CUDA build),
# scikit-learn, numpy and pytest. The small pure-Python dependencies it may lack (platformdirs,
# pytest-timeout) are installed from wheels/gpu/, which scripts/gpu_wheels.sh downloads
# beforehand on a connected machine, into a temporary folder that goes on PYTHONPATH; nothing
# is written to the system's site-packages. wheels/ is git-ignored: the device tool copies it
# only when the call carries it:
#     scripts/gpu_wheels.sh                                  (here, once, with network)
#     run(command="GPU_CHECK_PACK=1 scripts/gpu_check.sh", carry=["wheels"], timeout_s=590)
# GPU_CHECK_PACK=1 leaves in $OUT only summary.txt, gpu-check.log and gpu-check.tar.gz (all
# the rest), because the device tool brings back at most 8 files.
#
# Everything it writes (logs, JSON, CSV, the runs store, the summary) goes to ${OUT:-/tmp/gpu-check}.
# Each step has a time limit and the whole script stays within GPU_CHECK_BUDGET_S (500 s) plus
# a few seconds: a step that fails or times out is noted and the next one runs; the summary of
# exit codes comes last, and the exit status is 0 unless the output folder cannot be made.
#   PYTHON=.venv/bin/python scripts/gpu_check.sh    (another interpreter, e.g. make's .venv)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
py=${PYTHON:-python3}
out=${OUT:-/tmp/gpu-check}
wheels=${GPU_WHEELS:-$root/wheels/gpu}
budget=${GPU_CHECK_BUDGET_S:-500}
mkdir -p "$out" || { echo "gpu_check: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/gpu-check.log") 2>&1
log_pid=$!

deps=$(mktemp -d "${TMPDIR:-/tmp}/iris-gui-gpu-deps.XXXXXX")
export PYTHONPATH="$deps:$root${PYTHONPATH:+:$PYTHONPATH}"
export IRIS_GUI_DATA_DIR="$out/data" QT_QPA_PLATFORM=offscreen
start=$SECONDS
names=() codes=() durations=()

# step NAME LIMIT_S FILE COMMAND...: FILE (under $out) gets the command's stdout; a .txt file
# gets stderr too, a .json file's stderr goes to FILE.err.txt (kept only when not empty).
step() {
    local name=$1 limit=$2 file=$3 rc t0=$SECONDS
    shift 3
    local left=$((budget - (SECONDS - start)))
    ((left < limit)) && limit=$left
    if ((limit < 10)); then
        echo "== $name: skipped, the ${budget} s budget is spent"
        names+=("$name") codes+=("skipped") durations+=(0)
        return
    fi
    echo "== $name (at most ${limit} s) -> $file"
    if [[ $file == *.json ]]; then
        local err="$out/${file%.json}.err.txt"
        timeout -k 5 "$limit" "$@" >"$out/$file" 2>"$err"
        rc=$?
        tail -n 20 "$err"
        [[ -s $err ]] || rm -f "$err"
        echo "   $(wc -c <"$out/$file") bytes of JSON"
    else
        timeout -k 5 "$limit" "$@" >"$out/$file" 2>&1
        rc=$?
        tail -n 40 "$out/$file"
    fi
    ((rc == 124 || rc == 137)) && echo "   timed out after ${limit} s"
    names+=("$name") codes+=("$rc") durations+=($((SECONDS - t0)))
}

# need MODULE DIST: make MODULE importable, from $wheels when the interpreter lacks it.
need() {
    local module=$1 dist=$2 wheel
    "$py" -c "import $module" 2>/dev/null && return 0
    wheel=$(ls "$wheels"/"$dist"-*.whl 2>/dev/null | sort -V | tail -n 1)
    if [[ -z $wheel ]]; then
        echo "no $dist wheel in $wheels (run scripts/gpu_wheels.sh, and carry wheels/)"
        return 1
    fi
    if "$py" -m pip --version >/dev/null 2>&1; then
        "$py" -m pip install --quiet --disable-pip-version-check --no-index --no-deps \
            --target "$deps" "$wheel" || return 1
    else  # no pip: a pure-Python wheel is a zip of what goes into site-packages
        "$py" -m zipfile -e "$wheel" "$deps" || return 1
    fi
    "$py" -c "import $module"
}

echo "gpu_check: $(date -u +%FT%TZ), python: $(command -v "$py"), out: $out"
export -f need
export py wheels deps out
step "install platformdirs" 60 install-platformdirs.txt bash -c 'need platformdirs platformdirs'
if grep -q '^timeout *=' pyproject.toml; then  # the [tool.pytest.ini_options] option it reads
    step "install pytest-timeout" 60 install-pytest-timeout.txt \
        bash -c 'need pytest_timeout pytest_timeout'
fi
step "environment" 60 environment.txt bash -c '
    "$py" -c "import sys, torch, sklearn, numpy
print(\"python\", sys.version.split()[0], sys.executable)
print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, \"available\", torch.cuda.is_available())
for i in range(torch.cuda.device_count()):
    print(\"  cuda:%d\" % i, torch.cuda.get_device_name(i))
print(\"scikit-learn\", sklearn.__version__, \"numpy\", numpy.__version__)"
    status=$?
    command -v nvidia-smi >/dev/null && nvidia-smi -L
    exit $status'
step "devices" 60 devices.json "$py" -m iris_gui devices --json
step "cuda tests" 240 cuda-tests.txt "$py" -m pytest -m cuda -q -rs -p no:cacheprovider tests
# The engine ladder on every device (the note's loop first on each), then the note's own
# experiment (every recording choice), then what the issues ask to be measured on a GPU.
step "ladder" 200 ladder.txt "$py" -m iris_gui compare --engines all --devices all
step "sweep" 150 sweep.txt "$py" -m iris_gui sweep --devices all \
    --engines eager,graph,persistent --threads 1,all --min-seconds 0.2
step "compare" 150 compare.txt "$py" -m iris_gui compare --devices all \
    --records every-epoch,every:200,device,none --repeat 3
step "explain cuda" 60 explain-cuda.txt "$py" -m iris_gui explain --device cuda
step "chunk sync cuda" 90 chunk-sync-cuda.txt "$py" benchmarks/chunk_sync.py --device cuda \
    --repeat 3
step "ladder benchmark cuda" 150 ladder-bench-cuda.txt "$py" benchmarks/ladder.py \
    --device cuda --repeat 3 --engines eager,lean,manual,graph,persistent
step "explain cuda graph" 60 explain-cuda-graph.txt "$py" -m iris_gui explain --device cuda \
    --engine graph --record device
step "explain cuda persistent" 60 explain-cuda-persistent.txt "$py" -m iris_gui explain \
    --device cuda --engine persistent --record device
step "explain cuda, record none" 60 explain-cuda-none.json \
    "$py" -m iris_gui explain --device cuda --record none --json
step "explain cpu" 60 explain-cpu.json "$py" -m iris_gui explain --device cpu --json
step "export runs" 30 export-runs.txt "$py" -m iris_gui runs export --csv "$out/runs.csv"
step "loss curves" 30 loss-curves.txt bash -c '
    ids=$("$py" -m iris_gui runs list --json | "$py" -c "import json, sys
print(\",\".join(str(run[\"id\"]) for run in json.load(sys.stdin)))") || exit 1
    [ -n "$ids" ] || { echo "no stored runs"; exit 1; }
    "$py" -m iris_gui plot --runs "$ids" --out "$out/loss-curves.csv"'

echo
echo "== summary (exit codes; 124 = timed out) after $((SECONDS - start)) s, files in $out"
for i in "${!names[@]}"; do
    printf '%-28s %8s %5s s\n' "${names[$i]}" "${codes[$i]}" "${durations[$i]}"
done | tee "$out/summary.txt"
rm -rf "$deps"
if [[ ${GPU_CHECK_PACK:-0} == 1 ]]; then
    # The device tool brings back at most 8 files from $OUT: one archive of everything, with
    # the summary and the log beside it to read at once.
    echo "== packing $out into gpu-check.tar.gz"
    tar -czf "${TMPDIR:-/tmp}/gpu-check.tar.gz" -C "$out" --exclude gpu-check.log . \
        && find "$out" -mindepth 1 -maxdepth 1 ! -name summary.txt ! -name gpu-check.log \
            -exec rm -rf {} + \
        && mv "${TMPDIR:-/tmp}/gpu-check.tar.gz" "$out/"
fi
exec >&- 2>&-
wait "$log_pid" 2>/dev/null
exit 0
