.PHONY: setup install check lint typecheck contracts test test-fast test-reproductions verify demo

setup:
	bash scripts/setup.sh

install:
	pip install -e '.[dev]'

lint:
	ruff check cmb tests bench
	ruff format --check cmb

typecheck:
	mypy

# The import directions of the architecture ([tool.importlinter] in pyproject.toml).
contracts:
	lint-imports

# The README's test command (and CI's). Re-runs of expensive reproductions are marked and run on their own.
test:
	pytest -m "not reproduction"

test-reproductions:
	pytest -m reproduction

test-fast:
	pytest -m "not slow and not reproduction"

verify:
	cmb tasks validate
	cmb tasks verify

check: lint typecheck contracts test

# The main job on the embedded defaults: a sweep of the oracle, null and recall baselines over the whole suite
# (local Ray, docker sandboxes, Parquet + MLflow under ./cmb-data), its tables, and its HTML report.
demo:
	cmb tasks validate
	cmb sweep --agents oracle,null,recall --tasks all --conditions SF,SR,WF,WR --trials 1 --sweep-id demo --resume
	cmb results demo
	cmb report demo --out cmb-data/demo-report.html
