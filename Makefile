# Two commands set up a fresh machine: `make run` and `make test`.
# Each installs what is missing (Python venv in .venv, the pinned Showdown npm
# package in node_modules) and then does its job.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
TORCH  := torch==2.13.0
# Where pip looks for torch first. Empty: the package index pip is configured with. On
# Linux x86_64, PyPI's torch==2.13.0 is the CUDA build (several GB; it runs on CPU too);
# for the CPU-only build use TORCH_INDEX=https://download.pytorch.org/whl/cpu where that
# index is reachable.
TORCH_INDEX ?=

# What `make run` runs: the default experiment (reg_c: 60 minutes; prints progress lines).
RUN_CMD ?= -m league.run

.PHONY: run test lint setup py node accel clean-venv bench

run: setup
	$(PY) $(RUN_CMD)

# Two pytest processes side by side, one per core: tests/system (whole league runs, one
# at a time) and everything else. The system half's output follows the other's; the
# target fails if either does. TEST_SPLIT=0 runs the suite in one process.
TEST_SPLIT ?= 1

test: setup lint
ifeq ($(TEST_SPLIT),0)
	$(PY) -m pytest -q
else
	@echo "pytest: tests/system in a second process (its output at the end), the rest here"; \
	log=$$(mktemp); \
	$(PY) -m pytest -q tests/system > $$log 2>&1 & sys=$$!; \
	$(PY) -m pytest -q --ignore=tests/system; rest=$$?; \
	wait $$sys; s=$$?; echo "==== tests/system ===="; cat $$log; rm -f $$log; \
	test $$rest -eq 0 -a $$s -eq 0
endif

# ruff: lint (pyflakes, pycodestyle, import order, pyupgrade, bugbear) and format, as
# pyproject.toml's [tool.ruff] says; `ruff format .` and `ruff check --fix .` repair.
# mypy: the types of league/ and tools/, as pyproject.toml's [tool.mypy] says.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

setup: py node accel

py: $(VENV)/.stamp-py
node: node_modules/.stamp-node

# The decision's modules and poke-env's battle state compiled by Cython (league/accel/): built where missing or
# stale, a no-op otherwise; a machine without a C compiler warns and runs plain Python.
accel: py
	@$(PY) -m league.accel build --optional

$(VENV)/.stamp-py: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found: install Python 3.11+"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q $(TORCH) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	@$(PY) -c "import torch; print('installed torch', torch.__version__, '(CUDA ' + torch.version.cuda + ' build)' if torch.version.cuda else '(CPU-only build)')"
	$(PIP) install -q -e '.[dev]'
	touch $@

node_modules/.stamp-node: package.json package-lock.json
	@command -v node >/dev/null || { echo "error: Node.js not found: install Node.js >= 18 (e.g. apt-get install nodejs npm)"; exit 1; }
	@command -v npm >/dev/null || { echo "error: npm not found: install npm (e.g. apt-get install npm)"; exit 1; }
	npm ci --omit=optional --ignore-scripts --no-audit --no-fund
	touch $@

bench: setup
	$(PY) -m tools.bench encode

clean-venv:
	rm -rf $(VENV) node_modules
