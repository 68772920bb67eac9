# One entry point for people and CI. Every target installs what it needs first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
PY := $(VENV)/bin/python
export PYTHONPATH := $(CURDIR)/lambda_src:$(CURDIR)
export UV_PROJECT_ENVIRONMENT := $(CURDIR)/$(VENV)

.PHONY: help dev test lint typecheck unit functional lambda bench clean

help:
	@echo "make dev     serve locally on 127.0.0.1:\$${PORT:-8000} (MCP at /mcp), AWS embedded via moto"
	@echo "make test    install what is missing, then lint, type-check and run every test layer"
	@echo "make bench   benchmarks: ours against the official SDK baseline, printed as ratios"

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

# The lockfile is the source of truth; --frozen fails instead of silently re-resolving.
$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --quiet
	@touch $@

dev: $(VENV)/.synced
	$(PY) -m widget_mcp.local

lint: $(VENV)/.synced
	$(VENV)/bin/ruff check lambda_src tests bench
	$(VENV)/bin/ruff format --check lambda_src tests bench

typecheck: $(VENV)/.synced
	$(VENV)/bin/mypy

test: lint typecheck
	$(PY) -m pytest

bench: $(VENV)/.synced
	$(PY) -m bench.endpoint

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .mypy_cache .ruff_cache
