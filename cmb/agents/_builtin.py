"""Agents that need no model.

`null` submits nothing, `oracle` runs the task's reference solution, `recall` writes what a well-read researcher
would quote from memory and runs no code. The oracle must pass every task; null and recall must fail every task.
"""

from __future__ import annotations

from cmb.agents._base import Agent, AgentContext, AgentOutcome, register_agent

ORACLE_DIR = ".oracle/solution"


@register_agent("null")
class NullAgent(Agent):
    """Does nothing and submits nothing: every task must fail with it."""

    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Run `true` under the supervisor, so the attempt still goes through every phase."""
        return AgentOutcome.from_exec(ctx.exec(["true"]), steps=0)


@register_agent("oracle")
class OracleAgent(Agent):
    """Runs the task's own solution/solve.sh: proves the task solvable through the whole pipeline.

    The only agent that sees anything from references/: its task's solution folder, copied to a path outside the
    working folder the answers are collected from.
    """

    sees_solution = True

    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Copy solution/ in, run solve.sh in the working folder with CMB_SOLUTION_DIR set."""
        if ctx.solution_dir is None or not (ctx.solution_dir / "solve.sh").is_file():
            return AgentOutcome(exit_code=None, error=f"task {ctx.task.id} has no solution/solve.sh")
        ctx.put_dir(ctx.solution_dir, ORACLE_DIR)
        solution = f"{ctx.paths.root}/{ORACLE_DIR}"
        result = ctx.exec(["bash", f"{solution}/solve.sh"], env={"CMB_SOLUTION_DIR": solution})
        return AgentOutcome.from_exec(result, steps=1)


@register_agent("recall")
class RecallAgent(Agent):
    """Writes the task's recall submission (references/<id>/recall.yaml) into the working folder, runs no code.

    A benchmark whose answers can be quoted from the literature measures memory, not research: every task must
    fail this baseline on the gated score.
    """

    sees_recall = True

    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Put the recalled files in the working folder, then run `true` so the attempt goes through every phase."""
        if ctx.recall is None:
            return AgentOutcome(exit_code=None, error=f"task {ctx.task.id} has no recall.yaml")
        ctx.put_files(ctx.recall.submission(), ctx.paths.work.removeprefix(ctx.paths.root).lstrip("/"))
        return AgentOutcome.from_exec(ctx.exec(["true"]), steps=0)
