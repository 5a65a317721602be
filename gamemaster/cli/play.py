"""Playing through a backend, for ``scene run``, ``day advance`` and ``ask``: which backend,
its options, progress for people and what an interruption leaves."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..backends.registry import BACKENDS
from ..printable import markup_safe, printable
from .common import Context, describe_scene, rich_console, run

BackendOption = Annotated[
    Optional[str],
    typer.Option(
        "--backend",
        help=f"{', '.join(BACKENDS)} or one an installed package adds "
        "(default: anthropic when ANTHROPIC_API_KEY is set, else offline).",
    ),
]
ModelOption = Annotated[Optional[str], typer.Option("--model", help="Model for every character (API backends), overriding state.")]
ConcurrencyOption = Annotated[Optional[int], typer.Option("--concurrency", min=1, help="Characters asked at the same time (API backends).")]
BatchOption = Annotated[bool, typer.Option("--batch", help="Send each scene's independent calls as one Message Batch (half price).")]
PollOption = Annotated[float, typer.Option("--poll", min=0.0, help="Seconds between batch status checks.")]
RecordOption = Annotated[Optional[Path], typer.Option(
    "--record", metavar="DIR", help="Record every answer (the prompt, the reply as written, model, usage) into DIR; "
    "`--backend replay --from DIR` plays it back.")]
FromOption = Annotated[Optional[Path], typer.Option("--from", metavar="DIR", help="The recording --backend replay plays.")]
FallbackOption = Annotated[Optional[str], typer.Option(
    "--fallback", metavar="BACKEND", help="With --backend replay: the backend that plays what the recording lacks.")]
StrictOption = Annotated[bool, typer.Option(
    "--strict", help="With --backend replay: an answer whose prompt changed since it was recorded counts as not recorded.")]


def replay_options(source: Optional[Path], fallback: Optional[str], strict: bool) -> dict:
    """The replay options as backend options; unset ones as None, so other backends take no offence."""
    return {"source": source, "fallback": fallback, "strict": strict or None}


def choose_backend(name: Optional[str], options: dict):
    from ..backends import BackendChoiceError, get_backend

    try:
        return get_backend(name, **options)
    except BackendChoiceError as exc:
        raise typer.BadParameter(str(exc), param_hint="--backend")


class ProgressDisplay:
    """Progress for people: one line per scene, a spinner while characters answer."""

    def __init__(self, console, names: dict[str, str], backend):
        self.console = console
        self.names = names
        self.status = None
        if backend.capabilities.local:
            console.print(f"[yellow]{backend.name} backend:[/] characters are played locally; no API calls, no key needed")
        notice = getattr(backend, "notice", None)  # what a backend wants said before it plays
        if notice:
            console.print(f"[yellow]{backend.name} backend:[/] {markup_safe(notice)}")

    def __call__(self, event: str, data: dict) -> None:
        if event == "scene":
            describe_scene(self.console, data["spec"], self.names)
            if not data["opened"]:
                self.console.print(f"  [dim]resuming: {data['done']} repl(ies) already stored[/]")
        elif event == "ask":
            self._spin(f"{self.names.get(data['agent'], data['agent'])} answers…")
        elif event == "reply":
            from ..lang import short_name

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
        elif event == "notice":
            self.stop()
            self.console.print(f"  [yellow]note:[/] {markup_safe(data['text'])}", soft_wrap=True)
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


def _notices_only(event: str, data: dict) -> None:
    """``--json``'s listener: the output is for programs, what a backend has to say goes to stderr."""
    if event == "notice":
        import sys

        print(f"note: {printable(data['text'])}", file=sys.stderr)


def play(ctx: typer.Context, backend_name: Optional[str], as_json: bool, steps, options: dict | None = None,
         record: Optional[Path] = None) -> None:
    """Run ``steps(gm, backend, listen)`` with progress for people, or quietly for ``--json``;
    with ``record``, every answer is recorded into that folder."""

    def action(obj: Context):
        gm = obj.gm()
        backend = choose_backend(backend_name, options or {})
        if record is not None:
            from ..recording import open_recorder

            gm.recorder = open_recorder(obj.workspace, record, gm.world().studio)
        console = rich_console()
        display = None if as_json else ProgressDisplay(console, {a.id: a.name for a in gm.agents().values()}, backend)
        try:
            steps(gm, backend, display or _notices_only)
            if display and backend.capabilities.usage:
                from ..costs import cost_report

                total = cost_report(obj.workspace)["total"]
                console.print(
                    f"API cost so far: ${total['usd']:.2f} over {total['calls']} calls "
                    f"(cache write {total['cache_creation_input_tokens']:,}, cache read "
                    f"{total['cache_read_input_tokens']:,} tokens); details: gamemaster cost"
                )
        except KeyboardInterrupt:
            if display:
                display.stop()
            rich_console(stderr=True).print("interrupted; `gamemaster day advance` resumes where this stopped")
            raise typer.Exit(130)
        finally:
            if display:
                display.stop()
            _closing(rich_console(stderr=as_json), gm, backend)

    run(ctx, action)


def _closing(console, gm, backend) -> None:
    """What a replay replayed and a recording kept, said last (also after a failure)."""
    summary = getattr(backend, "summary", None)
    if summary is not None:
        console.print(f"{backend.name}: {markup_safe(summary())}", soft_wrap=True)
    if gm.recorder is not None:
        console.print(f"recorded {gm.recorder.count} answer(s) into {markup_safe(str(gm.recorder.root))}", soft_wrap=True)


def outcome_json(outcome) -> dict:
    return {
        "scene": outcome.spec.ref,
        "type": outcome.spec.type,
        "participants": outcome.spec.participants,
        "reason": outcome.spec.reason,
        "written": outcome.result.written,
        "artifacts": outcome.result.artifacts,
        "day_summary": str(outcome.day_summary) if outcome.day_summary else None,
    }
