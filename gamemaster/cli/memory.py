"""What characters remember: ``memories`` lists it, ``brief`` adds the Creative Director's word,
``recall`` shows what a scene would pick, ``ask`` interviews a character."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ..jsontext import Encoded
from ..printable import printable
from ..problems import GamemasterError
from .common import AgentArgument, Context, JsonOption, print_json, print_json_rows, rich_console, memory_type_choice, run, strategy_choice
from .play import BackendOption, choose_backend

BudgetOption = Annotated[
    Optional[int], typer.Option("--budget", help="Characters of memory lines (default: memory_budget in world.json).")
]
StrategyOption = Annotated[
    Optional[str], typer.Option("--strategy", click_type=strategy_choice(),
                                help="A retrieval strategy (default: selection in world.json).")
]


def memories(
    ctx: typer.Context,
    agent: AgentArgument,
    tag: Annotated[Optional[str], typer.Option("--tag", help="Only memories with this tag.")] = None,
    grep: Annotated[Optional[str], typer.Option("--grep", help="Only memories whose description contains TEXT.")] = None,
    kind: Annotated[Optional[str], typer.Option("--type", click_type=memory_type_choice(), help="Only this memory type.")] = None,
    last: Annotated[Optional[int], typer.Option("--last", min=1, help="Only the last N matches.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List an agent's memories, filtered by tag, text and type."""

    def action(obj: Context):
        obj.workspace.require()
        stream = obj.workspace.stream(obj.workspace.check_agent(agent))
        encoded = (lambda item: _json_of(item.memory)) if as_json else (lambda item: item)
        if tag is not None or kind is not None:  # the search index knows tags and types: no full scan
            from ..memory_list import indexed_matching

            items, problems = indexed_matching(stream, obj.workspace.load_world().language, tag, grep, kind, last,
                                               encoded)
        else:
            found, problems = stream.matching(tag=tag, text=grep, kind=kind, last=last)
            items = [encoded(item) for item in found]
        if as_json:
            return print_json_rows({"memories": items, "problems": [str(p) for p in problems]})
        _print_memories([item.memory for item in items])
        for problem in problems:
            print(problem, file=sys.stderr)

    run(ctx, action)


def _json_of(memory) -> Encoded:
    """The memory as JSON, written by its model's own encoder (the same JSON as ``model_dump``, a
    third of the time); a string holding half of a surrogate pair (``"\\ud800"`` in the file's
    metadata), which that encoder refuses and stdout cannot print, is written as that escape."""
    try:
        return Encoded(memory.model_dump_json())
    except ValueError:
        from ..jsontext import dumps

        return Encoded(dumps(memory.model_dump(mode="json"), ensure_ascii=True))


#: Up to this many memories are a table; more are a line each (a table of 34,000 rows took 40 s to lay out).
TABLE_ROWS = 200


def _print_memories(memories: list) -> None:
    """A table of the memories, or a line each when there are many; what they say is shown as
    it is written (as text, not markup; control characters as ``\\x..``)."""
    cells = [(m.id, m.created or "—", m.type + (f" d{m.depth}" if m.depth else ""), str(m.importance), m.description,
              ", ".join(m.tags)) for m in memories]
    if len(cells) > TABLE_ROWS:
        # A line break inside a description is shown as \n: a memory stays one line, for grep and head.
        sys.stdout.write("".join(printable(f"{i}  {c}  {t}  {imp}  {d}" + (f"  [{g}]" if g else "")).replace("\n", "\\n")
                                 + "\n" for i, c, t, imp, d, g in cells))
        return
    from rich.table import Table
    from rich.text import Text

    table = Table("id", "created", "type", "imp.", "description", "tags")
    for row in cells:
        table.add_row(*(Text(printable(c)) for c in row))
    rich_console().print(table)


def brief(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(metavar="TEXT", help="The Creative Director's feedback.")],
    to: Annotated[Optional[list[str]], typer.Option("--to", help="Addressee (repeatable); default everyone.")] = None,
    importance: Annotated[int, typer.Option("--importance", min=1, max=10, help="Importance of the observation.")] = 9,
    as_json: JsonOption = False,
) -> None:
    """Creative Director feedback, delivered as a high-importance observation."""

    from ..briefs import give_brief

    def action(obj: Context):
        workspace = obj.gm().workspace
        result = give_brief(workspace, text, to or None, importance)
        if as_json:
            return print_json(result.model_dump())
        rich_console().print(f"{result.id} delivered to {', '.join(result.to or ['everyone'])} (received in {result.created})", markup=False)
        _print_dates(workspace.load_world(), result)

    run(ctx, action)


def recall(
    ctx: typer.Context,
    agent: AgentArgument,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What the scene is about, or any question.")],
    budget: BudgetOption = None,
    strategy: StrategyOption = None,
    as_json: JsonOption = False,
) -> None:
    """The memories a scene on QUERY would show AGENT, in prompt order, with why each was picked."""
    from ..retrieval import recall as select
    from ..retrieval.versions import replaced_in

    def action(obj: Context):
        obj.workspace.require()
        selection = select(obj.workspace, agent, query, strategy=strategy, budget=budget)
        for problem in selection.problems:
            print(f"warning: {problem}", file=sys.stderr)
        if as_json:
            print_json(selection.to_json(agent, query, replaced_in(selection)))
        else:
            _print_selection(selection, f"{agent} recalls: {query}")

    run(ctx, action)


def lookup(
    ctx: typer.Context,
    agent: AgentArgument,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What the character is looking for, in its words.")],
) -> None:
    """A character looks QUERY up in its own memory during its turn of the pending scene: whole
    memories its prompt did not show, the best matches first (at most three times a turn)."""

    def action(obj: Context):
        obj.workspace.require()
        print(printable(obj.gm().lookup(agent, query)))  # as written; a control character is shown, not run

    run(ctx, action)


def who_knows(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="A piece of news or any words.")],
    as_json: JsonOption = False,
) -> None:
    """For every character: would they recall QUERY, since which scene, and from whom they heard it."""
    from ..retrieval.heard import cut
    from ..who_knows import who_knows as diffusion

    def action(obj: Context):
        obj.workspace.require()
        result = diffusion(obj.workspace, query)
        for problem in result.problems:
            print(f"warning: {problem}", file=sys.stderr)
        if as_json:
            return print_json(result.as_json())
        from rich.table import Table
        from rich.text import Text

        table = Table(title=Text(f"who knows: {printable(query)}"), title_justify="left")
        for column in ("character", "knows", "since", "from", "memory"):
            table.add_column(column, no_wrap=True)
        table.add_column("what they recall", overflow="fold", ratio=1)
        newer = any(row.newer for row in result.rows)
        if newer:  # a later memory corrects what they heard: the version they hold now
            table.add_column("holds now", overflow="fold", ratio=1)
        for row in result.rows:
            cells = (row.agent, "yes" if row.knows else "no", row.since or "", row.source or "", row.memory or "",
                     cut(row.text or "", 160)) + ((f"{row.newer[0]}: {cut(row.newer[1], 160)}" if row.newer else "",)
                                                  if newer else ())
            table.add_row(*(Text(printable(c)) for c in cells))
        console = rich_console()
        console.print(table)
        console.print(Text(f"{len(result.knowing)} of {len(result.rows)} characters know it"))

    run(ctx, action)


def ask(
    ctx: typer.Context,
    agent: AgentArgument,
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="What you ask the character.")],
    backend: BackendOption = None,
    remember: Annotated[bool, typer.Option("--remember", help="Keep the exchange as a conversation memory.")] = False,
    show_prompt: Annotated[bool, typer.Option("--prompt", help="Only print the interview prompt (for a subagent).")] = False,
    answer_file: Annotated[
        Optional[str], typer.Option("--answer", help="Take the answer from FILE or - (stdin) instead of a backend.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Interview a character: it answers in character from its persona and what it recalls."""
    from .. import interview

    def action(obj: Context):
        obj.workspace.require()
        built = interview.build(obj.workspace, agent, question)
        if show_prompt:
            sys.stdout.write(built.prompt)
            return
        if answer_file is not None:
            raw = sys.stdin.read() if answer_file == "-" else _read_answer(answer_file)
            result = interview.from_text(built, raw)
        else:
            result = interview.run(built, choose_backend(backend, {}))
        stored = interview.remember(obj.workspace, built, result) if remember else None
        if as_json:
            print_json({**result.to_json(), "remembered": stored})
            return
        from rich.text import Text

        console = rich_console()
        console.print(Text(printable(f"{built.agent.name}: "), style="bold") + Text(printable(result.answer)))
        console.print(Text(f"rests on: {', '.join(result.memories) or 'no memory'}", style="dim"))
        if stored:
            console.print(Text(f"remembered as {stored}"))

    run(ctx, action)


def _print_selection(selection, title: str) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title), title_justify="left", show_lines=False, expand=False)
    for column in ("section", "id", "imp", "score"):
        table.add_column(column, no_wrap=True)
    table.add_column("why", overflow="fold", max_width=18)
    table.add_column("memory", overflow="fold", ratio=1)
    from ..retrieval.versions import replaced_in

    replaced = replaced_in(selection)
    for p in selection.in_prompt_order():
        score = "" if p.score is None else f"{p.score:.2f}"
        memory = "\n".join([f"{p.memory.created or '?'} · {p.memory.description}", *(h.strip() for h in p.heard)])
        why = p.reason + (f"; replaced by {replaced[p.memory.id][0]}" if p.memory.id in replaced else "")
        cells = (p.section, p.memory.id, str(p.memory.importance), score, why, memory)
        table.add_row(*(Text(printable(c)) for c in cells))  # Text, so nothing from a file is read as markup
    console = rich_console()
    console.print(table)
    console.print(Text(f"{len(selection.picked)} memories, {selection.chars:,} of {selection.budget:,} characters, strategy {selection.strategy}"))


def _read_answer(path: str) -> str:
    from pathlib import Path

    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GamemasterError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None


def _print_dates(world, brief) -> None:
    """What the brief says about days, read on the day it was given, as its addressees will read it."""
    from ..calendar import brief_day, resolve, summary

    found = resolve(brief.text, world.language, world, brief_day(brief, max(world.day, 1)))
    if found:
        rich_console().print(printable(summary(found)), markup=False, highlight=False, soft_wrap=True)
