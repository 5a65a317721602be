"""Playing through a backend, for ``scene run``, ``day advance`` and ``ask``: which backend,
its options, progress for people and what an interruption leaves."""

from __future__ import annotations

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


def play(ctx: typer.Context, backend_name: Optional[str], as_json: bool, steps, options: dict | None = None) -> None:
    """Run ``steps(gm, backend, listen)`` with progress for people, or quietly for ``--json``."""

    def action(obj: Context):
        gm = obj.gm()
        backend = choose_backend(backend_name, options or {})
        console = rich_console()
        display = None if as_json else ProgressDisplay(console, {a.id: a.name for a in gm.agents().values()}, backend)
        try:
            steps(gm, backend, display or (lambda event, data: None))
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

    run(ctx, action)


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
