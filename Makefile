# The two commands of the README, plus the pieces they are made of.
# Everything Python is installed into .venv, so a fresh clone needs only
# Python 3.10+ and make.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
PIP_EDITABLE := --config-settings editable_mode=strict
# setuptools announces every strict editable install with a 12-line notice (a warning of
# its InformationOnly category saying where the link tree lives: build/, which `make clean`
# removes with .venv). This filter silences that notice alone; other warnings still show.
EDITABLE_NOTICE := ignore:Editable installation

.PHONY: serve test lint typecheck pytest test-compiled test-compiled-run docs dist dist-compiled bench \
	bench-check bench-check-compiled bench-e2e \
	install install-dev relink clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The stamps depend on pyproject.toml so that a changed dependency list reinstalls.
$(VENV)/.installed $(VENV)/.installed-dev: export PYTHONWARNINGS = $(EDITABLE_NOTICE)
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e . $(PIP_EDITABLE)
	touch $@

# Tests, docs and benchmarks share one environment: benchmarks also run as
# plain tests (with --benchmark-disable) so their assertions are checked.
$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,docs,server,bench,flask]' $(PIP_EDITABLE)
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# A strict editable install links each file, so a new module needs a relink.
# flock keeps concurrent relinks from tearing the link tree.
relink: | $(BIN)/python
	flock $(VENV)/.relink.lock $(BIN)/python -m pip install --quiet --no-deps -e . \
		$(PIP_EDITABLE) 2>/dev/null

serve: $(VENV)/.installed
	$(BIN)/python -m sansio_http.server examples.app:app --host $(HOST) --port $(PORT)

# import-linter reads the installed package, so a new module needs the relink first.
lint: $(VENV)/.installed-dev relink
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(VENV)/.installed-dev relink
	$(BIN)/mypy $$($(BIN)/python scripts/modules.py)
	$(BIN)/mypy tests benchmarks examples scripts setup.py

pytest: $(VENV)/.installed-dev relink
	$(BIN)/pytest tests benchmarks --benchmark-disable \
		--cov --cov-report=term-missing:skip-covered --cov-fail-under=95

docs: $(VENV)/.installed-dev
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

test: lint typecheck pytest test-compiled docs

# The optional compiled build (setup.py: SANSIO_HTTP_COMPILE=1 compiles hot modules with
# mypyc and Cython) in its own environment, installed from the source tree (not editable), and the
# same test suite run against it. SANSIO_HTTP_COMPILED tells tests/test_build.py which
# build to expect.
VENV_C := .venv-compiled
$(VENV_C)/.deps: pyproject.toml
	rm -rf $(VENV_C)
	$(PYTHON) -m venv $(VENV_C)
	$(VENV_C)/bin/python -m pip install --quiet --upgrade pip 'setuptools>=77'
	# The dependencies, mypy among the test ones: mypyc type-checks what it compiles
	# against them. This installs the package too, pure Python, until the next step.
	$(VENV_C)/bin/python -m pip install --quiet '.[test,docs,server,bench,flask]'
	touch $@

# Cython compiles the modules mypyc cannot; like mypy, it is needed to build, not to run.
CYTHON_REQ := cython>=3.1,<4
$(VENV_C)/.cython: $(VENV_C)/.deps
	$(VENV_C)/bin/python -m pip install --quiet '$(CYTHON_REQ)'
	touch $@

# setuptools reuses build/lib.*: a module no longer compiled would keep its old extension.
$(VENV_C)/.installed: $(VENV_C)/.cython setup.py $(shell find src -name "*.py")
	rm -rf build/lib.* build/temp.*
	SANSIO_HTTP_COMPILE=1 $(VENV_C)/bin/python -m pip install --quiet --no-build-isolation \
		--no-deps --force-reinstall .
	touch $@

# Skipped, saying why, on a machine that cannot compile (no C compiler or Python headers).
test-compiled:
	@if reason=$$($(PYTHON) scripts/can_compile.py); then \
		$(MAKE) --no-print-directory test-compiled-run; \
	else \
		echo "test-compiled SKIPPED: $$reason; the compiled build is not tested here"; \
	fi

test-compiled-run: $(VENV_C)/.installed
	SANSIO_HTTP_COMPILED=1 $(VENV_C)/bin/python -m pytest tests -q -p no:cacheprovider

# The sdist and the wheel built from it, in dist/, for `pip install dist/sansio_http-*.whl`
# in another project. `make test` builds and checks them too (tests/packaging/). Beside
# them, where this machine can compile, the compiled wheel for its platform and Python
# (dist-compiled), built in .venv-compiled, which has mypy and Cython.
dist: $(VENV)/.installed-dev
	rm -rf dist
	$(BIN)/python -m build --quiet --outdir dist .
	@if reason=$$($(PYTHON) scripts/can_compile.py); then \
		$(MAKE) --no-print-directory dist-compiled; \
	else \
		echo "dist: the compiled wheel SKIPPED: $$reason; dist/ holds the pure one only"; \
	fi
	$(BIN)/twine check --strict dist/*

dist-compiled: $(VENV_C)/.cython
	rm -rf build/lib.* build/temp.*
	SANSIO_HTTP_COMPILE=1 $(VENV_C)/bin/python -m pip wheel --quiet --no-build-isolation \
		--no-deps --wheel-dir dist .

# The numbers of the docs' Performance page. pytest-benchmark's JSON goes to build/bench/;
# scripts/bench_report.py turns it into $(BENCH_OUT)/results.json, table.md, table.rst.inc
# and chart.png. Modest rounds keep the run to a few minutes on two cores.
BENCH_RAW := build/bench/pytest-benchmark.json
BENCH_OUT := docs/_static/bench

bench: $(VENV)/.installed-dev relink
	mkdir -p $(dir $(BENCH_RAW))
	$(BIN)/pytest benchmarks --benchmark-only --benchmark-min-rounds=5 \
		--benchmark-max-time=0.5 --benchmark-columns=min,median,ops,rounds \
		--benchmark-autosave --benchmark-json=$(BENCH_RAW)
	$(BIN)/python scripts/bench_report.py $(BENCH_RAW) --out $(BENCH_OUT)

# The guard that keeps the lead: the App's hello and JSON-echo rows under to_wsgi and
# to_asgi beside Falcon's (and Starlette's) in one pytest-benchmark run, and the def view
# under to_asgi beside Starlette's def endpoint; scripts/bench_check.py prints the App/Falcon
# ratios (median and min) and the def view's added cost. A report, exit status 0; pass
# BENCH_CHECK_ARGS=--max-ratio=1.0 to fail on a row behind. The load average is printed
# first: on a busy machine, read the min column too.
BENCH_CHECK_RAW := build/bench/bench-check.json
BENCH_CHECK_ROWS := \
	"benchmarks/test_bench_wsgi.py::test_hello_world[falcon]" \
	benchmarks/test_bench_cycle_wsgi.py::test_hello_world_app \
	"benchmarks/test_bench_cycle_wsgi.py::test_json_echo[app]" \
	"benchmarks/test_bench_cycle_wsgi.py::test_json_echo[falcon]" \
	"benchmarks/test_bench_asgi.py::test_hello[starlette]" \
	"benchmarks/test_bench_asgi.py::test_hello[falcon]" \
	benchmarks/test_bench_cycle_asgi.py::test_hello_app \
	"benchmarks/test_bench_cycle_asgi.py::test_json_echo[app]" \
	"benchmarks/test_bench_cycle_asgi.py::test_json_echo[starlette]" \
	"benchmarks/test_bench_cycle_asgi.py::test_json_echo[falcon]" \
	benchmarks/test_bench_dispatch.py::test_app_under_asgi \
	benchmarks/test_bench_dispatch.py::test_starlette_under_asgi
BENCH_CHECK_ARGS ?=

bench-check: $(VENV)/.installed-dev relink
	mkdir -p $(dir $(BENCH_CHECK_RAW))
	@echo "load average before the run: $$(cut -d' ' -f1-3 /proc/loadavg)"
	$(BIN)/pytest $(BENCH_CHECK_ROWS) -q -p no:cacheprovider --benchmark-only \
		--benchmark-min-rounds=20 --benchmark-max-time=1.0 --benchmark-warmup=on \
		--benchmark-columns=min,median,rounds --benchmark-json=$(BENCH_CHECK_RAW)
	$(BIN)/python scripts/bench_check.py $(BENCH_CHECK_RAW) $(BENCH_CHECK_ARGS)

# The same rows, and the core rows (requests, headers, routing), in both builds: each build
# in one pytest-benchmark run of its own, the compiled one in .venv-compiled. Prints the
# compiled build's App/Falcon ratios, then each of the project's rows pure against compiled.
BENCH_CORE_ROWS := \
	benchmarks/test_bench_wsgi.py::test_environ_request_sansio_http \
	benchmarks/test_bench_asgi.py::test_request_ours \
	benchmarks/test_bench_request.py::test_request_sansio_http \
	benchmarks/test_bench_request.py::test_request_sansio_http_from_bytes \
	benchmarks/test_bench_headers.py::test_headers_get \
	benchmarks/test_bench_headers.py::test_headers_get_from_text_pairs \
	benchmarks/test_bench_headers.py::test_environ_headers_get \
	benchmarks/test_bench_headers.py::test_headers_five_lookups \
	benchmarks/test_bench_headers.py::test_parse_urlencoded \
	benchmarks/test_bench_http.py::test_accept_best_match \
	benchmarks/test_bench_http.py::test_parse_cookie \
	"benchmarks/test_bench_routing.py::test_static[ours]" \
	"benchmarks/test_bench_routing.py::test_int[ours]" \
	"benchmarks/test_bench_routing.py::test_path[ours]" \
	"benchmarks/test_bench_routing.py::test_miss[ours]"
BENCH_BUILDS_ARGS := -q -p no:cacheprovider --benchmark-only --benchmark-min-rounds=20 \
	--benchmark-max-time=1.0 --benchmark-warmup=on --benchmark-columns=min,median,rounds

bench-check-compiled: $(VENV)/.installed-dev relink $(VENV_C)/.installed
	mkdir -p build/bench
	@echo "load average before the runs: $$(cut -d' ' -f1-3 /proc/loadavg)"
	$(BIN)/pytest $(BENCH_CHECK_ROWS) $(BENCH_CORE_ROWS) $(BENCH_BUILDS_ARGS) \
		--benchmark-json=build/bench/builds-pure.json
	SANSIO_HTTP_COMPILED=1 $(VENV_C)/bin/python -m pytest $(BENCH_CHECK_ROWS) $(BENCH_CORE_ROWS) \
		$(BENCH_BUILDS_ARGS) --benchmark-json=build/bench/builds-compiled.json
	$(BIN)/python scripts/bench_check.py build/bench/builds-compiled.json \
		--pure build/bench/builds-pure.json

# Real servers on 127.0.0.1 loaded by wrk (apt-get install wrk): gunicorn, uvicorn and
# the development server; writes $(BENCH_OUT)/e2e.json and e2e.md.
bench-e2e: $(VENV)/.installed-dev relink
	$(BIN)/python scripts/bench_e2e.py --out $(BENCH_OUT)

clean:
	rm -rf $(VENV) $(VENV_C) build dist *.egg-info docs/_build .pytest_cache .mypy_cache .ruff_cache \
		.coverage .coverage.*
