"""The reader of pw.x inputs: linear-time namelists and cards, never qe-tools' lenient parser.

Reading follows pw.x (gfortran namelist input, then the cards): a value that pw.x would not read (unquoted
text; `T` and `.true.` are both fine, `1.0` for an integer is not, `#` comments are not) is a problem pw.x
stops on, reported by `qe.valid`. qe-tools' own namelist reader silently drops settings written `a=1 b=2` or
`ecutwfc=30 /` and its regular expressions take quadratic time on hostile text, so the namelists and cards are
read here in linear time.
"""

from __future__ import annotations

from typing import Any

from cmb.grading._registry import CheckContext
from cmb.grading._submission import SubmissionError, memoized
from cmb.grading.qe._cards import read_cards
from cmb.grading.qe._input import MAX_PROBLEMS, PwInput
from cmb.grading.qe._namelists import read_namelists, scan_groups

MAX_LINES = 200_000  # 40000 k-points and thousands of atoms fit; more only costs grading time


def parse_pw_input(text: str, name: str = "pw.in") -> PwInput:
    """Read a pw.x input as pw.x 6.7 does; SubmissionError when it is not a pw.x input at all."""
    if text.count("\n") >= MAX_LINES:
        raise SubmissionError(f"{name}: more than {MAX_LINES} lines is not a plausible pw.x input")
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    groups = scan_groups(lines)
    if not any(g.name in ("control", "system", "electrons") for g in groups):
        raise SubmissionError(f"{name}: not a pw.x input (no &CONTROL, &SYSTEM or &ELECTRONS namelist)")
    values, value_lines, read, cards_start, problems, notes = read_namelists(groups)
    cards = read_cards(lines, cards_start, values)
    all_problems = (problems + cards.problems)[:MAX_PROBLEMS]
    return PwInput(
        name=name,
        values=values,
        lines=value_lines,
        namelists=tuple(read),
        species=tuple(cards.species),
        positions=cards.positions,
        cell=cards.cell,
        kpoints=cards.kpoints,
        problems=tuple(all_problems),
        notes=tuple(notes + cards.notes),
    )


def read_pw_input(ctx: CheckContext[Any]) -> PwInput:
    """The check's target file, read safely from the submission and parsed once per grade, failures included."""
    file = ctx.check.target.file
    sub = ctx.submission
    return memoized(sub.memo, f"qe.pw:{file}", lambda: parse_pw_input(sub.read_text(file), file))  # type: ignore[no-any-return]
