# The README's two commands: `make run` and `make test`. Each creates .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint bench bundle test-bundle clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch is pinned in pyproject.toml (==2.13.0): here that is a local CPU wheel; an
	# unpinned torch would pull a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/iris-gui $(ARGS)

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/python -m pip install --quiet ruff
	$(BIN)/ruff check iris_gui tests benchmarks

# The one-folder app in dist/iris-gui/ (see build.spec); a few minutes on 2 cores.
bundle: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,build]'
	$(BIN)/pyinstaller --noconfirm --clean build.spec

# Builds the bundle and checks it: --self-test, --version, train --epochs 200 --json.
test-bundle: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,build]'
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -m bundle tests/bundle $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python benchmarks/engine_overhead.py

clean:
	rm -rf $(VENV) build dist .pytest_cache
