# Two commands do all setup on a fresh machine:
#   make run   installs webclient into .venv and runs it with the bundled demo agent
#   make test  installs everything (and Debian's chromium-headless-shell for the browser tests) and runs every test
# make check runs what a reviewer checks (lint, format, types, layers); make package-check builds the wheel
# and runs it from a fresh virtual environment. CI (.ci/run) runs all three.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ARGS ?=
# Test processes (pytest-xdist); each takes whole test files, in the order of conftest.py. `make test` is one
# run over tests/ and e2e/ on five: the files of tests/ first, which keep two cores busy, and as they run
# out the workers start on the browser tests, whose waits leave the cores half idle with fewer. Four for
# `make test-fast`, and three for `make screenshots` (a fourth browser would cost more than it gains).
TEST_WORKERS ?= 5
FAST_WORKERS ?= 4
BROWSER_WORKERS ?= 3

.PHONY: run test test-fast screenshots install install-test install-dev browser node peers check lint format-check typecheck layers \
	package-check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps: reinstall only when pyproject.toml changed (an editable install picks up code changes anyway),
# so `make run` on an installed checkout starts at once.
INSTALLED := $(VENV)/.installed
INSTALLED_TEST := $(VENV)/.installed-test
INSTALLED_DEV := $(VENV)/.installed-dev

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

# The test tools alone for `make test` (the linters cost two seconds more to install); `dev` adds them.
$(INSTALLED_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(INSTALLED)

$(INSTALLED_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(INSTALLED_TEST) $(INSTALLED)

install: $(INSTALLED)

install-test: $(INSTALLED_TEST)

install-dev: $(INSTALLED_DEV)

run: $(INSTALLED)
	$(BIN)/webclient $(ARGS)

browser:
	@scripts/ensure-browser

node:
	@scripts/ensure-node

# The test agents on the official ACP TypeScript SDK (tests/peers/), installed with `npm ci` from its lock file.
peers: node
	@scripts/ensure-peers

# Bytecode compiled up front: where PYTHONDONTWRITEBYTECODE is set, every server and agent subprocess of the
# suite would otherwise compile webclient from source again. pytest runs with it unset, so that each test
# process after the first loads the test modules it rewrote for its assertions instead of rewriting them
# (3.5 s of CPU a process). Test files or folders in ARGS
# (`ARGS=tests/unit`) are run instead of tests/ and e2e/; the rest of ARGS are options (`-x`, `-k NAME`).
TEST_PATHS = $(filter tests/% tests e2e/% e2e,$(ARGS))
test: install-test browser node peers
	$(BIN)/python -m compileall -q webclient tests e2e >/dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(TEST_WORKERS) $(or $(TEST_PATHS),tests e2e) $(filter-out $(TEST_PATHS),$(ARGS))

# The inner loop: the tests of tests/ without a browser, without the `slow` ones (benchmarks, the package
# build, floods through a whole server) and without the `system` ones (whole processes driven from outside:
# the server's command line and signals, `webclient check`, remote agents' servers, the TypeScript SDK's
# peers); `make test` runs them all.
test-fast: install-test node peers
	$(BIN)/python -m compileall -q webclient tests >/dev/null
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(FAST_WORKERS) -m "not slow and not system" tests $(ARGS)

# The browser tests again, taking screenshots of every state they reach into e2e/artifacts/ (desktop and
# phone, light and dark); `make test` leaves them out. WEBCLIENT_UPDATE_SCREENSHOTS=1 also refreshes docs/.
# Test files or folders in ARGS (`ARGS=e2e/test_page.py`) are run instead of the whole of e2e/; the rest of
# ARGS are options (`-k NAME`).
SCREENSHOT_PATHS = $(filter e2e/% e2e,$(ARGS))
screenshots: install-test browser peers
	WEBCLIENT_SCREENSHOTS=1 $(BIN)/python -m pytest -n $(BROWSER_WORKERS) \
		$(or $(SCREENSHOT_PATHS),e2e) $(filter-out $(SCREENSHOT_PATHS),$(ARGS))

# Fails on a lint or format error, a type error (mypy --strict, pyproject.toml) or an upward import between
# the layers. Stops at the first failing step; `make -k check` runs every step and fails if any did.
check: lint format-check typecheck layers

lint: install-dev
	$(BIN)/ruff check .

format-check: install-dev
	$(BIN)/ruff format --check .

typecheck: install-dev
	$(BIN)/mypy webclient tests e2e conftest.py scripts/smoke_wheel.py

layers: install-test
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/test_layers.py

# The sdist and wheel built as users' installers build them, the wheel installed in a fresh virtual
# environment, its `webclient` started and its page and bundles fetched (scripts/smoke_wheel.py).
package-check: install-test
	$(BIN)/python scripts/smoke_wheel.py

bench: install-test browser
	$(BIN)/python bench/streaming.py

clean:
	rm -rf $(VENV) build dist *.egg-info e2e/artifacts
