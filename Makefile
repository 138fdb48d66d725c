.PHONY: setup install check lint typecheck test test-fast verify

setup:
	bash scripts/setup.sh

install:
	pip install -e '.[dev]'

lint:
	ruff check cmb tests bench
	ruff format --check cmb

typecheck:
	mypy

test:
	pytest

test-fast:
	pytest -m "not slow"

verify:
	cmb tasks validate
	cmb tasks verify

check: lint typecheck test
