"""The signed code-invocation log: every kind of tampering an agent can do to the file is detected on the host."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cmb.runner import KeyRing, code_table, verify_log
from cmb.runner._codelog import accept_head, parse_heads
from cmb.runner._supervise import HEAD_PREFIX, CodeLog, head_mac


def _call(i: int, exe: str = "pw.x") -> dict[str, object]:
    return {
        "exe": exe, "code": exe, "argv": [exe, "-in", f"scf_{i}.in"], "cwd": "/w", "start": 10.0 + i,
        "end": 11.0 + i, "exit": 0, "signal": None, "markers": ["JOB DONE."], "error": None,
    }  # fmt: skip


def _signed_log(tmp_path: Path, n: int = 3) -> tuple[KeyRing, Path, dict[str, object]]:
    ring = KeyRing()
    seg = ring.new()
    log = CodeLog(tmp_path / "codelog.jsonl", seg.key, seg.id)
    for i in range(n):
        log.append(_call(i))
    head: dict[str, object] = {
        "seg": seg.id, "n": log.n, "last_mac": log.last_mac, "agent_exit": 0, "timed_out": False,
        "start": 0.0, "end": 100.0, "dumpable": 0,
    }  # fmt: skip
    head["head_mac"] = head_mac(seg.key, head)
    assert accept_head(ring, head)
    return ring, log.path, head


def test_untouched_log_verifies(tmp_path: Path) -> None:
    ring, path, _ = _signed_log(tmp_path)
    verdict = verify_log(path.read_text(), ring)
    assert verdict.intact, verdict.problems
    assert [c.argv[2] for c in verdict.calls] == ["scf_0.in", "scf_1.in", "scf_2.in"]


def test_edited_exit_status_is_detected(tmp_path: Path) -> None:
    ring, path, _ = _signed_log(tmp_path)
    path.write_text(path.read_text().replace('"exit":0', '"exit":1', 1))
    verdict = verify_log(path.read_text(), ring)
    assert not verdict.intact
    assert any("line 1 does not verify" in p for p in verdict.problems)


def test_deleted_line_breaks_the_chain(tmp_path: Path) -> None:
    ring, path, _ = _signed_log(tmp_path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], lines[2]]) + "\n")
    verdict = verify_log(path.read_text(), ring)
    assert not verdict.intact
    assert len(verdict.calls) == 1


def test_truncated_tail_contradicts_the_signed_head(tmp_path: Path) -> None:
    ring, path, _ = _signed_log(tmp_path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n")  # every remaining line still verifies
    verdict = verify_log(path.read_text(), ring)
    assert any("signed head says 3" in p for p in verdict.problems)


def test_reordered_lines_are_detected(tmp_path: Path) -> None:
    ring, path, _ = _signed_log(tmp_path)
    a, b, c = path.read_text().splitlines()
    path.write_text("\n".join([b, a, c]) + "\n")
    assert not verify_log(path.read_text(), ring).intact


def test_line_signed_with_a_guessed_key_is_rejected(tmp_path: Path) -> None:
    ring, path, _ = _signed_log(tmp_path)
    forger = CodeLog(tmp_path / "forged.jsonl", b"not the key", "s0")
    forger.n, forger.last_mac = 3, json.loads(path.read_text().splitlines()[-1])["mac"]
    forger.append(_call(9, "lmp"))
    path.write_text(path.read_text() + (tmp_path / "forged.jsonl").read_text())
    verdict = verify_log(path.read_text(), ring)
    assert any("line 4 does not verify" in p for p in verdict.problems)
    assert all(c.exe == "pw.x" for c in verdict.calls)


def test_unknown_segment_and_garbage_lines_are_problems(tmp_path: Path) -> None:
    ring, path, _ = _signed_log(tmp_path)
    extra = json.dumps({**_call(5), "seg": "s9", "seq": 0, "mac": "00"}) + "\nnot json\n"
    verdict = verify_log(path.read_text() + extra, ring)
    assert any("no segment" in p for p in verdict.problems)
    assert any("not a JSON object" in p for p in verdict.problems)


def test_forged_head_is_ignored(tmp_path: Path) -> None:
    ring = KeyRing()
    seg = ring.new()
    fake = {"seg": seg.id, "n": 0, "last_mac": "", "agent_exit": 0, "timed_out": False, "start": 0, "end": 1}
    fake["head_mac"] = head_mac(b"guess", fake)
    assert not accept_head(ring, fake)
    assert seg.head is None
    assert any("no signed head" in p for p in verify_log("", ring).problems)


def test_missing_head_of_a_killed_segment_is_tolerated(tmp_path: Path) -> None:
    ring = KeyRing()
    seg = ring.new()
    assert verify_log("", ring, frozenset({seg.id})).intact


def test_head_lines_are_found_in_stderr() -> None:
    text = f"noise\n{HEAD_PREFIX}{json.dumps({'seg': 's0'})}\n{HEAD_PREFIX}not json\n"
    assert parse_heads(text) == [{"seg": "s0"}]


@pytest.mark.parametrize("exe", ["pw.x", "ph.x", "lmp", "phonopy", "mpirun"])
def test_code_table_knows_the_common_codes(exe: str) -> None:
    table = code_table()
    assert exe in table.executables
    assert table.matches("qe", "pw.x") and table.matches("lammps", "lmp") and not table.matches("qe", "lmp")
