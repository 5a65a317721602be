"""``gamemaster recall`` and ``gamemaster ask``: what a character remembers, and an interview."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from .cli import BackendOption, Context, JsonOption, _backend, _console, _print_json, _run, app
from .printable import printable
from .problems import GamemasterError

BudgetOption = Annotated[
    Optional[int], typer.Option("--budget", min=100, help="Characters of memory lines (default: memory_budget in world.json).")
]
StrategyOption = Annotated[
    Optional[str], typer.Option("--strategy", help="A retrieval strategy (default: selection in world.json).")
]


def _agent_id(value: str) -> str:
    from .ids import agent_id

    try:
        return agent_id(value)
    except ValueError as exc:
        raise GamemasterError(f"agent: {exc}") from None


def _print_selection(selection, title: str) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title), title_justify="left", show_lines=False, expand=False)
    for column in ("section", "id", "imp", "score"):
        table.add_column(column, no_wrap=True)
    table.add_column("matched", overflow="fold", max_width=18)
    table.add_column("memory", overflow="fold", ratio=1)
    for p in selection.in_prompt_order():
        matched = ", ".join(p.matched) or (f"next to {p.neighbour_of}" if p.neighbour_of else "")
        score = "" if p.score is None else f"{p.score:.2f}"
        memory = f"{p.memory.created or '?'} · {p.memory.description}"
        cells = (p.section, p.memory.id, str(p.memory.importance), score, matched, memory)
        table.add_row(*(Text(printable(c)) for c in cells))  # Text, so nothing from a file is read as markup
    console = _console()
    console.print(table)
    console.print(Text(f"{len(selection.picked)} memories, {selection.chars:,} of {selection.budget:,} characters, strategy {selection.strategy}"))


@app.command()
def recall(
    ctx: typer.Context,
    agent: Annotated[str, typer.Argument(help="Agent id.")],
    query: Annotated[str, typer.Argument(help="What the scene is about, or any question.")],
    budget: BudgetOption = None,
    strategy: StrategyOption = None,
    as_json: JsonOption = False,
) -> None:
    """The memories a scene on QUERY would show AGENT, in prompt order, with why each was picked."""
    from .retrieval import recall as select

    def action(obj: Context):
        obj.workspace.require()
        selection = select(obj.workspace, _agent_id(agent), query, strategy=strategy, budget=budget)
        for problem in selection.problems:
            print(f"warning: {problem}", file=sys.stderr)
        if as_json:
            _print_json(selection.to_json(agent, query))
        else:
            _print_selection(selection, f"{agent} recalls: {query}")

    _run(ctx, action)


@app.command()
def ask(
    ctx: typer.Context,
    agent: Annotated[str, typer.Argument(help="Agent id.")],
    question: Annotated[str, typer.Argument(help="What you ask the character.")],
    backend: BackendOption = None,
    remember: Annotated[bool, typer.Option("--remember", help="Keep the exchange as a conversation memory.")] = False,
    show_prompt: Annotated[bool, typer.Option("--prompt", help="Only print the interview prompt (for a subagent).")] = False,
    answer_file: Annotated[
        Optional[str], typer.Option("--answer", help="Take the answer from FILE or - (stdin) instead of a backend.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Interview a character: it answers in character from its persona and what it recalls."""
    from . import interview

    def action(obj: Context):
        obj.workspace.require()
        agent_id = _agent_id(agent)
        built = interview.build(obj.workspace, agent_id, question)
        if show_prompt:
            sys.stdout.write(built.prompt)
            return
        if answer_file is not None:
            raw = sys.stdin.read() if answer_file == "-" else _read(answer_file)
            result = interview.from_text(built, raw)
        else:
            result = interview.run(built, _backend(backend, {}))
        stored = interview.remember(obj.workspace, built, result) if remember else None
        if as_json:
            _print_json({**result.to_json(), "remembered": stored})
            return
        from rich.text import Text

        console = _console()
        console.print(Text(printable(f"{built.agent.name}: "), style="bold") + Text(printable(result.answer)))
        console.print(Text(f"rests on: {', '.join(result.memories) or 'no memory'}", style="dim"))
        if stored:
            console.print(Text(f"remembered as {stored}"))

    _run(ctx, action)


def _read(path: str) -> str:
    from pathlib import Path

    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GamemasterError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
