"""The ``gamemaster`` command line: a thin layer over the Game Master.

Human output uses rich; ``--json`` prints one JSON document for programs.
Exit codes: 0 ok, 1 a reported problem, 2 bad usage.
"""

from __future__ import annotations

import errno
import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .printable import markup_safe, printable
from .problems import GamemasterError

app = typer.Typer(
    help="Run a studio of AI characters scene by scene.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
scene_app = typer.Typer(help="Play single scenes.", no_args_is_help=True)
day_app = typer.Typer(help="Play whole days.", no_args_is_help=True)
agents_app = typer.Typer(help="Character subagents for Claude Code.", no_args_is_help=True)
hook_app = typer.Typer(help="Claude Code hooks.", no_args_is_help=True)
plugin_app = typer.Typer(help="The Claude Code plugin that ships with the toolkit.", no_args_is_help=True)
app.add_typer(scene_app, name="scene")
app.add_typer(day_app, name="day")
app.add_typer(agents_app, name="agents")
app.add_typer(hook_app, name="hook")
app.add_typer(plugin_app, name="plugin")

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for programs.")]


class Context:
    def __init__(self, root: Optional[Path]):
        from .workspace import Workspace, resolve_root

        self.workspace = Workspace(resolve_root(root))

    def gm(self):
        from .gm import GameMaster

        self.workspace.require()
        self._gm = GameMaster(self.workspace)
        return self._gm

    def report_warnings(self) -> None:
        found = getattr(getattr(self, "_gm", None), "warnings", []) + self.workspace.warnings
        for problem in dict.fromkeys(found):
            text = str(problem).replace(": warning: ", ": ", 1)
            print(f"warning: {printable(text)}", file=sys.stderr)


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def _print_json(data) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _fail(message: str) -> None:
    print(f"error: {printable(message)}", file=sys.stderr)
    raise typer.Exit(1)


def _run(ctx: typer.Context, action):
    """Call ``action(Context)`` and turn reported problems into exit code 1."""
    from .fsio import LockBusy
    from .replies import ReplyError

    try:
        return action(ctx.obj)
    except (GamemasterError, ReplyError, LockBusy) as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(_describe_os_error(ctx.obj.workspace, exc))
    finally:
        ctx.obj.report_warnings()


#: A write that failed for want of space: nothing half-written stays behind (atomic rewrites,
#: whole-line appends, the journal), so the hint can promise that.
_NO_SPACE = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


def _describe_os_error(workspace, exc: OSError) -> str:
    where = workspace.rel(Path(exc.filename)) if exc.filename else str(workspace.root)
    reason = exc.strerror or str(exc)
    if exc.errno in _NO_SPACE:
        return (f"{where}: {reason}; nothing was lost: every file is either as before or complete, "
                "and the next gamemaster command resumes the scene once there is space")
    return f"{where}: {reason}"


@app.callback()
def main(
    ctx: typer.Context,
    root: Annotated[
        Optional[Path],
        typer.Option("--root", envvar="GAMEMASTER_ROOT", help="Workspace folder (default: the current directory)."),
    ] = None,
) -> None:
    ctx.obj = Context(root)


def _scene_lines(spec, names: dict[str, str]) -> list[str]:
    """Plain lines, control characters escaped: names, topics and reasons come from files."""
    topic = f" · {spec.topic}" if spec.topic else ""
    return [
        printable(f"{spec.ref} {spec.type}{topic}"),
        printable("  " + ", ".join(names.get(p, p) for p in spec.participants)),
        printable(f"  why: {spec.reason}"),
    ]


def _describe_scene(console, spec, names: dict[str, str]) -> None:
    from rich.markup import escape

    first, people, why = _scene_lines(spec, names)
    console.print(f"[bold]{escape(first)}[/]", soft_wrap=True)
    console.print(people, markup=False, soft_wrap=True)
    console.print(f"[dim]{escape(why)}[/]", soft_wrap=True)


# -- workspace -------------------------------------------------------------


@app.command()
def init(
    ctx: typer.Context,
    directory: Annotated[Optional[Path], typer.Argument(help="Where to create it (default: --root or here).")] = None,
    empty: Annotated[bool, typer.Option("--empty", help="No characters: an empty studio.")] = False,
    plugin: Annotated[bool, typer.Option("--plugin", help="Claude Code runs the Game Master from the gamemaster plugin "
                                         "(claude --plugin-dir \"$(gamemaster plugin path)\"), not from workspace commands.")] = False,
) -> None:
    """Create a workspace with the bundled studio and editable prompts."""
    from .workspace import init_workspace

    def action(obj: Context):
        target = directory.resolve() if directory else obj.workspace.root
        workspace = init_workspace(target, empty=empty, plugin=plugin)
        console = _console()
        console.print(f"workspace ready: {workspace.root}", markup=False)
        console.print("next: gamemaster day advance", markup=False)

    _run(ctx, action)


@app.command()
def status(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Day, scene, the pending scene and every agent's accumulator, plan and memory count."""

    def action(obj: Context):
        gm = obj.gm()
        data = gm.status()
        if as_json:
            return _print_json(data)
        from rich.table import Table

        from .scenes import SceneSpec

        rows, threshold, pending = data["agents"], data["reflection_threshold"], data["pending"]
        console = _console()
        console.print(f"[bold]{markup_safe(data['studio'])}[/] · day {data['day']:03d} · scene {data['scene']:02d}")
        if pending:
            console.print("pending:", style="bold")
            _describe_scene(console, SceneSpec.model_validate(pending), {r["id"]: r["name"] for r in rows})
            console.print(f"  replies: {len(pending['replied'])}/{len(pending['turns'])}")
        table = Table("agent", "accumulator", "memories", "plan", "last scene")
        for row in rows:
            over = row["accumulator"] > threshold
            acc = f"[bold red]{row['accumulator']}[/]" if over else str(row["accumulator"])
            table.add_row(row["id"], f"{acc}/{threshold}", str(row["memories"]), markup_safe(row["plan"] or "—"), row["last_scene"] or "—")
        console.print(table)
        for brief in data["briefs"]:
            console.print(printable(f"brief {brief['id']} waiting: {brief['text']}"), markup=False)

    _run(ctx, action)


# -- the scene cycle ---------------------------------------------------------


def _force(kind: Optional[str], with_: Optional[str], topic: Optional[str]):
    from .force import force_from_text

    try:
        return force_from_text(kind, with_, topic)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--type")


TypeOption = Annotated[Optional[str], typer.Option("--type", help="Force the scene type: ARRIVAL, WORK, MEETING, REFLECTION.")]
WithOption = Annotated[Optional[str], typer.Option("--with", help="Force the participants: comma-separated agent ids.")]
TopicOption = Annotated[Optional[str], typer.Option("--topic", help="Force the scene's topic.")]


@app.command("next")
def next_scene(
    ctx: typer.Context,
    kind: TypeOption = None,
    with_: WithOption = None,
    topic: TopicOption = None,
    as_json: JsonOption = False,
) -> None:
    """Decide the next scene and write its prompts under scenes/ (shows the pending one if any)."""
    force = _force(kind, with_, topic)

    def action(obj: Context):
        gm = obj.gm()
        pending, opened = gm.open_next(force)
        if as_json:
            return _print_json({"opened": opened, **pending.describe()})
        lines = ["new scene:" if opened else "still pending:"]
        lines += _scene_lines(pending.spec, {a.id: a.name for a in gm.agents().values()})
        lines += [
            f"  prompt: {obj.workspace.rel(pending.prompt_path(i))}"
            for i in range(len(pending.turns))
            if pending.prompt_path(i).exists()
        ]
        print(printable("\n".join(lines)))

    _run(ctx, action)


@app.command()
def prompt(ctx: typer.Context, agent: Annotated[str, typer.Argument(help="Agent id.")]) -> None:
    """Print AGENT's prompt for the pending scene (in a MEETING: for the current turn)."""

    def action(obj: Context):
        sys.stdout.write(obj.gm().prompt_text(agent))

    _run(ctx, action)


def _result_lines(spec, result) -> list[str]:
    lines = [f"applied {spec.ref} {spec.type}: {len(result.written)} memories"]
    lines += [f"  {e['id']} ({e['type']}, {e['importance']}) {e['description'][:90]}" for e in result.written]
    lines += [f"  artifact: {path}" for path in result.artifacts]
    return [printable(line) for line in lines]


def _applied_before(workspace, outcome, as_json: bool) -> None:
    """`apply` after the SubagentStop hook (or another process) wrote the scene back: what it wrote."""
    if outcome.record is None:
        message = f"scene {', '.join(outcome.applied_before)} is already applied; nothing written"
        return _print_json({"applied": False, "message": message}) if as_json else print(message)
    ref, record = outcome.applied_before[0], outcome.record
    closed = workspace.rel(outcome.day_summary) if outcome.day_summary else None
    if as_json:
        return _print_json({"applied": False, "already_applied": ref, "written": record.get("written", []),
                            "artifacts": record.get("artifacts", []), "day_summary": closed})
    lines = [f"scene {ref} is already applied (by the SubagentStop hook or another gamemaster process); nothing written"]
    lines += [f"  {e['id']} ({e['type']}, {e['importance']}) {e['description'][:90]}" for e in record.get("written", [])]
    lines += [f"  artifact: {path}" for path in record.get("artifacts", [])]
    if closed:
        lines.append(f"day closed: {closed}")
    print(printable("\n".join(lines)))


@app.command()
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
        from .reply_input import read_replies

        gm = obj.gm()
        outcome = gm.apply_pending(read_replies(replies, sys.stdin) if replies else None)
        pending, result = outcome.pending, outcome.result
        if outcome.applied_before:
            return _applied_before(obj.workspace, outcome, as_json)
        if result is None:
            waiting = pending.waiting()
            if as_json:
                return _print_json({"applied": False, "scene": pending.spec.ref, "waiting": waiting})
            nxt = pending.turns[pending.missing()[0]]
            return print(
                f"stored; {pending.spec.ref} waits for: {', '.join(waiting)}\n"
                f"next: gamemaster prompt {nxt}"
            )
        summary = outcome.day_summary
        if as_json:
            return _print_json(
                {"applied": True, "scene": pending.spec.ref, "written": result.written, "artifacts": result.artifacts,
                 "day_summary": str(summary) if summary else None}
            )
        lines = _result_lines(pending.spec, result)
        if summary:
            lines.append(f"day closed: {obj.workspace.rel(summary)}")
        print("\n".join(lines))

    _run(ctx, action)


@app.command()
def reply(
    ctx: typer.Context,
    agent: Annotated[str, typer.Argument(help="Agent id.")],
    source: Annotated[str, typer.Argument(help="A file with the reply, or - for standard input.")] = "-",
    as_json: JsonOption = False,
) -> None:
    """Store AGENT's reply for the pending scene: JSON, fenced or with prose around it."""

    def action(obj: Context):
        from .reply_input import read_reply

        text = read_reply(source, sys.stdin)
        pending, stored = obj.gm().submit_reply(agent, text)
        waiting = pending.waiting()
        if as_json:
            return _print_json({"stored": True, "agent": agent, "scene": pending.spec.ref, "waiting": waiting})
        lines = [f"stored {agent}'s reply for {pending.spec.ref}"]
        if waiting:
            lines.append(f"waiting for: {', '.join(waiting)}")
            if pending.spec.kind.in_sequence:
                lines.append(f"next: gamemaster prompt {pending.turns[pending.missing()[0]]}")
        else:
            lines.append("every reply is in: gamemaster apply")
        print("\n".join(lines))

    _run(ctx, action)


@agents_app.command("sync")
def agents_sync(
    ctx: typer.Context,
    check: Annotated[bool, typer.Option("--check", help="Only report; exit 1 if the files are out of date.")] = False,
) -> None:
    """Write .claude/agents/character-*.md from state/agents, and bring the toolkit's Claude Code files up to date."""
    from .claude_code import sync_subagents

    from .claude_files import states, update

    def action(obj: Context):
        obj.workspace.require()
        result = sync_subagents(obj.workspace, check=check)
        verb = "out of date" if check else "written"
        for path in result.written:
            print(f"{verb}: {path}")
        for path in result.removed:
            print(f"{'stale' if check else 'removed'}: {path}")
        if not result.changed:
            print("subagents are up to date")
        # CLAUDE.md, the commands and the settings: as the installed toolkit ships them?
        found = states(obj.workspace)
        stale = [s for s in found if s.stale]
        for state in found:
            if state.status == "changed here":
                print(f"changed here (kept; the installed toolkit ships another version): {state.path}")
        if check:
            for state in stale:
                print(f"{state.status} (the installed toolkit ships a newer one): {state.path}")
        else:
            for path in update(obj.workspace):
                print(f"updated: {path}")
        if check and (result.changed or stale):
            raise typer.Exit(1)

    _run(ctx, action)


@hook_app.command("subagent-stop")
def hook_subagent_stop(
    ctx: typer.Context,
    from_plugin: Annotated[bool, typer.Option("--from-plugin", hidden=True,
                                              help="Run by the plugin: step aside where the workspace has its own hook.")] = False,
) -> None:
    """Claude Code's SubagentStop hook: store a character's reply, or send it back with the reason."""
    from .claude_code import subagent_stop_hook

    def action(obj: Context):
        answer = subagent_stop_hook(obj.workspace, sys.stdin.read(), from_plugin=from_plugin)
        if answer is not None:
            _print_json(answer)

    _run(ctx, action)


@plugin_app.command("path")
def plugin_path() -> None:
    """Print the plugin's folder, for `claude --plugin-dir "$(gamemaster plugin path)"`."""
    from .claude_plugin import plugin_dir

    print(plugin_dir())


@app.command()
def mcp(ctx: typer.Context) -> None:
    """Serve the Game Master as MCP tools over stdio (needs the `mcp` extra)."""

    def action(obj: Context):
        obj.workspace.require()
        try:
            from .mcp_server import build_server
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] == "mcp":
                raise GamemasterError('the MCP server needs the mcp extra: pip install -e ".[mcp]"') from None
            raise
        build_server(obj.workspace).run("stdio")

    _run(ctx, action)


def _backend(name: Optional[str], options: dict):
    from .backends import BackendChoiceError, get_backend

    try:
        return get_backend(name, **options)
    except BackendChoiceError as exc:
        raise typer.BadParameter(str(exc), param_hint="--backend")


BackendOption = Annotated[
    Optional[str],
    typer.Option("--backend", help="offline, or anthropic (the default when ANTHROPIC_API_KEY is set)."),
]


class _Display:
    """Progress for people: one line per scene, a spinner while characters answer."""

    def __init__(self, console, names: dict[str, str], backend_name: str):
        self.console = console
        self.names = names
        self.status = None
        from .backends import LOCAL_BACKENDS

        if backend_name in LOCAL_BACKENDS:
            console.print(f"[yellow]{backend_name} backend:[/] characters are played locally; no API calls, no key needed")

    def __call__(self, event: str, data: dict) -> None:
        if event == "scene":
            _describe_scene(self.console, data["spec"], self.names)
            if not data["opened"]:
                self.console.print(f"  [dim]resuming: {data['done']} repl(ies) already stored[/]")
        elif event == "ask":
            self._spin(f"{self.names.get(data['agent'], data['agent'])} answers…")
        elif event == "reply":
            from .lang import short_name

            self.stop()
            reply = data["reply"]
            line = reply.says or reply.action
            name = short_name(self.names.get(data["agent"], data["agent"]))
            self.console.print(f"  [bold]{markup_safe(name)}[/]: {markup_safe(line)}", overflow="ellipsis", no_wrap=True)
        elif event == "batch":
            verb = "resumed" if data["resumed"] else "submitted"
            self.console.print(f"  batch {data['id']} {verb} ({data['requests']} requests)", markup=False)
        elif event == "batch_status":
            counts = ", ".join(f"{k} {v}" for k, v in (data.get("counts") or {}).items() if v)
            self._spin(f"batch {data['status']}{': ' + counts if counts else ''}")
        elif event == "invalid":
            self.console.print(f"  [red]invalid reply[/] {markup_safe(data['error'])}", soft_wrap=True)
        elif event == "applied":
            self.stop()
            outcome = data["outcome"]
            result = outcome.result
            self.console.print(
                f"  → {len(result.written)} memories, {len(result.artifacts)} artifact(s)"
                + "".join(f"\n  → {markup_safe(a)}" for a in result.artifacts)
            )
            if outcome.day_summary:
                from rich.markdown import Markdown

                self.console.rule(f"end of day · {outcome.day_summary.parent.name}")
                self.console.print(Markdown(printable(outcome.day_summary.read_text(encoding="utf-8"))))

    def _spin(self, text: str) -> None:
        if self.status is None:
            self.status = self.console.status(text)
            self.status.start()
        else:
            self.status.update(text)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None


def _play(ctx: typer.Context, backend_name: Optional[str], as_json: bool, play, options: dict | None = None) -> None:
    def action(obj: Context):
        gm = obj.gm()
        backend = _backend(backend_name, options or {})
        console = _console()
        display = None if as_json else _Display(console, {a.id: a.name for a in gm.agents().values()}, backend.name)
        try:
            play(gm, backend, display or (lambda event, data: None))
            if display and hasattr(backend, "model_for"):
                from .costs import cost_report

                total = cost_report(obj.workspace)["total"]
                console.print(
                    f"API cost so far: ${total['usd']:.2f} over {total['calls']} calls "
                    f"(cache write {total['cache_creation_input_tokens']:,}, cache read "
                    f"{total['cache_read_input_tokens']:,} tokens); details: gamemaster cost"
                )
        except KeyboardInterrupt:
            if display:
                display.stop()
            _console(stderr=True).print("interrupted; `gamemaster day advance` resumes where this stopped")
            raise typer.Exit(130)
        finally:
            if display:
                display.stop()

    _run(ctx, action)


def _outcome_json(outcome) -> dict:
    return {
        "scene": outcome.spec.ref,
        "type": outcome.spec.type,
        "participants": outcome.spec.participants,
        "reason": outcome.spec.reason,
        "written": outcome.result.written,
        "artifacts": outcome.result.artifacts,
        "day_summary": str(outcome.day_summary) if outcome.day_summary else None,
    }


ModelOption = Annotated[Optional[str], typer.Option("--model", help="Model for every character (API backends), overriding state.")]
ConcurrencyOption = Annotated[Optional[int], typer.Option("--concurrency", min=1, help="Characters asked at the same time (API backends).")]
BatchOption = Annotated[bool, typer.Option("--batch", help="Send each scene's independent calls as one Message Batch (half price).")]
PollOption = Annotated[float, typer.Option("--poll", min=0.0, help="Seconds between batch status checks.")]


@scene_app.command("run")
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
    as_json: JsonOption = False,
) -> None:
    """Play the pending (or next) scene through a backend and write it back."""
    force = _force(kind, with_, topic)

    def play(gm, chosen, listen):
        from .loop import run_scene

        outcome = run_scene(gm, chosen, force, listen, batch=batch, poll_seconds=poll)
        if as_json:
            _print_json(_outcome_json(outcome))

    _play(ctx, backend, as_json, play, {"model": model, "concurrency": concurrency})


@day_app.command("advance")
def day_advance(
    ctx: typer.Context,
    days: Annotated[int, typer.Option("--days", min=1, help="How many day ends to play to.")] = 1,
    backend: BackendOption = None,
    model: ModelOption = None,
    concurrency: ConcurrencyOption = None,
    batch: BatchOption = False,
    budget: Annotated[
        Optional[float],
        typer.Option("--budget", min=0.0, help="Stop before a scene that would take this workspace's total API spend (see `cost`) past USD."),
    ] = None,
    poll: PollOption = 10.0,
    as_json: JsonOption = False,
) -> None:
    """Play scenes until the day ends (--days N: N day ends); resumes after an interruption."""

    def play(gm, chosen, listen):
        from .loop import advance_days

        report = advance_days(gm, chosen, days, listen, batch=batch, budget=budget, poll_seconds=poll)
        if as_json:
            _print_json({"scenes": [_outcome_json(o) for o in report.scenes], "summaries": [str(p) for p in report.summaries]})

    _play(ctx, backend, as_json, play, {"model": model, "concurrency": concurrency})


@app.command()
def cost(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Tokens and dollars per day and per agent, at the list prices in gamemaster/pricing.py."""
    from .costs import cost_report
    from .pricing import FALLBACK_FAMILY, USAGE_FIELDS

    def action(obj: Context):
        obj.workspace.require()
        report = cost_report(obj.workspace)
        if as_json:
            return _print_json(report)
        from rich.table import Table

        console = _console()
        headers = ("calls", "input", "output", "cache write", "cache read", "USD")
        for title, rows in (("day", report["days"]), ("agent", report["agents"])):
            table = Table(title, *headers)
            for key, row in sorted(rows.items()):
                table.add_row(key, str(row["calls"]), *(f"{row[f]:,}" for f in USAGE_FIELDS), f"{row['usd']:.4f}")
            total = report["total"]
            table.add_row("total", str(total["calls"]), *(f"{total[f]:,}" for f in USAGE_FIELDS), f"{total['usd']:.4f}", style="bold")
            console.print(table)
        if not report["total"]["calls"]:
            console.print("no API calls recorded (the offline backend costs nothing)")
        if report["unpriced"]:
            console.print(
                f"[yellow]note:[/] no list price for {', '.join(report['unpriced'])}: priced as "
                f"{FALLBACK_FAMILY}; add the family to gamemaster/pricing.py"
            )

    _run(ctx, action)


# -- memories, briefs, checks ---------------------------------------------------


@app.command()
def memories(
    ctx: typer.Context,
    agent: Annotated[str, typer.Argument(help="Agent id.")],
    tag: Annotated[Optional[str], typer.Option("--tag", help="Only memories with this tag.")] = None,
    grep: Annotated[Optional[str], typer.Option("--grep", help="Only memories whose description contains TEXT.")] = None,
    kind: Annotated[Optional[str], typer.Option("--type", help="Only this memory type.")] = None,
    last: Annotated[Optional[int], typer.Option("--last", min=1, help="Only the last N matches.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List an agent's memories, filtered by tag, text and type."""

    def action(obj: Context):
        obj.workspace.require()
        items, problems = obj.workspace.stream(agent).matching(tag=tag, text=grep, kind=kind, last=last)
        if as_json:
            return _print_json(
                {"memories": [i.memory.model_dump(mode="json") for i in items], "problems": [str(p) for p in problems]}
            )
        from rich.table import Table

        console = _console()
        table = Table("id", "created", "type", "imp.", "description", "tags")
        for item in items:
            m = item.memory
            table.add_row(m.id, m.created or "—", m.type + (f" d{m.depth}" if m.depth else ""), str(m.importance), m.description, ", ".join(m.tags))
        console.print(table)
        for problem in problems:
            print(problem, file=sys.stderr)

    _run(ctx, action)


@app.command()
def brief(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The Creative Director's feedback.")],
    to: Annotated[Optional[list[str]], typer.Option("--to", help="Addressee (repeatable); default everyone.")] = None,
    importance: Annotated[int, typer.Option("--importance", min=1, max=10, help="Importance of the observation.")] = 9,
    as_json: JsonOption = False,
) -> None:
    """Creative Director feedback, delivered as a high-importance observation."""

    def action(obj: Context):
        result = obj.gm().brief(text, to or None, importance)
        if as_json:
            return _print_json(result.model_dump())
        _console().print(f"{result.id} delivered to {', '.join(result.to or ['everyone'])} (received in {result.created})", markup=False)

    _run(ctx, action)


@app.command()
def validate(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Check every state file; every problem as file:line: reason; exit 1 if any."""
    from .validate import validate_workspace

    def action(obj: Context):
        obj.workspace.require()
        problems = validate_workspace(obj.workspace)
        errors = [p for p in problems if not p.warning]
        if as_json:
            _print_json({"ok": not errors, "problems": [str(p) for p in problems]})
        else:
            for problem in problems:
                print(problem)
            print(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s)")
        if errors:
            raise typer.Exit(1)

    _run(ctx, action)


@app.command()
def schema() -> None:
    """Print the JSON Schema of a character's reply."""
    from .replies import reply_schema

    _print_json(reply_schema())

from . import cli_memory  # noqa: E402,F401  (registers recall and ask)
