#!/usr/bin/env bash
# On a machine with network, before a GPU check: download the small pure-Python wheels that
# scripts/gpu_check.sh installs on a GPU server whose Python lacks them, into wheels/gpu/
# (git-ignored: the device tool copies it only when the call carries it, carry=["wheels"]).
#
# What the check's steps import beyond the server's own packages (a CUDA torch, scikit-learn,
# numpy, numba, triton, pytest):
#   platformdirs    tests/test_isolation.py and tests/store/test_store_paths.py import it, and
#                   iris_gui.store.paths without IRIS_GUI_DATA_DIR (the script sets it);
#   pytest-timeout  pyproject.toml's [tool.pytest.ini_options] timeout (without it pytest only
#                   warns about an unknown option, and a hung test waits for the step's limit).
# Nothing else: PySide6, pyqtgraph and pytest-qt are not pure Python and the GUI's tests are
# reported as skipped without them. The version ranges are read from pyproject.toml (its
# dependencies and its test extra), so the two cannot drift apart.
#   scripts/gpu_wheels.sh            (GPU_PYTHON_VERSION=3.12: the server's Python)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=wheels/gpu
py=${PYTHON:-python3}
dists=(platformdirs pytest-timeout)
mkdir -p "$dest"
# Each distribution with its range as pyproject.toml declares it (the name alone if absent).
mapfile -t specs < <("$py" - "${dists[@]}" <<'PY'
import re
import sys

text = open("pyproject.toml", encoding="utf-8").read()
for name in sys.argv[1:]:
    found = re.search(r'"(%s\s*(?:[<>=!~][^";]*)?)"' % re.escape(name), text)
    print(found.group(1).replace(" ", "") if found else name)
PY
)
echo "gpu_wheels: ${specs[*]} for Python ${GPU_PYTHON_VERSION:-3.12} into $dest"
"$py" -m pip download --quiet --disable-pip-version-check --only-binary :all: --no-deps \
    --python-version "${GPU_PYTHON_VERSION:-3.12}" --implementation py --abi none \
    --platform any --dest "$dest" "${specs[@]}"
for dist in "${dists[@]}"; do
    ls "$dest/${dist//-/_}"-*-none-any.whl >/dev/null 2>&1 \
        || { echo "gpu_wheels: no pure-Python wheel of $dist in $dest" >&2; exit 1; }
done
ls -l "$dest"
