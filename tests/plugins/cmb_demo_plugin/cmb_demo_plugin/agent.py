"""The `demo-greeter` agent: writes the task's greeting file and nothing else; calls no model."""

from __future__ import annotations

from cmb.agents import Agent, AgentContext, AgentOutcome

GREETING = "hello from the demo plugin"


class GreeterAgent(Agent):
    """Writes greeting.txt in the working folder."""

    def run(self, ctx: AgentContext) -> AgentOutcome:
        result = ctx.exec(["sh", "-c", f"printf '%s\\n' '{GREETING}' > greeting.txt"])
        return AgentOutcome.from_exec(result, steps=1)
