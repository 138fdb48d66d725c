"""A multi-partition LAMMPS run (a NEB under mpirun -partition) is a finished run: its universe log never carries
the completion marker, its per-partition logs do. The supervisor and the audit both accept it on that evidence,
and only on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cmb.runner._audit import AuditInput, NetworkProbe, audit
from cmb.runner._codelog import CodeCall, LogVerdict, code_table
from cmb.runner._supervise import partitions_done

MARKER = "Total wall time"
UNIVERSE = "partitions of processors"
UNIVERSE_LOG = (
    "LAMMPS (29 Sep 2021)\nRunning on 3 partitions of processors\nStep MaxReplicaForce EBF EBR\n87 0.0009 0.5 0.49\n"
)
PARTITION_LOG = (
    "LAMMPS (29 Sep 2021)\nProcessor partition = {k}\nneb 0.0 0.001 2000 2000 100 final f\nTotal wall time: 0:00:01\n"
)


def write_run(folder: Path, *, finished: tuple[bool, ...] = (True, True, True)) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "neb.log").write_text(UNIVERSE_LOG)
    for k, done in enumerate(finished):
        text = PARTITION_LOG.format(k=k)
        (folder / f"neb.log.{k}").write_text(text if done else text.replace(MARKER, "ERROR: lost"))
    return folder / "neb.log"


def test_universe_log_whose_partitions_all_finished_counts_as_done(tmp_path):
    assert partitions_done(write_run(tmp_path), MARKER, UNIVERSE)


def test_one_unfinished_partition_is_not_done(tmp_path):
    assert not partitions_done(write_run(tmp_path, finished=(True, False, True)), MARKER, UNIVERSE)


def test_universe_log_without_partition_logs_is_not_done(tmp_path):
    log = write_run(tmp_path, finished=())
    assert not partitions_done(log, MARKER, UNIVERSE)


def test_an_ordinary_unfinished_log_is_not_a_universe_log(tmp_path):
    (tmp_path / "log.lammps").write_text("LAMMPS (29 Sep 2021)\nminimize 0 1e-8 10 10\n")
    (tmp_path / "log.lammps.0").write_text(PARTITION_LOG.format(k=0))  # a stray file does not vouch for it
    assert not partitions_done(tmp_path / "log.lammps", MARKER, UNIVERSE)
    assert not partitions_done(tmp_path / "log.lammps", MARKER, None)


def test_every_lammps_executable_knows_its_universe_log():
    table = code_table()
    assert all(table.executables[exe].universe_signature == UNIVERSE for exe in ("lmp", "lmp_serial", "lmp_mpi"))


def _audit(folder: Path):
    call = CodeCall(
        seg="s0",
        seq=0,
        exe="mpirun",
        code="lmp",
        cwd=str(folder),
        start=1.0,
        end=3.0,
        exit=0,
        markers=[MARKER],
        argv=["mpirun", "-np", "3", "lmp", "-in", "neb.in", "-log", "neb.log", "-partition", "3x1"],
    )
    return audit(
        AuditInput(
            required_codes=["lmp"],
            verdict=LogVerdict(calls=[call], problems=[]),
            heads=[],
            network=NetworkProbe(ran=True),
            collected_dir=folder,
            staged_hashes={},
            table=code_table(),
        )
    )


def test_audit_accepts_a_finished_partitioned_run(tmp_path):
    write_run(tmp_path)
    report = _audit(tmp_path)
    assert report.passed, report.messages


@pytest.mark.parametrize("finished", [(True, False, True), ()])
def test_audit_flags_a_universe_log_whose_partitions_did_not_finish(tmp_path, finished):
    write_run(tmp_path, finished=finished)
    report = _audit(tmp_path)
    assert not report.flags.job_done
    assert any("neb.log has no completion marker" in m for m in report.messages)
