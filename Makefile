# The README's two commands: `make run` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PIP_INSTALL := $(BIN)/python -m pip install --quiet -c constraints.txt

.PHONY: run test test-kernels lint bench bundle test-bundle clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# pyproject.toml allows a range of torch; constraints.txt pins the one tested here
	# (==2.13.0, a local CPU wheel): an unpinned torch would pull a multi-GB CUDA build.
	$(PIP_INSTALL) -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/iris-gui $(ARGS)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PYTEST_ARGS)

# The persistent rung's Triton kernel on the CPU, in Triton's interpreter (Triton is about 1 GB,
# so it is not part of `make test`); on a CUDA machine `pytest -m cuda` runs the same tests on
# the device.
test-kernels: $(STAMP)
	$(PIP_INSTALL) 'triton>=3.0'
	TRITON_INTERPRET=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m kernels tests/kernels $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/python -m pip install --quiet ruff
	$(BIN)/ruff check iris_gui tests benchmarks

# The one-folder app in dist/iris-gui/ (see build.spec); a few minutes on 2 cores.
bundle: $(STAMP)
	$(PIP_INSTALL) -e '.[test,build]'
	$(BIN)/pyinstaller --noconfirm --clean build.spec

# Builds the bundle and checks it: --self-test, --version, train --epochs 200 --json.
test-bundle: $(STAMP)
	$(PIP_INSTALL) -e '.[test,build]'
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m bundle tests/bundle $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/engine_overhead.py

clean:
	rm -rf $(VENV) build dist .pytest_cache
