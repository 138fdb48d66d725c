"""Check family `demo`: registered on import, found by cmb through the `cmb.checks` entry point."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from cmb.grading import CheckContext, Outcome, register


class GreetingParams(BaseModel):
    """Parameters of demo.greeting."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str = "hello"


@register("demo.greeting", params=GreetingParams, needs_reference=False)
def greeting(ctx: CheckContext[GreetingParams]) -> Outcome:
    """The target file starts with the expected word."""
    text = ctx.submission.read_text(ctx.check.target.file).strip()
    word = ctx.params.word
    return Outcome(text.startswith(word), f"starts with {word!r}" if text.startswith(word) else f"got {text[:40]!r}")
