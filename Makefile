# One entry point for people and CI. Every target installs what it needs first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
UV_VERSION := 0.13.9
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
PY := $(VENV)/bin/python
# tests/conformance: the conformance suite's fixture app (CONFORMANCE=1), which the package does not ship.
export PYTHONPATH := $(CURDIR)/lambda_src:$(CURDIR):$(CURDIR)/tests/conformance
export UV_PROJECT_ENVIRONMENT := $(CURDIR)/$(VENV)

.PHONY: help dev test tutorial-check docs lint typecheck unit functional lambda bench fuzz clean

help:
	@echo "make dev     serve locally on 127.0.0.1:\$${PORT:-8000} (MCP at /mcp), AWS embedded via moto"
	@echo "make test    install what is missing, then lint, type-check and run every test layer"
	@echo "make tutorial-check  follow the tutorial (docs/tutorial.md) in a copy, then run that copy's make test (minutes)"
	@echo "make dist    build the wheel and the sdist into dist/ (the toolkit, its prebuilt widget bundles, widget-mcp new)"
	@echo "make docs    build the docs site (docs/, mkdocs.yml) into build/docs/, offline; open build/docs/index.html"
	@echo "make bench   benchmarks: ours against the official SDK and awslabs' handler, printed as one table"
	@echo "make fuzz    the long fuzzing run (make test runs a short, seeded one)"
	@echo "make load    virtual users play chess and answer forms against make dev (USERS=20 DURATION=45, URL=…): latency, errors, ledger"
	@echo "make cost    DynamoDB units, duration and requests per tool call, priced per million calls and per session"
	@echo "make log-ref ID=…  the logs' ref for a game or form id (saved query one-game), key from REQUEST_STATE_SECRET(_ARN)"
	@echo "make widgets build the widget bundles (widget_bundles/dist) when stale; dev, test and bench do it first"
	@echo "make synth   synthesize the CDK app into cdk.out/ (CDK_ARGS='-c stage=prod' etc.)"
	@echo "make deploy  cdk deploy the stack (needs AWS credentials and a bootstrapped account: make bootstrap)"
	@echo "make destroy cdk destroy the stack, with the same context as make deploy (CDK_ARGS, cdk.context.json)"
	@echo "make asset   build the Lambda code asset (arm64, Python 3.13) and print its size"
	@echo "make asset-smoke  run that asset's handler under Debian's arm64 Python 3.13 (qemu) against moto"
	@echo "make check-app URL=https://…/mcp   the ChatGPT/MCP Apps readiness check against an endpoint"
	@echo "make reviewer-account [STACK=WidgetMcp] [REVIEWER_ARGS=--rotate]   a reviewer's sign-in, password in Secrets Manager"
	@echo "make submission [APP=chess] URL=https://…/mcp REGISTRY_NAME=io.github.you/chess PAGES=https://<cdn>   the directories' files, in build/submission/"
	@echo "make app NAME=weather [WIDGET=1]    scaffold a new app (and its own widget), its tests, and register it"
	@echo "make app NAME=notes STATE=1         scaffold an app that keeps state (repository, service, handlers, a race test)"
	@echo "make test-app NAME=weather          lint one app's files and run its own tests (installs the test tools only)"
	@echo "make clients install the client matrix's MCP clients (TypeScript SDK v1 and v2, mcp-remote, the AI SDK, Mastra and OpenAI Agents JS, Python SDK 1.x, fastmcp) and the Python agent frameworks"
	@echo "make lint    ruff's lint and format check of lambda_src, tests, bench, infra and integrations"
	@echo "make format  rewrite those files as ruff formats them (NAME=weather: one app's files)"
	@echo "make conformance  the official MCP conformance suite against CONFORMANCE=1 make dev; prints the score"
	@echo "make test-openwebui  the Open WebUI 0.12.4 layer (its own cached environment, a scripted model, Chromium)"

# First-time steps say what they install and about how much before they start, and end in one sentence if they fail
# (after the tool's own message): the usual cause is no network. Later runs reuse .venv, node_modules and the caches.
offline = { echo "$(1) failed; the first time it downloads from $(2): check the network (or HTTPS_PROXY) and run it again" >&2; exit 1; }

$(UV):
	@echo "==> installing uv $(UV_VERSION) into $(TOOLS)/ (about 60 MB from PyPI, once)"
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) || $(call offline,installing uv,PyPI)

# The lockfile is the source of truth; --frozen fails instead of silently re-resolving. Compiled at install:
# PYTHONDONTWRITEBYTECODE is common here, so nothing would ever cache bytecode and every run would recompile.
$(VENV)/.synced: pyproject.toml uv.lock | $(UV)
	@echo "==> installing every locked Python package into $(VENV)/: runtime, test, CDK, benchmark and docs tools (about 1.2 GB in all from PyPI, a few minutes the first time)"
	$(UV) sync --frozen --quiet --compile-bytecode || $(call offline,installing the Python packages,PyPI)
	@touch $@ $(VENV)/.synced-local $(VENV)/.synced-test $(VENV)/.synced-docs

# `make dev` alone installs the runtime and the local group only (moto, uvicorn), never the test, CDK or
# benchmark tools; --inexact keeps what a `make test` installed before.
$(VENV)/.synced-local: pyproject.toml uv.lock | $(UV)
	@echo "==> installing the runtime and make dev's local tools into $(VENV)/ (about 310 MB from PyPI the first time)"
	$(UV) sync --frozen --quiet --compile-bytecode --no-default-groups --group local --inexact \
		|| $(call offline,installing the Python packages,PyPI)
	@touch $@

# The test tools (the dev group, with the local one) without CDK or the benchmarks: `make lint` and `make test-app`.
$(VENV)/.synced-test: pyproject.toml uv.lock | $(UV)
	@echo "==> installing the test tools into $(VENV)/ (about 600 MB from PyPI the first time)"
	$(UV) sync --frozen --quiet --compile-bytecode --no-default-groups --group dev --inexact \
		|| $(call offline,installing the Python packages,PyPI)
	@touch $@

# The docs site's tools (the docs group: MkDocs Material, mkdocstrings) for `make docs`, nothing else.
$(VENV)/.synced-docs: pyproject.toml uv.lock | $(UV)
	@echo "==> installing the docs tools into $(VENV)/ (about 120 MB from PyPI the first time)"
	$(UV) sync --frozen --quiet --compile-bytecode --no-default-groups --group docs --inexact \
		|| $(call offline,installing the Python packages,PyPI)
	@touch $@

# --- widget bundles (widget_bundles/README.md): rebuilt when the lockfile or any source is newer than the stamp ---
.PHONY: widgets
WIDGETS := widget_bundles
WIDGET_DEPS := $(WIDGETS)/node_modules/.ci-stamp
WIDGET_STAMP := $(WIDGETS)/dist/.build-stamp
WIDGET_SOURCES := $(shell find $(WIDGETS)/src $(WIDGETS)/plugins -type f 2>/dev/null) \
	$(addprefix $(WIDGETS)/,package.json vite.config.ts tsconfig.json)

$(WIDGET_DEPS): $(WIDGETS)/package-lock.json
	@echo "==> installing the widgets' npm packages into $(WIDGETS)/node_modules (about 110 MB from the npm registry)"
	npm ci --prefix $(WIDGETS) --no-audit --no-fund --loglevel=error || $(call offline,npm ci,the npm registry)
	@touch $@

$(WIDGET_STAMP): $(WIDGET_DEPS) $(WIDGET_SOURCES)
	@echo "==> building the widget bundles into $(WIDGETS)/dist (type check, then Vite; no network)"
	npm run --prefix $(WIDGETS) --silent build
	@touch $@

widgets: $(WIDGET_STAMP)

# The test-only MCP Apps reference host on ext-apps' AppBridge (tests/browser/ext_apps_host), type-checked and built
# with the widgets' locked node_modules into its own dist/ (never widget_bundles/dist, which ships), when stale.
EXT_APPS_HOST := tests/browser/ext_apps_host
EXT_APPS_HOST_STAMP := $(EXT_APPS_HOST)/dist/.build-stamp
EXT_APPS_HOST_SOURCES := $(shell find $(EXT_APPS_HOST) -path $(EXT_APPS_HOST)/dist -prune -o -type f -print 2>/dev/null) \
	$(WIDGETS)/vite.ext-apps-host.config.ts

$(EXT_APPS_HOST_STAMP): $(WIDGET_DEPS) $(EXT_APPS_HOST_SOURCES)
	cd $(WIDGETS) && node_modules/.bin/tsc --noEmit -p ../$(EXT_APPS_HOST)/tsconfig.json \
		&& node_modules/.bin/vite build --config vite.ext-apps-host.config.ts
	@touch $@

# The client matrix (tests/clients): the MCP clients hosts run, each locked, installed again only when its lock
# changes. The TypeScript ones share one npm project; each Python one gets a venv of its own in .clients/, from a
# hashed lock (uv.lock holds mcp 2.x; mcp 1.x cannot sit beside it, and fastmcp's dependencies stay out of it).
.PHONY: clients client-locks
CLIENTS_NODE := tests/clients/node
CLIENTS_NODE_DEPS := $(CLIENTS_NODE)/node_modules/.ci-stamp
CLIENT_ENVS := .clients
CLIENT_PYTHON_STAMPS := $(patsubst tests/clients/python/%.txt,$(CLIENT_ENVS)/%/.synced,$(wildcard tests/clients/python/*.txt))

$(CLIENTS_NODE_DEPS): $(CLIENTS_NODE)/package-lock.json
	npm ci --prefix $(CLIENTS_NODE) --no-audit --no-fund --prefer-offline --loglevel=error
	@touch $@

$(CLIENT_ENVS)/%/.synced: tests/clients/python/%.txt | $(UV)
	$(UV) venv --quiet --allow-existing --no-python-downloads --python $(PYTHON) $(CLIENT_ENVS)/$*
	$(UV) pip sync --quiet --require-hashes --compile-bytecode --python $(CLIENT_ENVS)/$*/bin/python $<
	@touch $@

clients: $(CLIENTS_NODE_DEPS) $(CLIENT_PYTHON_STAMPS)

# The third-party widget hosts the browser layer drives (tests/browser/inspectors): the MCPJam and mcp-use inspectors,
# locked, installed again only when the lock changes. No install scripts: none is needed to run them, and Sentry's
# CLI would fetch a binary from outside npm.
INSPECTORS := tests/browser/inspectors
INSPECTORS_DEPS := $(INSPECTORS)/node_modules/.ci-stamp

$(INSPECTORS_DEPS): $(INSPECTORS)/package-lock.json
	@echo "==> installing the MCPJam and mcp-use inspectors into $(INSPECTORS)/node_modules (about 1.3 GB from the npm registry, once)"
	npm ci --prefix $(INSPECTORS) --no-audit --no-fund --prefer-offline --ignore-scripts --loglevel=error \
		|| $(call offline,installing the inspectors,the npm registry)
	@touch $@

# The Python clients' locks again from their pins (tests/clients/python/*.in): hashed, for any Python 3.11+.
client-locks: | $(UV)
	for pins in tests/clients/python/*.in; do \
		$(UV) pip compile --quiet --universal --generate-hashes --python-version 3.11 \
			--custom-compile-command "make client-locks" "$$pins" -o "$${pins%.in}.txt" || exit 1; \
	done

# Reloads as you edit (docs/quickstart.md): Python under lambda_src/ restarts the app, Vite rebuilds the widgets
# (watch mode, beside the server), moto and its state keep running. RELOAD=0 make dev serves once.
dev: $(VENV)/.synced-local $(WIDGET_STAMP)
	$(PY) -m widget_mcp.local

# ruff, then the import-circle check (tests/import_cycles.py: lazy and TYPE_CHECKING imports count too), with the test
# tools alone (the dev group), not the CDK and benchmark packages a newcomer's `make lint` has no use for.
LINTED := lambda_src tests bench infra integrations
FORMAT_HINT := formatting differs from ruff's (the files above): \`make format

lint: $(VENV)/.synced-test
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED) || { echo "$(FORMAT_HINT)\` rewrites them" >&2; exit 1; }
	$(VENV)/bin/python -m tests.import_cycles lambda_src/widget_mcp infra bench widget_bundles/src

# ruff's formatter, and its import sorting, over what `make lint` checks; NAME=weather: that app's files only.
.PHONY: format
format: $(VENV)/.synced-test
	$(VENV)/bin/ruff check --fix-only --select I $(if $(NAME),$(APP_FILES),$(LINTED))
	$(VENV)/bin/ruff format $(if $(NAME),$(APP_FILES),$(LINTED))

typecheck: $(VENV)/.synced
	$(VENV)/bin/mypy

# The Open WebUI layer is `make test-openwebui`'s (it needs its own 3 GB environment); .ci/run runs it too.
# Spread over one pytest-xdist worker per core (TEST_WORKERS=0: one process), a test file whole on one worker and
# files that share a costly fixture together (tests/worker_groups.py).
TEST_WORKERS ?= auto
test: lint typecheck $(WIDGET_STAMP) $(EXT_APPS_HOST_STAMP) clients $(INSPECTORS_DEPS)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --ignore=tests/openwebui

# The tutorial (docs/tutorial.md) followed word for word in a copy (both ways: as written, and WIDGET=1), then the copy's own
# `make test` (tests/tutorial_check.py). Minutes: .ci/run runs it after `make test`, which keeps its quick tutorial test.
tutorial-check: $(VENV)/.synced $(WIDGET_DEPS)
	$(PY) tests/tutorial_check.py

# The site from docs/ (its API reference read from lambda_src's docstrings, without importing them) and the guides it
# includes; strict: a broken link or anchor, or a page left out of the nav, fails it. `make test` builds it too
# (tests/functional/test_docs_site.py). No network: nothing is fetched, and the pages load nothing from elsewhere.
docs: $(VENV)/.synced-docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet
	@echo "docs: build/docs/index.html"

bench: $(VENV)/.synced $(WIDGET_STAMP)
	$(PY) -m bench $(BENCH_ARGS)

# Against make dev's server, started for the run with the per-caller limits raised (bench/load.py), or URL=https://…
.PHONY: load cost log-ref
load: $(VENV)/.synced-local $(WIDGET_STAMP)
	$(PY) -m bench.load $(if $(USERS),--users $(USERS)) $(if $(DURATION),--duration $(DURATION)) $(if $(URL),--url $(URL)) $(if $(SCENARIO),--scenario $(SCENARIO))

cost: $(VENV)/.synced-local
	$(PY) -m bench.cost

# The `ref` one game's or form's calls carry in the logs (saved query one-game), under REQUEST_STATE_SECRET(_ARN).
log-ref: $(VENV)/.synced-local
	$(PY) -m infra.log_ref $(ID)

# The same fuzz tests as `make test`, with the long profile (tests/fuzz/conftest.py).
fuzz: $(VENV)/.synced
	FUZZ_PROFILE=long $(PY) -m pytest tests/fuzz

clean:
	rm -rf $(VENV) $(TOOLS) $(CLIENT_ENVS) .pytest_cache .mypy_cache .ruff_cache

# --- the official MCP conformance suite (docs/conformance.md), pinned with the Node 22 it needs ---
.PHONY: conformance
CONFORMANCE_DEPS := tests/conformance/node_modules/.ci-stamp

$(CONFORMANCE_DEPS): tests/conformance/package-lock.json
	@echo "Installing the MCP conformance suite and Node 22 into tests/conformance/node_modules (about 240 MB, once)"
	npm ci --prefix tests/conformance --no-audit --no-fund --loglevel=error
	@touch $@

conformance: $(VENV)/.synced-local $(WIDGET_STAMP) $(CONFORMANCE_DEPS)
	$(PY) tests/conformance/run_suite.py

# --- the package: `pip install widget-mcp`, `uvx widget-mcp new NAME` (README, "Install") ---
.PHONY: dist
dist: $(WIDGET_STAMP) | $(UV)
	rm -rf dist
	$(UV) build --out-dir dist

# --- infrastructure (infra/README.md) ---
.PHONY: synth deploy bootstrap destroy asset asset-smoke check-app
CDK := infra/node_modules/.bin/cdk
# The CLI runs `python -m infra.app` (cdk.json): put the project's interpreter first on PATH.
CDK_ENV := PATH="$(CURDIR)/$(VENV)/bin:$$PATH" CDK_DISABLE_CLI_TELEMETRY=true

$(CDK): infra/package.json infra/package-lock.json
	@echo "==> installing the pinned CDK CLI into infra/node_modules (about 30 MB from the npm registry)"
	npm ci --prefix infra --no-audit --no-fund --loglevel=error || $(call offline,installing the CDK CLI,the npm registry)
	@touch $@

asset: $(VENV)/.synced
	$(PY) -m widget_mcp.lambda_asset.build

# The asset as the stack builds it (both variants), on arm64 CPython 3.13 under emulation; infra/README.md.
asset-smoke: $(VENV)/.synced $(WIDGET_STAMP)
	$(PY) -m infra.asset_smoke

synth: $(VENV)/.synced $(CDK) $(WIDGET_STAMP)
	$(CDK_ENV) $(CDK) synth --quiet --no-notices $(CDK_ARGS)

# The bundles are built first: the function's templates name their hashed files, the CDN serves them.
deploy: $(VENV)/.synced $(CDK) $(WIDGET_STAMP)
	$(CDK_ENV) $(CDK) deploy --no-notices $(CDK_ARGS)

# Both read the deployment's context as deploy does (CDK_ARGS, cdk.json, cdk.context.json: infra/README.md, "Deploy").
# The CLI synthesizes the app to find the stack and its environment, without building the Lambda asset.
bootstrap: $(VENV)/.synced $(CDK) $(WIDGET_STAMP)
	$(CDK_ENV) $(CDK) bootstrap --no-notices $(CDK_ARGS)

destroy: $(VENV)/.synced $(CDK) $(WIDGET_STAMP)
	$(CDK_ENV) $(CDK) destroy --no-notices $(CDK_ARGS)

check-app: $(VENV)/.synced-local
	@test -n "$(URL)" || { echo "usage: make check-app URL=https://<api>/mcp" >&2; exit 2; }
	$(PY) -m widget_mcp.readiness "$(URL)" $(if $(HOST),--host $(HOST)) $(CHECK_ARGS)

# The app directories' files from an app's declarations (infra/README.md, "Publish"); fails naming each listing limit broken.
.PHONY: submission
submission: $(VENV)/.synced-test $(WIDGET_STAMP)
	$(PY) -m widget_mcp.publishing $(APP) $(if $(URL),--url "$(URL)") $(if $(REGISTRY_NAME),--name "$(REGISTRY_NAME)") $(if $(PAGES),--pages "$(PAGES)")

# A confirmed, MFA-free Cognito user with seeded state for the directories' reviewers (infra/README.md, "Publish").
.PHONY: reviewer-account
reviewer-account: $(VENV)/.synced
	$(PY) -m infra.reviewer_account $(if $(STACK),--stack "$(STACK)") $(REVIEWER_ARGS)

# --- a new app on the toolkit (docs/tutorial.md) ---
.PHONY: app
app: $(VENV)/.synced-local
	@test -n "$(NAME)" || { echo "usage: make app NAME=weather [WIDGET=1 | STATE=1]" >&2; exit 2; }
	$(PY) -m widget_mcp.local.scaffold "$(NAME)" $(if $(WIDGET),--widget) $(if $(STATE),--state)

# One app's files linted, its package type-checked (strict, the project's mypy config) and every test of it run;
# installs the test tools (the dev group), never CDK or the benchmarks. An app's tests, by convention (docs/tutorial.md):
# tests/unit/NAME/, and test_NAME.py or test_NAME_*.py in any layer (tests/functional, tests/browser, …).
.PHONY: test-app
APP_TESTS = $(sort $(wildcard tests/unit/$(NAME)) $(shell find tests -path tests/unit/$(NAME) -prune -o -name node_modules -prune \
	-o -type f \( -name 'test_$(NAME).py' -o -name 'test_$(NAME)_*.py' \) -print 2>/dev/null))
APP_FILES = lambda_src/widget_mcp/apps/$(NAME) $(APP_TESTS)

test-app: $(VENV)/.synced-test
	@test -n "$(NAME)" || { echo "usage: make test-app NAME=weather" >&2; exit 2; }
	@test -d lambda_src/widget_mcp/apps/$(NAME) || { echo "no app lambda_src/widget_mcp/apps/$(NAME)" >&2; exit 2; }
	@test -n "$(strip $(APP_TESTS))" || { echo "no tests of app $(NAME): tests/unit/$(NAME)/ or test_$(NAME)_*.py" >&2; exit 2; }
	$(VENV)/bin/ruff check $(APP_FILES)
	$(VENV)/bin/ruff format --check $(APP_FILES) || { echo "$(FORMAT_HINT) NAME=$(NAME)\` rewrites them" >&2; exit 1; }
	$(VENV)/bin/mypy lambda_src/widget_mcp/apps/$(NAME)
	$(VENV)/bin/python -m tests.import_cycles lambda_src/widget_mcp/apps/$(NAME)
	$(PY) -m pytest -q -p no:cacheprovider $(APP_TESTS)

# --- Open WebUI as a host (docs/openwebui.md): too heavy for `make test`; .ci/run runs it after ---
# Open WebUI 0.12.4, pinned with hashes (tests/openwebui/requirements.txt), goes into its own environment under
# ~/.cache/widget-mcp/openwebui/<hash of the requirements> (about 3 GB, a few minutes the first time), never .venv.
# torch is its CPU build, found through OPENWEBUI_FIND_LINKS (a folder of wheels or PyTorch's CPU wheel index).
.PHONY: test-openwebui
OPENWEBUI_REQS := tests/openwebui/requirements.txt
OPENWEBUI_HOME ?= $(HOME)/.cache/widget-mcp/openwebui
OPENWEBUI_ENV := $(OPENWEBUI_HOME)/$(shell sha256sum $(OPENWEBUI_REQS) 2>/dev/null | cut -c1-16)
OPENWEBUI_FIND_LINKS ?= $(wildcard /opt/wheels)
export OPENWEBUI_PYTHON := $(OPENWEBUI_ENV)/bin/python

# The folder is named for the requirements' content, so only its absence calls for an install: a fresh clone's newer
# requirements file must not wipe a cached environment that matches it.
$(OPENWEBUI_ENV)/.installed: | $(OPENWEBUI_REQS) $(UV)
	rm -rf $(OPENWEBUI_ENV)
	$(UV) venv --quiet --python 3.11 $(OPENWEBUI_ENV)
	$(UV) pip install --quiet --python $(OPENWEBUI_ENV)/bin/python --require-hashes --no-deps --compile-bytecode \
		$(if $(OPENWEBUI_FIND_LINKS),--find-links $(OPENWEBUI_FIND_LINKS)) -r $(OPENWEBUI_REQS)
	@touch $@

test-openwebui: $(VENV)/.synced $(WIDGET_STAMP) $(OPENWEBUI_ENV)/.installed
	$(PY) -m pytest -p no:cacheprovider tests/openwebui
