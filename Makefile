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
# Two pytest processes at once: the task suite (host CPU: oracles and grading) beside everything else (sandboxes,
# Ray, services and, last, the demo sweep; much of it waits on them), so that the second core is not left idle.
# The task suite's output follows the other's; the target fails if either does.
test:
	@log=$$(mktemp); \
	pytest -m "not reproduction" tests/tasks >"$$log" 2>&1 & tasks=$$!; \
	trap 'kill $$tasks 2>/dev/null' INT TERM; \
	pytest -m "not reproduction" --ignore=tests/tasks; rest=$$?; \
	wait $$tasks; own=$$?; \
	echo "== the task suite (tests/tasks), run beside the above:"; cat "$$log"; rm -f "$$log"; \
	[ $$rest -eq 0 ] && [ $$own -eq 0 ]

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
