# osaurus-memory: one entry point for install, run, test, lint and benchmarks. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin

.PHONY: help install run test lint typecheck proto proto-check bench clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

install: ## Create .venv and install pinned deps, models, OpenBLAS (root) and Node test deps; no-op when current
	@bash scripts/install.sh

run: install ## Start memoryd, inferd, plugin_host and the HTTP gateway on loopback and wait until each answers
	$(PY) scripts/run_all.py

test: install ## Run the whole test suite (PostgreSQL tests fail instead of skipping when the server cannot start)
	OSAURUS_REQUIRE_POSTGRES=1 $(PY) -m pytest -q

lint: install ## buf lint, ruff check + format check, protobuf drift check, import contracts
	$(BIN)/buf lint
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(PY) scripts/gen_protos.py --check
	$(BIN)/lint-imports

typecheck: install ## mypy --strict on servicekit, memoryd, inferd, plugin_host, gateway
	$(BIN)/mypy

proto: install ## Regenerate protos/gen from protos/osaurus/**/*.proto
	$(PY) scripts/gen_protos.py

proto-check: install ## Fail if protos/gen differs from what the .proto files generate
	$(PY) scripts/gen_protos.py --check

bench: install ## Run every bench/bench_*.py and write docs/benchmarks.md
	$(PY) -m bench

clean: ## Remove .venv, node_modules and caches (keeps the data under OSAURUS_HOME)
	rm -rf $(VENV) tests/node/node_modules .pytest_cache .mypy_cache .ruff_cache .import_linter_cache build *.egg-info
	find . -path ./.git -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
