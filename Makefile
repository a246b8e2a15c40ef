# Two commands do all setup on a fresh machine:
#   make run   installs webclient into .venv and runs it with the bundled demo agent
#   make test  installs everything (and Debian's chromium-headless-shell for the browser tests) and runs every test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
ARGS ?=
# Test processes (pytest-xdist). Each takes whole test files; the order and why are in conftest.py. On a
# 2-core machine: four while the tests of tests/ wait on agents and timeouts, three of which go on to the
# browser tests (a fourth browser, server and demo agent would cost more than it gains).
TEST_WORKERS ?= 4
BROWSER_WORKERS ?= 3

.PHONY: run test screenshots install install-test install-dev browser lint typecheck bench clean

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

# Bytecode compiled up front: where PYTHONDONTWRITEBYTECODE is set, every server and agent subprocess of the
# suite would otherwise compile webclient from source again.
test: install-test browser
	$(BIN)/python -m compileall -q webclient tests e2e >/dev/null
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --browser-workers $(BROWSER_WORKERS) $(ARGS)

# The browser tests again, taking screenshots of every state they reach into e2e/artifacts/ (desktop and
# phone, light and dark); `make test` leaves them out. WEBCLIENT_UPDATE_SCREENSHOTS=1 also refreshes docs/.
screenshots: install-test browser
	WEBCLIENT_SCREENSHOTS=1 $(BIN)/python -m pytest -n $(BROWSER_WORKERS) e2e $(ARGS)

lint: install-dev
	$(BIN)/ruff check .

typecheck: install-dev
	$(BIN)/mypy webclient

bench: install-test
	$(BIN)/python bench/streaming.py

clean:
	rm -rf $(VENV) build dist *.egg-info e2e/artifacts
