"""``gamemaster mcp``: the Game Master's commands as MCP tools over stdio.

Needs the optional extra: ``pip install -e ".[mcp]"``. The tools call the same
Game Master as the CLI, so a scene run through MCP leaves the same state.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal, Optional

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .gm import GameMaster
from .kinds import kind_names
from .problems import GamemasterError
from .replies import ReplyError
from .scenes import Force
from .workspace import Workspace

#: The registered scene kinds, so the tool schema offers exactly those.
SceneKindName = Literal[tuple(kind_names())]  # type: ignore[valid-type]
AgentId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", description="A studio agent id, e.g. 'vera'.")]

INSTRUCTIONS = """Game Master tools for a gamemaster studio. One scene: next_scene, then for each
waiting turn spawn that character's subagent with the turn's `handoff` (the toolkit gives it the
prompt; its reply is stored by the hook), or without subagents prompt(agent) -> let that character
answer -> submit_reply(agent, reply); when nothing is waiting, apply. Never invent a character's reply. recall(agent, query) shows what a character
remembers about something; ask(agent, question) gives the interview prompt for that character,
ask(agent, question, answer) takes the character's answer. report builds the studio's logbook
as a static site and returns the path of its overview page."""


def build_server(workspace: Workspace) -> MCPServer:
    server = MCPServer(name="gamemaster", instructions=INSTRUCTIONS)

    def guarded(call):
        try:
            # Checked per call, not at start: the plugin installed at user scope starts this
            # server in every project, where it must run and say what is wrong in its tools.
            workspace.require()
            return call()
        except (GamemasterError, ReplyError) as exc:
            raise ToolError(str(exc)) from None

    _scene_tools(server, GameMaster(workspace), guarded)
    _studio_tools(server, workspace, guarded)
    return server


def _scene_tools(server: MCPServer, gm: GameMaster, guarded) -> None:
    """The tools that play a scene: status, next, prompt, submit, apply."""
    workspace = gm.workspace

    @server.tool(description="Day, scene, the pending scene (replied and waiting turns) and every agent.")
    def status() -> dict:
        return guarded(gm.status)

    @server.tool(description="Open the next scene, or return the pending one. Optionally force its type, participants and topic.")
    def next_scene(
        type: Optional[SceneKindName] = None,
        participants: list[AgentId] = [],  # noqa: B006 - read only, never mutated
        topic: Optional[str] = None,
    ) -> dict:
        force = Force(type=type or None, participants=participants, topic=topic)

        def open_scene():
            pending, opened = gm.open_next(force)
            return {"opened": opened, **pending.describe(gm.world().language)}

        return guarded(open_scene)

    @server.tool(description="The prompt for this agent's current turn in the pending scene.")
    def prompt(agent: AgentId) -> str:
        return guarded(lambda: gm.prompt_text(agent))

    @server.tool(description="Validate and store a character's reply (JSON, fenced or with prose around it).")
    def submit_reply(agent: AgentId, reply: Annotated[str, Field(min_length=1)]) -> dict:
        def submit():
            pending, _ = gm.submit_reply(agent, reply)
            return {"stored": True, "scene": pending.spec.ref, "waiting": pending.waiting()}

        return guarded(submit)

    @server.tool(description="Write the pending scene back once every reply is stored.")
    def apply() -> dict:
        def write():
            # The SubagentStop hook writes a scene back with its last reply; then this answers
            # "already applied" with what was written, as `gamemaster apply` does, not an error.
            outcome = gm.apply_pending()
            if outcome.result is None:
                return outcome.already_applied_json(workspace.rel)
            summary = outcome.day_summary
            return {
                "applied": outcome.pending.spec.ref,
                "written": outcome.result.written,
                "artifacts": outcome.result.artifacts,
                "day_summary": workspace.rel(summary) if summary else None,
            }

        return guarded(write)


def _studio_tools(server: MCPServer, workspace: Workspace, guarded) -> None:
    """The tools that look into the studio: recall, who knows, interviews, the report."""

    @server.tool(description="The memories a scene on this query would show the agent, with section, score and matched terms.")
    def recall(agent: AgentId, query: Annotated[str, Field(min_length=1)], budget: Optional[int] = None) -> dict:
        from .retrieval import recall as select
        from .retrieval.versions import replaced_in

        def selected() -> dict:
            selection = select(workspace, agent, query, budget=budget)
            return selection.to_json(agent, query, replaced_in(selection))

        return guarded(selected)

    @server.tool(description="For every character: would they recall the query, since which scene, and from whom "
                 "they heard it (the speaker's id, or self).")
    def who_knows(query: Annotated[str, Field(min_length=1)]) -> dict:
        from .who_knows import who_knows as diffusion

        return guarded(lambda: diffusion(workspace, query).as_json())

    @server.tool(
        description="Interview a character. Without `answer`: the prompt to give that character's subagent. "
        "With `answer` (the character's reply): the answer and the memory ids it rests on; remember=true keeps it."
    )
    def ask(
        agent: AgentId,
        question: Annotated[str, Field(min_length=1)],
        # The SDK hands a JSON-looking string over already decoded.
        answer: Optional[str | dict] = None,
        remember: bool = False,
    ) -> dict:
        from . import interview

        def run():
            built = interview.build(workspace, agent, question)
            if answer is None:
                return {"prompt": built.prompt}
            text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
            result = interview.from_text(built, text)
            stored = interview.remember(workspace, built, result) if remember else None
            return {**result.to_json(), "remembered": stored}

        return guarded(run)

    @server.tool(description="Build the studio's report (a static site: overview, days, characters, gallery) "
                 "in report/ of the workspace and return the path of its overview page.")
    def report() -> dict:
        def build():
            from .report import build_report

            result = build_report(workspace)
            return {"path": str(result.index), "written": len(result.written), "unchanged": len(result.unchanged)}

        return guarded(build)
