"""The execution audit: was the code really run, did every required run finish, plausibly, with no network.

Four flags as in audited scoring, plus the integrity of the signed code log itself. A failed flag voids the score
(the raw score is kept beside the gated one). Tasks that require no code (input preparation, output analysis) pass
the code flags vacuously; the log and the network are checked for every attempt.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from cmb.models import AuditFlags, CmbModel
from cmb.runner._codelog import CodeCall, CodeTable, LogVerdict, SegmentHead
from cmb.runner._supervise import partitions_done

SIGNATURE_WINDOW = 64 * 1024
MAX_SCANNED_FILE = 64 * 1024 * 1024
CLOCK_SLACK_S = 2.0


class NetworkProbe(CmbModel):
    """What a probe inside the sandbox could reach before the agent started."""

    ran: bool = Field(description="Whether the probe ran at all")
    reached: list[str] = Field(default_factory=list, description="Destinations it connected to")
    error: str | None = None
    sandbox: str | None = Field(default=None, description="The sandbox probed (a pooled one is named by its pool)")
    warm_s: float | None = Field(
        default=None, description="Seconds from the probe to the attempt's claim of a pooled sandbox; none: not pooled"
    )

    @property
    def isolated(self) -> bool:
        """The probe ran and reached nothing but the gateway."""
        return self.ran and not self.reached


class AuditReport(CmbModel):
    """Flags, messages and the verified calls the audit looked at."""

    passed: bool
    flags: AuditFlags
    messages: list[str] = Field(default_factory=list)
    calls: list[CodeCall] = Field(default_factory=list)


@dataclass(frozen=True)
class AuditInput:
    """Everything the audit reads; all of it collected from the sandbox or measured by the host."""

    required_codes: list[str]
    verdict: LogVerdict
    heads: list[SegmentHead]
    network: NetworkProbe
    collected_dir: Path | None  # the working folder as collected, None when it could not be
    staged_hashes: dict[str, str]  # relative path -> sha256 of files the harness staged
    table: CodeTable


def sha256_file(path: Path) -> str:
    """Hex digest of a file."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _required_calls(inp: AuditInput, required: str) -> list[CodeCall]:
    return [c for c in inp.verdict.calls if inp.table.matches(required, c.code) or inp.table.matches(required, c.exe)]


def _scan_outputs(inp: AuditInput, messages: list[str]) -> bool:
    """Every output file of a required code that the agent produced carries that code's completion marker."""
    if inp.collected_dir is None:
        return True
    wanted = {
        exe: info
        for exe, info in inp.table.executables.items()
        if info.file_signature and info.file_marker and any(inp.table.matches(r, exe) for r in inp.required_codes)
    }
    signatures = {
        (i.file_signature, i.file_marker, i.universe_signature)
        for i in wanted.values()
        if i.file_signature and i.file_marker
    }
    ok = True
    for path in sorted(inp.collected_dir.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_SCANNED_FILE:
            continue
        rel = str(path.relative_to(inp.collected_dir))
        if rel in inp.staged_hashes and inp.staged_hashes[rel] == sha256_file(path):
            continue  # a precomputed output the harness staged, untouched
        with path.open("rb") as f:
            head = f.read(SIGNATURE_WINDOW)
        for signature, marker, universe in signatures:
            if signature.encode() not in head or marker.encode() in path.read_bytes():
                continue
            if not partitions_done(path, marker, universe):
                messages.append(f"job_done: output {rel} has no completion marker {marker!r}")
                ok = False
    return ok


def audit(inp: AuditInput) -> AuditReport:
    """Compute the flags; the audit passes only when every flag holds."""
    messages = list(inp.verdict.problems)
    invoked = True
    done = True
    plausible = True
    windows = {h.seg: (h.start, h.end) for h in inp.heads}
    for required in inp.required_codes:
        calls = [c for c in _required_calls(inp, required) if c.exit == 0 and c.error is None]
        if not calls:
            invoked = False
            messages.append(f"code_invoked: no successful recorded call of {required}")
            continue
        marker_calls = [c for c in calls if _marker(inp.table, c)]
        if marker_calls and not any(_marker(inp.table, c) in c.markers for c in marker_calls):
            done = False
            messages.append(f"job_done: no successful call of {required} printed its completion marker")
        for c in calls:
            info = inp.table.executables.get(c.code) or inp.table.executables.get(c.exe)
            floor = info.min_seconds if info else 0.0
            if c.seconds < floor:
                plausible = False
                messages.append(f"wallclock: {' '.join(c.argv[:4])} took {c.seconds:.3f} s (< {floor} s)")
            window = windows.get(c.seg)
            if window and not (window[0] - CLOCK_SLACK_S <= c.start <= c.end <= window[1] + CLOCK_SLACK_S):
                plausible = False
                messages.append(f"wallclock: call {c.seg}/{c.seq} lies outside its supervised command")
    if inp.required_codes:
        done = _scan_outputs(inp, messages) and done
    flags = AuditFlags(
        log_intact=inp.verdict.intact,
        code_invoked=invoked,
        job_done=done,
        wallclock_ok=plausible,
        network_isolated=inp.network.isolated,
    )
    if not inp.network.ran:
        messages.append(f"network: the isolation probe did not run ({inp.network.error})")
    elif inp.network.reached:
        messages.append(f"network: the sandbox reached {', '.join(inp.network.reached)}")
    return AuditReport(passed=flags.passed, flags=flags, messages=messages, calls=inp.verdict.calls)


def _marker(table: CodeTable, call: CodeCall) -> str | None:
    info = table.executables.get(call.code)
    return info.completion_marker if info else None
