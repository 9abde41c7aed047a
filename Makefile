# Burrow. `make run` sets everything up and opens the app; `make test` sets everything up and tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.burrow-installed
# the default model (models/catalog.json "default") and the small model the real-model tests use
MODELS := models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf models/SmolLM2-135M-Instruct.Q4_1.gguf
# llama-cpp-python, on Linux x86-64: the portable wheel the installer tests bundle, so one compile
# (~6 min on 2 cores, then cached in ~/.cache/burrow-build) serves .venv and the bundle. `test` is
# a reduced CPU variant set (x64 haswell icelake); CPU_VARIANTS=all builds every variant (what
# `make package` ships). Elsewhere pip compiles llama-cpp-python natively. See docs/packaging.md.
CPU_VARIANTS ?= test
# Two pytest workers (pytest-xdist): half the suite's time waits on subprocesses, sockets and Qt
# (measured 7 min 51 s -> 3 min 38 s on 2 cores); folders that share a session fixture stay on one
# worker (--dist loadgroup, tests/conftest.py). PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2

.PHONY: setup run test lint bench package clean

setup: $(STAMP) $(MODELS)

$(STAMP): pyproject.toml packaging/build_portable_wheel.sh
	@bash scripts/system_deps.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@if [ "$$(uname -sm)" = "Linux x86_64" ]; then \
	  wheel=$$(PYTHON=$(PY) BURROW_CPU_VARIANTS=$(CPU_VARIANTS) bash packaging/build_portable_wheel.sh) && \
	  echo "llama-cpp-python: $$wheel" && \
	  $(PY) -m pip install -q --force-reinstall --no-deps "$$wheel"; fi
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

$(MODELS) &: models/catalog.json | $(STAMP)
	$(PY) scripts/fetch_default_model.py
	@touch $(MODELS)

run: setup
	$(PY) -m app $(ARGS)

test: setup
	QT_QPA_PLATFORM=offscreen BURROW_CPU_VARIANTS=$(CPU_VARIANTS) $(PY) -m pytest \
	  -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

lint: setup
	$(PY) -m ruff check app tests bench packaging scripts
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) -m bench

package: setup
	BURROW_CPU_VARIANTS=all bash packaging/build_linux.sh

clean:
	rm -rf $(VENV) build dist packaging/build packaging/dist
