# Burrow. `make run` sets everything up and opens the app; `make test` sets everything up and tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.burrow-installed
MODEL := models/SmolLM2-135M-Instruct.Q4_1.gguf

.PHONY: setup run test lint bench package clean

setup: $(STAMP) $(MODEL)

$(STAMP): pyproject.toml
	@bash scripts/system_deps.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

$(MODEL): models/catalog.json | $(STAMP)
	$(PY) scripts/fetch_default_model.py

run: setup
	$(PY) -m app $(ARGS)

test: setup
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest $(PYTEST_ARGS)

lint: setup
	$(PY) -m ruff check app tests bench packaging scripts
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) -m bench

package: setup
	bash packaging/build_linux.sh

clean:
	rm -rf $(VENV) build dist packaging/build packaging/dist
