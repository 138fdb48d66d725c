"""The effective value of one input setting: what the code would use, and how that value came about."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cmb.grading.settings._rules import Rule


class Origin(StrEnum):
    """Where an effective value comes from."""

    SET = "set"  # the input gives it
    DEFAULT = "default"  # the code's own default
    CONDITIONAL_DEFAULT = "conditional default"  # a default that depends on other settings
    FORCED = "forced"  # the code replaces whatever the input gives
    ABSENT = "absent"  # not given and no default on record: taken as not set
    UNKNOWN = "unknown"  # cannot be told without running the code
    INVALID = "invalid"  # the code stops on the value given


@dataclass(frozen=True)
class Effective:
    """One setting's effective value, its origin, the rule that decided it and a note saying how, in words.

    Each code renders it in its own terms (`describe`); grading messages quote that rendering.
    """

    name: str
    value: Any = None
    origin: Origin = Origin.DEFAULT
    rule: Rule[Any] | None = None  # the conditional default or forced rule that applied, if one did
    note: str = ""
    written: Any = None  # the value as the input writes it, when it does

    @property
    def known(self) -> bool:
        """Whether the grader can tell the value."""
        return self.origin not in (Origin.UNKNOWN, Origin.INVALID)

    def describe(self) -> str:
        """The value and how it came about."""
        return f"{self.name} = {self.value!r} ({self.origin}{': ' + self.note if self.note else ''})"
