#!/usr/bin/env bash
# make test-gpu-image: the GPU check run end to end here, on the CPU, in a replica of the GPU
# machine's software: its Python (3.12), torch 2.11.0 (PyPI's CUDA build, which runs without a
# GPU), triton 3.6.0 and the rest of scripts/gpu_image/packages.txt, in .venv-gpu-image
# (git-ignored; about 5 GB on first use), and without what that machine lacks (PySide6,
# pyqtgraph, pytest-qt, platformdirs). In it:
#   1. nothing the machine lacks is importable;
#   2. every CUDA and kernel test file the check names collects with the project's own pytest
#      configuration (pyproject.toml, tests/conftest.py), and every CUDA case skips, saying why;
#   3. the warning filters hold against torch 2.11's inductor made to believe it runs on sm_90
#      (tests/engine/rungs/test_tf32_advice.py), beside the CUDA stand-ins and the GPU world's
#      tests;
#   4. both calls of scripts/gpu_check.sh, with their real budgets, packing and $OUT, each
#      judged by scripts/gpu_check/verdict.py: every step completed or said "no CUDA", none
#      failed for an import, an option or a warning;
#   5. both calls again with the CPU in place of the CUDA device (GPU_CHECK_AS_CPU=1), so that
#      every step's command runs whole: each completes, says its engine needs CUDA, or is
#      stopped at a limit sized for a GPU, never refused for its arguments.
# Run it before a change to CUDA code, scripts/gpu_check or the pytest configuration lands.
#   scripts/gpu_image.sh            (GPU_IMAGE_PYTHON: a Python 3.12 other than the one found)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-gpu-image
py=$venv/bin/python
packages=scripts/gpu_image/packages.txt
stamp=$venv/.installed-stamp
find_python() {
    for candidate in "${GPU_IMAGE_PYTHON:-}" python3.12 "$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python; do
        if [[ -n $candidate ]] && command -v "$candidate" >/dev/null 2>&1 \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
            echo "$candidate"
            return
        fi
    done
    echo "gpu_image: no Python 3.12 here (the GPU machine's); set GPU_IMAGE_PYTHON" >&2
    exit 1
}
if [[ ! -f $stamp || $packages -nt $stamp ]]; then
    rm -rf "$venv"
    "$(find_python)" -m venv "$venv"
    "$py" -m pip install --quiet --upgrade pip
    echo "gpu_image: installing $(grep -vc '^#' "$packages") packages into $venv (minutes, a few GB, on first use)"
    "$py" -m pip install --quiet -r "$packages"
    touch "$stamp"
fi
log=$(mktemp -d /tmp/iris-gui-gpu-image.XXXXXX)
echo "gpu_image: $("$py" -c 'import sys, torch, triton; print(f"Python {sys.version.split()[0]}, torch {torch.__version__}, triton {triton.__version__}")'), logs in $log"

echo "== 1. what the GPU machine lacks is absent"
"$py" - <<'PY'
import importlib.util, sys
present = [m for m in ("PySide6", "pyqtgraph", "pytestqt", "platformdirs")
           if importlib.util.find_spec(m) is not None]
sys.exit(f"gpu_image: the replica holds {', '.join(present)}, which the GPU machine lacks"
         if present else 0)
PY

files() {  # the test files the check's steps name: plan.CUDA_TEST_FILES and the like
    (cd scripts/gpu_check && "../../$py" -c "import plan; print(' '.join($1))")
}
echo "== 2. the check's test files collect with the project's configuration; CUDA cases skip"
cuda_files=$(files "plan.CUDA_TEST_FILES + plan.COMPILED_TEST_FILES")
kernel_files=$(files plan.KERNEL_TEST_FILES)
# shellcheck disable=SC2086
"$py" -m pytest -q -p no:cacheprovider -m "cuda and not kernels" -rs $cuda_files 2>&1 | tee "$log/cuda-tests.txt" | tail -3
grep -Eq "^[0-9]+ skipped" "$log/cuda-tests.txt" && ! grep -Eq "failed|error" "$log/cuda-tests.txt" \
    || { echo "gpu_image: the CUDA tests did not all collect and skip"; exit 1; }
# shellcheck disable=SC2086
"$py" -m pytest -q -p no:cacheprovider -m kernels --collect-only $kernel_files 2>&1 | tee "$log/kernel-tests.txt" | tail -1
grep -Eq "[0-9]+ tests? collected" "$log/kernel-tests.txt" || { echo "gpu_image: the kernel tests did not collect"; exit 1; }

echo "== 3. the warning filters against torch 2.11's inductor on a make-believe sm_90, and the GPU world"
"$py" -m pytest -q -p no:cacheprovider tests/engine/rungs/test_tf32_advice.py \
    tests/engine/train/test_cuda_stand_ins.py tests/test_gpu_world.py 2>&1 | tail -2

echo "== 4. both calls of the check, with their real budgets"
for call in first rest; do
    out=$log/out-$call
    OUT=$out PYTHON=$py bash scripts/gpu_check.sh "$call" > "$log/check-$call.txt" 2>&1 || true
    grep -E "^== summary" "$log/check-$call.txt" || { tail -5 "$log/check-$call.txt"; exit 1; }
    "$py" scripts/gpu_check/verdict.py "$out" --no-cuda
done
echo "== 5. both calls with the CPU in place of CUDA: every command runs whole"
for call in first rest; do
    out=$log/cpu-$call
    GPU_CHECK_AS_CPU=1 OUT=$out PYTHON=$py bash scripts/gpu_check.sh "$call" > "$log/cpu-check-$call.txt" 2>&1 || true
    grep -E "^== summary" "$log/cpu-check-$call.txt" || { tail -5 "$log/cpu-check-$call.txt"; exit 1; }
    "$py" scripts/gpu_check/verdict.py "$out" --no-cuda
done
echo "gpu_image: passed"
