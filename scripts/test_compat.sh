#!/usr/bin/env bash
# The engine, CLI and store tests against another torch of the range pyproject.toml declares,
# in an environment of its own, .venv-compat-<version> (git-ignored), so that the range is a
# tested one rather than a hope: `make test` pins the newest (constraints.txt).
#   scripts/test_compat.sh 2.4.1 [pytest args]      (or: make test-compat TORCH=2.4.1)
# The torch is PyPI's wheel for Linux, a CUDA build: several GB with its nvidia-* packages on
# first use (it imports and runs on a machine without a GPU; the cuda-marked tests skip).
# constraints.txt is not used: it pins the torch `make test` runs. The torch asked for is pinned
# instead, so resolving the project's other dependencies cannot move it.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/test_compat.sh TORCH_VERSION [pytest args], e.g. 2.4.1}
shift
venv=.venv-compat-$version
py=$venv/bin/python
stamp=$venv/.installed-stamp
if [[ ! -f $stamp || pyproject.toml -nt $stamp ]]; then
    test -x "$py" || "${PYTHON:-python3}" -m venv "$venv"
    "$py" -m pip install --quiet --upgrade pip
    echo "torch==$version" > "$venv/constraints.txt"
    echo "test_compat: installing torch==$version into $venv (a CUDA build: minutes on first use)"
    "$py" -m pip install --progress-bar off -c "$venv/constraints.txt" "torch==$version"
    "$py" -m pip install --quiet -c "$venv/constraints.txt" -e '.[test]'
    touch "$stamp"
fi
# A later pip install by hand could have replaced it; the results would then name the wrong one.
"$py" - "$version" <<'PY'
import sys
import torch
wanted = sys.argv[1]
print(f"test_compat: torch {torch.__version__} (CUDA build {torch.version.cuda}, "
      f"device available: {torch.cuda.is_available()}), Python {sys.version.split()[0]}")
installed = torch.__version__.split("+")[0]
if installed != wanted and not installed.startswith(wanted + "."):
    sys.exit(f"test_compat: expected torch {wanted}; remove the environment and run again")
PY
# -rfEs: the summary names each failure and error (pyproject's addopts names only the skips).
QT_QPA_PLATFORM=offscreen exec "$py" -m pytest -rfEs tests/engine tests/cli tests/store "$@"
