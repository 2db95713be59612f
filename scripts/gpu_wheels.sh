#!/usr/bin/env bash
# On a machine with network, before a GPU check: download the small pure-Python wheels that
# scripts/gpu_check.sh installs on a GPU server whose Python lacks them, into wheels/gpu/
# (git-ignored: the device tool copies it only when the call carries it, carry=["wheels"]).
# Keep the ranges in step with pyproject.toml's dependencies and its test extra.
#   scripts/gpu_wheels.sh            (GPU_PYTHON_VERSION=3.12: the server's Python)
set -euo pipefail
cd "$(dirname "$0")/.."
dest=wheels/gpu
mkdir -p "$dest"
"${PYTHON:-python3}" -m pip download --quiet --disable-pip-version-check --only-binary :all: \
    --no-deps --python-version "${GPU_PYTHON_VERSION:-3.12}" --dest "$dest" \
    'platformdirs>=3' 'pytest-timeout>=2.3'
ls -l "$dest"
