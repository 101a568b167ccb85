# emqsim: the two commands are `make lab` and `make test`.
# Needs only python3.11 (or python3), pip and GNU make: the first run creates .venv
# and installs the project into it.

PYTHON ?= $(if $(shell command -v python3.11 2>/dev/null),python3.11,python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Extra arguments for `jupyter lab`, e.g. make lab LAB_ARGS="--allow-root --no-browser"
LAB_ARGS ?=

.PHONY: all bootstrap lab test test-unit test-notebooks bench clean

all: test

# Create the venv and install the project with its test extra; redone when
# pyproject.toml changes.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

bootstrap: $(STAMP)

# Open the course: JupyterLab on the notebooks folder.
lab: $(STAMP)
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks $(LAB_ARGS)

# Unit tests and notebooks run as two pytest invocations: the notebook plugin
# (nbval) makes pytest start slowly, so the unit run leaves it out.
test: test-unit test-notebooks

test-unit: $(STAMP)
	$(PY) -m pytest -q tests -p no:nbval

# Skipped when there is no notebook (pytest would exit 5 on an empty folder).
test-notebooks: $(STAMP)
	@if ls notebooks/*.ipynb >/dev/null 2>&1; then \
		set -x; \
		$(PY) -m pytest -q --nbval notebooks/ --nbval-cell-timeout=120 \
			--nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider; \
	else \
		echo "no notebooks/*.ipynb: notebook tests skipped"; \
	fi

bench: $(STAMP)
	$(PY) -m emqsim.bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build dist *.egg-info test-artifacts
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
