# emqsim: the two commands are `make lab` and `make test`.
# Needs only python3.11 (or python3), pip and GNU make: the first run creates .venv
# and installs the project into it.

PYTHON ?= $(if $(shell command -v python3.11 2>/dev/null),python3.11,python3)
VENV   := .venv
PY     := $(VENV)/bin/python
# Extra arguments for `jupyter lab`, e.g. make lab LAB_ARGS="--no-browser --port 8899"
LAB_ARGS ?=
# The project's JupyterLab defaults (lab-settings/overrides.json: no "Jupyter news?" pop-up);
# a reader's own settings still win. As root, Jupyter refuses to start without --allow-root.
LAB_SETTINGS := --LabApp.app_settings_dir=$(CURDIR)/lab-settings
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
# `make present`: Voila's port and extra arguments; PRESENT=0 keeps the normal figure sizes
PRESENT_PORT ?= 8866
PRESENT_ARGS ?=
PRESENT ?= 1
# The browser tests drive Debian's Chromium; Playwright must never fetch a browser of its own.
CHROMIUM := /usr/bin/chromium
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1

.PHONY: all bootstrap bytecode lab present html lock test test-latest test-unit test-site test-notebooks test-browser bench docs clean

all: test

# What each command installs comes from the lock (requirements/*.txt: exact versions with
# hashes, written by `make lock` from pyproject.toml's bounds), so a fresh machine next year
# installs what passed today. One venv; each lock file installed is stamped
# ($(VENV)/.lock-NAME), and the locks agree on every version (each is compiled against
# requirements/test.txt), so installing a second one only adds packages.
LOCKS := requirements
$(VENV)/.base: $(LOCKS)/build.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --require-hashes -r $(LOCKS)/build.txt
	touch $@

# core, lab, present, site, test, classroom: the extra of the same name and what it needs.
# BullMQ's wheel (its Lua scripts) goes in with --no-deps (requirements/bullmq.in says why);
# the project itself, editable, without build isolation (the locked setuptools builds it).
$(VENV)/.lock-%: $(LOCKS)/%.txt $(LOCKS)/bullmq.txt pyproject.toml $(VENV)/.base
	$(PY) -m pip install -q --require-hashes -r $(LOCKS)/$*.txt
	$(PY) -m pip install -q --no-deps --require-hashes -r $(LOCKS)/bullmq.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	touch $@

STAMP := $(VENV)/.lock-test
bootstrap: $(STAMP)

# Write the lock again from pyproject.toml's bounds (after changing a bound, or to move to
# newer releases once `make test-latest` passes), with uv (pinned here) in a venv of its own.
UV_VERSION ?= 0.13.9
UV := build/uv/bin/uv
COMPILE = $(UV) pip compile --universal --python-version 3.11 --generate-hashes --quiet \
	--custom-compile-command "make lock"
lock:
	test -x $(UV) || ($(PYTHON) -m venv build/uv && build/uv/bin/pip install -q uv==$(UV_VERSION))
	$(COMPILE) pyproject.toml --extra test -o $(LOCKS)/test.txt
	for x in lab present site classroom; do \
		$(COMPILE) pyproject.toml --extra $$x -c $(LOCKS)/test.txt -o $(LOCKS)/$$x.txt || exit 1; done
	$(COMPILE) pyproject.toml -c $(LOCKS)/test.txt -o $(LOCKS)/core.txt
	$(COMPILE) $(LOCKS)/build.in -o $(LOCKS)/build.txt
	$(COMPILE) --no-deps $(LOCKS)/bullmq.in -o $(LOCKS)/bullmq.txt

# The unit tests on the newest releases pyproject.toml's bounds allow, in a venv of their own
# (build/latest), the lock left as it is: run it before moving the lock, and now and then
# (a new redis-py or fakeredis is seen here before a reader meets it). It prints where the
# newest releases differ from the lock.
LATEST := build/latest
test-latest:
	rm -rf $(LATEST) && $(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install -q --upgrade pip
	$(LATEST)/bin/python -m pip install -q -e '.[test]'
	$(LATEST)/bin/python -m pip install -q --no-deps bullmq
	@$(LATEST)/bin/python tests/lock.py diff $(LOCKS)/test.txt $(LOCKS)/bullmq.txt
	$(LATEST)/bin/python -m pytest -q tests -p no:nbval --ignore=tests/browser -m "not sphinx" -n auto --dist worksteal

# Open the course: JupyterLab on the notebooks folder.
lab: $(VENV)/.lock-lab
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks $(LAB_SETTINGS) $(ALLOW_ROOT) $(LAB_ARGS)

# The course as apps for a class: Voila on 127.0.0.1 runs each notebook and shows its
# prose, outputs and live figures without the code, in presenter mode (large fonts). The page
# is the course's Voila template (share/voila/templates/emqsim: nothing asked from outside
# the machine, the widgets' parts named for a screen reader; emqsim-present adds presenter
# mode's page style, emqsim/figures/present.css).
present: $(VENV)/.lock-present
	@echo "Voila: open http://127.0.0.1:$(PRESENT_PORT)/ and pick a notebook (Ctrl-C stops it)"
	EMQSIM_PRESENT=$(PRESENT) JUPYTER_PATH=$(CURDIR)/share$(if $(JUPYTER_PATH),:$(JUPYTER_PATH)) \
		$(VENV)/bin/voila --no-browser --port $(PRESENT_PORT) --Voila.ip=127.0.0.1 \
		--template=$(if $(filter-out 0,$(PRESENT)),emqsim-present,emqsim) \
		$(PRESENT_ARGS) notebooks/

# The course as a static site in site/, a book (Sphinx with sphinx-book-theme and myst-nb):
# contents, previous/next, search, phone layout, light and dark; every notebook with its
# saved outputs (nothing is executed), readable offline with no kernel, each live figure's
# sliders stepping through frames drawn now (one process per CPU; HTML_JOBS=1 draws in one);
# open site/index.html from disk or serve the folder.
HTML_JOBS ?=
html: $(VENV)/.lock-site
	$(PY) -m emqsim.site --out site $(if $(HTML_JOBS),--jobs $(HTML_JOBS)) notebooks

# The package and the tests' helpers compiled to bytecode once, up to date (compileall skips
# what has not changed): the test runs start many Pythons (xdist workers, the children the CLI
# and signal tests start, notebook kernels), and where PYTHONDONTWRITEBYTECODE is set each of
# them would otherwise compile every module it imports again. Written to __pycache__/, which
# git ignores.
bytecode: $(STAMP)
	@$(PY) -m compileall -q -j 0 -x node_modules emqsim tests

# Unit tests, the site's checks, notebooks and the browser run as four pytest invocations:
# the notebook plugin (nbval) makes pytest start slowly, so the unit run leaves it out; the
# tests that run Sphinx (marked sphinx: the checks of the whole built site, whose build the
# browser tests then reuse, and of a toy book) are slow; the browser tests start their own
# JupyterLab and Voila.
test: test-unit test-site test-notebooks test-browser

# On every core with pytest-xdist (UNIT_JOBS=1: in one process); without xdist, in one.
UNIT_JOBS ?= auto
test-unit: bytecode
	@if [ "$(UNIT_JOBS)" != 1 ] && $(PY) -c "import xdist" 2>/dev/null; then \
		set -x; $(PY) -m pytest -q tests -p no:nbval --ignore=tests/browser -m "not sphinx" \
			-n $(UNIT_JOBS) --dist worksteal; \
	else \
		echo "pytest-xdist not installed or UNIT_JOBS=1: the unit tests run in one process"; \
		set -x; $(PY) -m pytest -q tests -p no:nbval --ignore=tests/browser -m "not sphinx"; \
	fi

# The site's tests that run Sphinx: a toy book's, and the checks of the course's whole site
# (`make html`'s book of the committed notebooks), built once per state of the sources and
# kept in build/test-site/ (tests/site_build.py) for the browser tests to serve.
test-site: bytecode
	$(PY) -m pytest -q tests/test_site*.py -p no:nbval -m sphinx

# Skipped when there is no notebook (pytest would exit 5 on an empty folder). Each kernel
# ends by a shutdown request (tests/nbval_kernel_exit.py), so its open stores clean up; on a
# real Redis (EMQSIM_REDIS_URL) the run must then leave no key there (tests/keys_left.py).
test-notebooks: bytecode
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then \
		set -x; \
		PYTHONPATH=tests $(PY) -m pytest -q --nbval notebooks/ --nbval-cell-timeout=120 \
			--nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider -p nbval_kernel_exit && \
		$(PY) tests/keys_left.py; \
	else \
		echo "no notebooks/*.ipynb: notebook tests skipped"; \
	fi

# Every notebook in JupyterLab and Voila and every site page, in a real (headless) Chromium;
# axe-core (the accessibility checks) is installed from npm when npm is there.
# Skipped, in one line, where Debian's chromium is not installed.
# Two browsers at once (BROWSER_JOBS=1: one), each a file at a time (--dist loadfile: a file's
# JupyterLab or Voila starts once per worker): most of their time is spent waiting on a page,
# so two on two cores take well under the time of one. The tests timed in seconds (marked
# alone) then run by themselves, as they did before.
BROWSER_JOBS ?= 2
test-browser: bytecode
	@if [ -x $(CHROMIUM) ]; then \
		if [ ! -d tests/browser/node_modules/axe-core ] && command -v npm >/dev/null 2>&1; then \
			(cd tests/browser && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) \
				|| echo "npm ci in tests/browser failed: the accessibility checks will skip"; \
		fi; \
		if [ "$(BROWSER_JOBS)" != 1 ] && $(PY) -c "import xdist" 2>/dev/null; then \
			set -x; \
			$(PY) -m pytest -q tests/browser -p no:nbval -m "not alone" -n $(BROWSER_JOBS) --dist loadfile && \
			$(PY) -m pytest -q tests/browser -p no:nbval -m alone; \
		else \
			set -x; \
			$(PY) -m pytest -q tests/browser -p no:nbval; \
		fi; \
	else \
		echo "no $(CHROMIUM): browser tests skipped (apt-get install chromium; .ci/run does)"; \
	fi

# `make bench`'s classroom check: how many students start at once (benchmarks/classroom.py)
CLASSROOM_STUDENTS ?= 20
# the output blocks of README.md and docs/, each rewritten by the command that prints it
# (docs/blocks.py; `make docs SLOW=--slow` runs the benchmarks' blocks too, make bench's time)
docs: bytecode
	$(PY) docs/blocks.py $(SLOW)

bench: $(VENV)/.lock-classroom bytecode
	$(PY) benchmarks/bench_speed.py
	$(PY) benchmarks/bench_memory.py
	@if [ ! -x benchmarks/classroom-proxy/node_modules/.bin/configurable-http-proxy ] && command -v npm >/dev/null 2>&1; then \
		(cd benchmarks/classroom-proxy && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) \
			|| echo "npm ci in benchmarks/classroom-proxy failed: the classroom check will say what is missing"; \
	fi
	$(PY) benchmarks/classroom.py --students $(CLASSROOM_STUDENTS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist *.egg-info test-artifacts site benchmarks/classroom-proxy/node_modules
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
