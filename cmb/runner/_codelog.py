"""Host side of the code-invocation log: the code table, per-segment keys, and verification of the signed chain."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field

from cmb.models import CmbModel
from cmb.runner._supervise import HEAD_PREFIX, head_mac, line_mac

CODES_FILE = Path(__file__).with_name("codes.yaml")


class CodeInfo(CmbModel):
    """What the harness knows about one executable (see codes.yaml)."""

    code: str
    stdout_marker: str | None = None
    file_marker: str | None = None
    file_signature: str | None = None
    min_seconds: float = 0.0
    launcher: bool = False
    log_option: str | None = None
    log_default: str | None = None
    universe_signature: str | None = None

    @property
    def completion_marker(self) -> str | None:
        """The marker a finished call shows on stdout or in its own log; None when the code has none."""
        if self.stdout_marker:
            return self.stdout_marker
        return self.file_marker if self.log_option or self.log_default else None


class CodeTable(CmbModel):
    """All wrapped executables."""

    version: int = 1
    executables: dict[str, CodeInfo]

    def matches(self, required: str, exe: str) -> bool:
        """Whether a call of `exe` satisfies a required code given by executable or family name."""
        info = self.executables.get(exe)
        return exe == required or (info is not None and info.code == required)


@cache
def code_table(path: Path = CODES_FILE) -> CodeTable:
    """The code table shipped with the harness."""
    return CodeTable.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


class CodeCall(CmbModel):
    """One verified call of a wrapped code, as observed by the supervisor."""

    seg: str
    seq: int
    exe: str
    code: str
    argv: list[str]
    cwd: str
    start: float
    end: float
    exit: int
    signal: int | None = None
    markers: list[str] = Field(default_factory=list)
    error: str | None = None

    @property
    def seconds(self) -> float:
        """Wall-clock duration of the call."""
        return self.end - self.start


class SegmentHead(CmbModel):
    """The signed summary the supervisor writes when one supervised command ends."""

    seg: str
    n: int
    last_mac: str
    agent_exit: int
    timed_out: bool
    start: float
    end: float
    dumpable: int = -1
    head_mac: str


@dataclass
class Segment:
    """One supervised command: its key, and its head once seen."""

    id: str
    key: bytes
    head: SegmentHead | None = None


@dataclass
class KeyRing:
    """The per-segment keys of one attempt; they never leave the host except once, to the supervisor."""

    segments: list[Segment] = field(default_factory=list)

    def new(self) -> Segment:
        """A fresh segment with a random key."""
        seg = Segment(id=f"s{len(self.segments)}", key=secrets.token_bytes(32))
        self.segments.append(seg)
        return seg

    def get(self, seg_id: str) -> Segment | None:
        """A segment by id."""
        return next((s for s in self.segments if s.id == seg_id), None)


def parse_heads(text: str) -> list[dict[str, Any]]:
    """Head lines found in a command's stderr."""
    heads = []
    for line in text.splitlines():
        if line.startswith(HEAD_PREFIX):
            try:
                heads.append(json.loads(line[len(HEAD_PREFIX) :]))
            except ValueError:
                continue
    return heads


def accept_head(ring: KeyRing, candidate: dict[str, Any]) -> bool:
    """Record a head for its segment if its MAC verifies; forged or foreign heads are ignored."""
    seg = ring.get(str(candidate.get("seg")))
    if seg is None or not isinstance(candidate.get("head_mac"), str):
        return False
    body = {k: v for k, v in candidate.items() if k != "head_mac"}
    if head_mac(seg.key, body) != candidate["head_mac"]:
        return False
    try:
        seg.head = SegmentHead.model_validate(candidate)
    except ValueError:
        return False
    return True


@dataclass
class LogVerdict:
    """Verified calls and every reason the log cannot be trusted."""

    calls: list[CodeCall]
    problems: list[str]

    @property
    def intact(self) -> bool:
        """Every line verified and every segment's head matched."""
        return not self.problems


def verify_log(text: str, ring: KeyRing, killed_segments: frozenset[str] = frozenset()) -> LogVerdict:
    """Check every line's chained MAC and each segment's head. `killed_segments` ended without a head by force."""
    calls: list[CodeCall] = []
    problems: list[str] = []
    state: dict[str, tuple[int, str]] = {s.id: (0, "") for s in ring.segments}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not an object")
        except ValueError:
            problems.append(f"code log line {lineno} is not a JSON object")
            continue
        seg = ring.get(str(obj.get("seg")))
        mac = obj.get("mac")
        if seg is None or not isinstance(mac, str):
            problems.append(f"code log line {lineno} belongs to no segment of this attempt")
            continue
        n, prev = state[seg.id]
        body = {k: v for k, v in obj.items() if k != "mac"}
        if obj.get("seq") != n or line_mac(seg.key, prev, body) != mac:
            problems.append(f"code log line {lineno} does not verify (edited, inserted, reordered or forged)")
            continue
        state[seg.id] = (n + 1, mac)
        try:
            calls.append(CodeCall.model_validate(body))
        except ValueError:
            problems.append(f"code log line {lineno} verifies but is malformed")
    for seg in ring.segments:
        n, last = state[seg.id]
        if seg.head is None:
            if seg.id not in killed_segments:
                problems.append(f"segment {seg.id} has no signed head (the supervisor was killed or bypassed)")
            continue
        if seg.head.n != n or seg.head.last_mac != last:
            problems.append(f"segment {seg.id}: the log holds {n} verified lines, the signed head says {seg.head.n}")
    return LogVerdict(calls=calls, problems=problems)
