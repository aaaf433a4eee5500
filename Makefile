# One-command build, run and test. Every target bootstraps ./.venv itself.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
GEN := gen
PROTOS := $(shell find protos -name '*.proto')
GENSTAMP := $(GEN)/.stamp

.PHONY: all setup native proto run test lint bench clean browser image stack-test

all: setup

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip==26.3
	$(BIN)/python -m pip install -q -c requirements.lock -e '.[dev]'
	touch $(STAMP)

$(GENSTAMP): $(STAMP) $(PROTOS)
	rm -rf $(GEN) && mkdir -p $(GEN)
	$(BIN)/python -m grpc_tools.protoc -Iprotos --python_out=$(GEN) --grpc_python_out=$(GEN) \
		--plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy --mypy_out=$(GEN) $(PROTOS)
	find $(GEN) -type d -exec touch {}/__init__.py \;
	rm -f $(GEN)/__init__.py
	echo "$(CURDIR)/$(GEN)" > $$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/fallen_gen.pth
	touch $(GENSTAMP)

setup: $(GENSTAMP) native

# The engine's hot modules compiled with mypyc (services/native.py, docs/native.md): rebuilt
# when a compiled source changed (about a minute), a no-op otherwise. FALLEN_NATIVE=0 skips
# the build and runs them as pure Python.
native: $(GENSTAMP)
	@if [ "$${FALLEN_NATIVE:-1}" = 0 ]; then echo "engine modules: pure Python (FALLEN_NATIVE=0)"; \
	else $(BIN)/python -m services.native_build build --if-stale; fi

proto: $(GENSTAMP)

run: setup
	mkdir -p var
	FALLEN_DEV=1 $(BIN)/fallenctl serve --store sqlite:///var/fallen.db --stream memory --web-port 8080

test: setup browser
	$(BIN)/python -m pytest -q --durations=30

# The image every service runs (BuildKit or the legacy builder; no registry needed once
# the python:3.11-slim base is present: deploy/local/base-image.sh builds one offline).
FALLEN_TAG ?= dev
# BuildKit when the client has it (buildx, or a client with BuildKit built in, e.g. Debian's
# docker.io 20.10 with DOCKER_BUILDKIT=1), else the legacy builder; both build offline.
image:
	if docker buildx version >/dev/null 2>&1; then b=1; else b=$${DOCKER_BUILDKIT:-0}; fi; \
	DOCKER_BUILDKIT=$$b docker build -t fallen-backend:$(FALLEN_TAG) .

# The compose stack for real: engine, images, contract suites on testcontainers, the stack
# and cluster tests, teardown (deploy/local/stack-test.sh; needs root to install docker).
stack-test: setup
	bash deploy/local/stack-test.sh
# Debian's chromium for the browser test (Playwright drives it; no browser download).
browser:
	@command -v chromium >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else echo "install chromium (apt-get install chromium) for the browser test" >&2; exit 1; fi; }

lint: setup
	$(BIN)/ruff check services benchmarks tests
	$(BIN)/mypy services benchmarks
	cd protos && ../$(BIN)/buf lint
	bash .ci/buf-breaking

bench: setup
	$(BIN)/fallenctl bench all --json var/bench-all.json
	$(BIN)/fallenctl bench store
	$(BIN)/fallenctl bench dice
	$(BIN)/fallenctl bench rules fallen
	$(BIN)/fallenctl bench watchers --levels 100,500

clean:
	test ! -x $(BIN)/python || $(BIN)/python -m services.native_build clean
	rm -rf $(GEN) $(VENV) var build
