"""One scene: by hand (``next``, ``prompt``, ``reply``, ``apply``, and ``schema`` for what a reply
must be), or played through a backend (``scene run``)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer
from typer.core import TyperCommand

from ..printable import printable
from .common import AgentArgument, Context, JsonOption, fail, kind_choice, print_json, run, scene_lines
from .play import (BackendOption, BatchOption, ConcurrencyOption, FallbackOption, FromOption, ModelOption, PollOption,
                   RecordOption, StrictOption, outcome_json, play, replay_options)

scene_app = typer.Typer(help="Play single scenes.", no_args_is_help=True)

class KindsCommand(TyperCommand):
    """A command whose help names the scene kinds there are (``{kinds}`` in an option's help):
    found only when the help is shown, since finding them imports every kind and the other
    commands' start-up stays fast."""

    def format_help(self, ctx, formatter) -> None:
        from ..kinds import kind_names

        for param in self.params:
            if isinstance(param.help, str) and "{kinds}" in param.help:
                param.help = param.help.replace("{kinds}", ", ".join(kind_names()))
        super().format_help(ctx, formatter)


TypeOption = Annotated[Optional[str], typer.Option("--type", click_type=kind_choice(), help="Force the scene type: {kinds}.")]
WithOption = Annotated[Optional[str], typer.Option("--with", help="Force the participants: comma-separated agent ids.")]
TopicOption = Annotated[Optional[str], typer.Option("--topic", help="Force the scene's topic.")]


def forced(kind: Optional[str], with_: Optional[str], topic: Optional[str]):
    from ..force import force_from_text

    try:
        return force_from_text(kind, with_, topic)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--type")


def next_scene(
    ctx: typer.Context,
    kind: TypeOption = None,
    with_: WithOption = None,
    topic: TopicOption = None,
    as_json: JsonOption = False,
) -> None:
    """Decide the next scene and write its prompts under scenes/ (shows the pending one if any)."""
    force = forced(kind, with_, topic)

    def action(obj: Context):
        gm = obj.gm()
        obj.workspace.check_agents(force.participants, "--with: ")
        pending, opened = gm.open_next(force)
        if as_json:
            return print_json({"opened": opened, **pending.describe(gm.world().language)})
        lines = ["new scene:" if opened else "still pending:"]
        lines += scene_lines(pending.spec, {a.id: a.name for a in gm.agents().values()})
        lines += [
            f"  prompt: {obj.workspace.rel(pending.prompt_path(i))}"
            for i in range(len(pending.turns))
            if pending.prompt_path(i).exists()
        ]
        print(printable("\n".join(lines)))

    run(ctx, action)


def prompt(ctx: typer.Context, agent: AgentArgument) -> None:
    """Print AGENT's prompt for the pending scene (in a MEETING: for the current turn)."""

    def action(obj: Context):
        # The prompt holds text from files (memories, library excerpts): controls as escapes.
        sys.stdout.write(printable(obj.gm().prompt_text(agent)))

    run(ctx, action)


def reply(
    ctx: typer.Context,
    agent: AgentArgument,
    source: Annotated[str, typer.Argument(metavar="FILE", help="A file with the reply, or - for standard input.")] = "-",
    as_json: JsonOption = False,
) -> None:
    """Store AGENT's reply for the pending scene: JSON, fenced or with prose around it."""

    def action(obj: Context):
        from ..reply_input import read_reply

        text = read_reply(source, sys.stdin)
        pending, stored = obj.gm().submit_reply(agent, text)
        waiting = pending.waiting()
        if as_json:
            return print_json({"stored": True, "agent": agent, "scene": pending.spec.ref, "waiting": waiting})
        lines = [f"stored {agent}'s reply for {pending.spec.ref}"]
        if waiting:
            lines.append(f"waiting for: {', '.join(waiting)}")
            if pending.spec.kind.in_sequence:
                lines.append(f"next: gamemaster prompt {pending.turns[pending.missing()[0]]}")
        else:
            lines.append("every reply is in: gamemaster apply")
        print("\n".join(lines))

    run(ctx, action)


def apply(
    ctx: typer.Context,
    replies: Annotated[
        Optional[str],
        typer.Option("--replies", help="A folder of <agent>.json replies, or - for one JSON object on stdin."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Validate the pending scene's replies and write the scene back (once)."""

    def action(obj: Context):
        from ..reply_input import read_replies

        gm = obj.gm()
        outcome = gm.apply_pending(read_replies(replies, sys.stdin) if replies else None)
        pending, result = outcome.pending, outcome.result
        if outcome.applied_before:
            return _applied_before(obj.workspace, outcome, as_json)
        if result is None:
            waiting = pending.waiting()
            if as_json:
                return print_json({"applied": False, "scene": pending.spec.ref, "waiting": waiting})
            nxt = pending.turns[pending.missing()[0]]
            return print(
                f"stored; {pending.spec.ref} waits for: {', '.join(waiting)}\n"
                f"next: gamemaster prompt {nxt}"
            )
        summary = outcome.day_summary
        if as_json:
            return print_json(
                {"applied": True, "scene": pending.spec.ref, "written": result.written, "artifacts": result.artifacts,
                 "day_summary": str(summary) if summary else None}
            )
        lines = _result_lines(pending.spec, result)
        if summary:
            lines.append(f"day closed: {obj.workspace.rel(summary)}")
        print("\n".join(lines))

    run(ctx, action)


def _result_lines(spec, result) -> list[str]:
    lines = [f"applied {spec.ref} {spec.type}: {len(result.written)} memories"]
    lines += [f"  {e['id']} ({e['type']}, {e['importance']}) {e['description'][:90]}" for e in result.written]
    lines += [f"  artifact: {path}" for path in result.artifacts]
    return [printable(line) for line in lines]


def _applied_before(workspace, outcome, as_json: bool) -> None:
    """`apply` after the SubagentStop hook (or another process) wrote the scene back: what it wrote."""
    if as_json:
        return print_json(outcome.already_applied_json(workspace.rel))
    if outcome.record is None:
        return print(outcome.already_applied_json(workspace.rel)["message"])
    ref, record = outcome.applied_before[0], outcome.record
    closed = workspace.rel(outcome.day_summary) if outcome.day_summary else None
    lines = [f"scene {ref} is already applied (by the SubagentStop hook or another gamemaster process); nothing written"]
    lines += [f"  {e.id} ({e.type}, {e.importance}) {e.description[:90]}" for e in record.written or []]
    lines += [f"  artifact: {path}" for path in record.artifacts or []]
    if closed:
        lines.append(f"day closed: {closed}")
    print(printable("\n".join(lines)))


def schema(
    kind: Annotated[Optional[str], typer.Option("--type", help="The reply of this scene kind: {kinds}.")] = None,
) -> None:
    """Print the JSON Schema of a character's reply (to a scene of one kind: --type)."""
    from ..kinds import get_kind
    from ..problems import GamemasterError
    from ..replies import reply_schema
    from ..sections import reply_model_for

    try:
        model = reply_model_for(get_kind(kind)) if kind else None
    except GamemasterError as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(f"--type: {exc}")
    print_json(reply_schema(model) if model else reply_schema())


@scene_app.command("run", cls=KindsCommand)
def scene_run(
    ctx: typer.Context,
    backend: BackendOption = None,
    kind: TypeOption = None,
    with_: WithOption = None,
    topic: TopicOption = None,
    model: ModelOption = None,
    concurrency: ConcurrencyOption = None,
    batch: BatchOption = False,
    poll: PollOption = 10.0,
    record: RecordOption = None,
    source: FromOption = None,
    fallback: FallbackOption = None,
    strict: StrictOption = False,
    as_json: JsonOption = False,
) -> None:
    """Play the pending (or next) scene through a backend and write it back."""
    force = forced(kind, with_, topic)

    def steps(gm, chosen, listen):
        from ..loop import run_scene

        gm.workspace.check_agents(force.participants, "--with: ")
        outcome = run_scene(gm, chosen, force, listen, batch=batch, poll_seconds=poll)
        if as_json:
            print_json(outcome_json(outcome))

    play(ctx, backend, as_json, steps, {"model": model, "concurrency": concurrency,
                                        **replay_options(source, fallback, strict)}, record)
