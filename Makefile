# The README's two commands: `make run` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
# Compiled modules are cached (__pycache__, and pytest's rewritten tests): where the shell says
# not to, every test's process would compile the package from source again (the suite's
# collection alone took 12 s instead of 7).
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PIP_INSTALL := $(BIN)/python -m pip install --quiet -c constraints.txt

.PHONY: run test test-fast test-spawn test-loaded test-kernels lint bench bundle test-bundle clean

$(STAMP): pyproject.toml constraints.txt
	@echo "Installing iris-gui and its dependencies (torch, PySide6, ...) into $(VENV): a few minutes the first time"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# pyproject.toml allows a range of torch; constraints.txt pins the one tested here
	# (==2.13.0, a local CPU wheel): an unpinned torch would pull a multi-GB CUDA build.
	$(PIP_INSTALL) -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	@echo "Starting $(CURDIR)/$(BIN)/iris-gui $(ARGS) (in a fresh terminal: source $(VENV)/bin/activate, then iris-gui)"
	$(BIN)/iris-gui $(ARGS)

# Across every core (pytest-xdist), a test module per worker at a time: a module's shared
# fixtures (a store, a window, a sweep) are made once. Modules are handed out in the order
# tests/conftest.py gives them, longest first (xdist would otherwise order them by their number
# of tests, and a long module of few tests started last keeps one core busy alone at the end).
# WORKERS=0 runs in this process alone.
WORKERS ?= auto
PARALLEL := -n $(WORKERS) --dist loadfile --no-loadscope-reorder

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PARALLEL) $(PYTEST_ARGS)

# The inner loop: the engine, store, figures, report and CLI tests that start no process,
# compile nothing and train no whole run (under a minute on 2 cores).
FAST_TESTS := tests/engine tests/store tests/figures tests/report tests/cli
test-fast: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PARALLEL) -m 'not slow and not bundle and not kernels' $(FAST_TESTS) $(PYTEST_ARGS)

# Windows' and macOS' way of starting processes, simulated here: the window's worker and the
# loader's workers spawned (IRIS_GUI_START_METHOD, engine/spec/batch_settings.py), through the
# engine, command line, API and the window's real-worker tests. Not in `make test` (it roughly
# doubles their time: each spawned worker imports torch afresh).
SPAWN_TESTS := tests/engine tests/cli tests/api tests/ui/test_real_worker.py \
	tests/ui/test_failures.py tests/ui/test_quit_leaves_nothing.py tests/ui/test_data_parallel_window.py
test-spawn: $(STAMP)
	IRIS_GUI_START_METHOD=spawn QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PARALLEL) $(SPAWN_TESTS) $(PYTEST_ARGS)
# The whole suite with every core kept busy (two spinning processes per core, beside it): no
# test may depend on a quiet machine.
test-loaded: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python scripts/loaded.py -- $(BIN)/python -m pytest $(PARALLEL) $(PYTEST_ARGS)

# The persistent rung's Triton kernel on the CPU (Triton is about 1 GB, so it is not part of
# `make test`), pinned to the GPU server's Triton. First its numerics in Triton's interpreter,
# then, without the interpreter (Triton cannot compile under it), the kernel compiled ahead of
# time for sm_80 and sm_90: shared memory, registers and spills of every padded shape. On a
# CUDA machine `pytest -m cuda` runs the numerics on the device.
test-kernels: $(STAMP)
	$(PIP_INSTALL) 'triton==3.6.0'
	TRITON_INTERPRET=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m kernels tests/kernels --ignore=tests/kernels/test_kernel_fits.py $(PYTEST_ARGS)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m kernels tests/kernels/test_kernel_fits.py $(PYTEST_ARGS)

lint: $(STAMP)
	# Pinned: a newer ruff's default rules or mypy's inference would fail a tree that passed.
	$(BIN)/python -m pip install --quiet 'ruff==0.17.6' 'mypy==2.4.1'
	$(BIN)/ruff check iris_gui tests benchmarks
	$(BIN)/mypy iris_gui/engine iris_gui/store

# The one-folder app in dist/iris-gui/ (see build.spec); a few minutes on 2 cores.
bundle: $(STAMP)
	$(PIP_INSTALL) -e '.[test,build]'
	$(BIN)/pyinstaller --noconfirm --clean build.spec

# Builds the bundle and checks it: --self-test, --version, train --epochs 200 --json.
test-bundle: $(STAMP)
	$(PIP_INSTALL) -e '.[test,build]'
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m bundle tests/bundle $(PYTEST_ARGS)

# The engine, CLI and store tests against another torch of pyproject.toml's range, in its own
# environment .venv-compat-$(TORCH) (git-ignored; PyPI's CUDA build, several GB on first use,
# which runs on a machine without a GPU). Not part of `make test`; see scripts/test_compat.sh.
#   make test-compat TORCH=2.4.1      (the lowest declared; 2.11.0 is the GPU server's)
.PHONY: test-compat
test-compat:
	@test -n "$(TORCH)" || { echo "usage: make test-compat TORCH=2.4.1" >&2; exit 2; }
	PYTHON=$(PYTHON) scripts/test_compat.sh $(TORCH) $(PYTEST_ARGS)

# The GPU check end to end on the CPU, in a replica of the GPU machine's software (Python 3.12,
# torch 2.11, Triton 3.6, no Qt, no pytest-qt, no platformdirs) in .venv-gpu-image: a few GB
# on first use, so not part of `make test`, which runs tests/test_gpu_world.py's cheap version.
# See scripts/gpu_image.sh and docs/gpu-check.md.
.PHONY: test-gpu-image
test-gpu-image:
	scripts/gpu_image.sh

bench: $(STAMP)
	$(BIN)/python benchmarks/engine_overhead.py

clean:
	rm -rf $(VENV) build dist .pytest_cache

# The reliability trials with the long ones (IRIS_GUI_LONG_TRIALS=1): 50 trials of 8
# processes creating one new store, 30 of 8 opening a corrupt one, held write locks of every
# length, ... Several minutes; `make test` runs only their quick versions.
.PHONY: test-reliability
test-reliability: $(STAMP)
	IRIS_GUI_LONG_TRIALS=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest tests/reliability $(PYTEST_ARGS)
