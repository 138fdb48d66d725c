"""Results written before RunRecord version 2 (free-text exit reason, audit flags as a dict) still load everywhere.

The fixture under fixtures/v1/ was written by the previous version of cmb itself (make_v1.py there says how).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cmb.analysis import Analysis, AnalysisOptions
from cmb.models import RUN_RECORD_VERSION, AuditFlags, ExitReason, FailureClass, Kind
from cmb.store import RESULTS_SCHEMA_VERSION, ParquetStore
from tests.store.records import make_record

V1 = Path(__file__).parent / "fixtures" / "v1"
ALL_OK = AuditFlags(log_intact=True, code_invoked=True, job_done=True, wallclock_ok=True, network_isolated=True)


def test_the_fixture_is_in_the_old_shape() -> None:
    runs = ParquetStore(V1 / "results").runs("v1")
    assert set(runs["schema_version"]) == {1} and runs.height == 4
    assert '"version":1' in runs["record_json"][0] and '"audit_flags":{' in runs["record_json"][0]


def test_old_records_load_typed_and_upgraded() -> None:
    records = {str(r.key): r for r in ParquetStore(V1 / "results").records("v1")}
    assert {r.version for r in records.values()} == {RUN_RECORD_VERSION}
    passed = records["v1/oracle/t1/SF/0"]
    assert passed.audit_flags == ALL_OK and passed.exit_reason is ExitReason.COMPLETED
    assert passed.kind is Kind.OUTPUT_ANALYSIS
    failed = records["v1/null/t1/SF/0"]
    assert failed.audit_flags == ALL_OK.model_copy(update={"code_invoked": False})
    assert failed.exit_reason is ExitReason.AGENT_ERROR
    infra = records["v1/oracle/t2/SF/0"]  # audit_flags {} and a free-text reason
    assert infra.audit_flags is None and infra.exit_reason is ExitReason.INFRASTRUCTURE
    assert infra.failure_class is FailureClass.INFRASTRUCTURE and infra.retries == 2
    legacy = records["v1/null/t2/SF/0"]  # "error", which the old description listed
    assert legacy.exit_reason is ExitReason.AGENT_ERROR


def test_old_and_new_rows_read_side_by_side_and_analyse(tmp_path: Path) -> None:
    shutil.copytree(V1, tmp_path, dirs_exist_ok=True)
    store = ParquetStore(tmp_path / "results")
    store.write(make_record("v1/oracle/t3/SF/0"))
    runs = store.runs("v1")
    assert set(runs["schema_version"]) == {1, RESULTS_SCHEMA_VERSION} and runs.height == 5
    assert set(runs["exit_reason"]) == {"completed", "agent-error", "node lost", "error"}  # columns as written
    assert len(store.records("v1")) == 5
    assert store.done_keys("v1") == {"v1/oracle/t1/SF/0", "v1/null/t1/SF/0", "v1/null/t2/SF/0", "v1/oracle/t3/SF/0"}
    analysis = Analysis.from_store(tmp_path, ["v1"], AnalysisOptions(n_boot=100))
    table = analysis.table("pass")
    assert table.rows, table


def test_new_records_keep_the_column_strings(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    record = make_record("s/null/t1/SF/0", passed=False, failure=FailureClass.INFRASTRUCTURE)
    store.write(record)
    row = store.runs("s").row(0, named=True)
    assert (row["exit_reason"], row["kind"], row["schema_version"]) == ("infrastructure", "output-analysis", 2)
