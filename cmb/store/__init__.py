"""Results storage: Parquet as the source of truth, MLflow as its mirror."""

from cmb.store._schema import CHECKS_SCHEMA, RESULTS_SCHEMA_VERSION, RUNS_SCHEMA, check_rows, run_row

__all__ = ["CHECKS_SCHEMA", "RESULTS_SCHEMA_VERSION", "RUNS_SCHEMA", "check_rows", "run_row"]
