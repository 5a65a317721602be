"""What every command shares: the workspace from ``--root``, reported problems as exit code 1,
JSON for programs and how a scene is described to people.

Nothing here imports rich, the Game Master or a backend at import time: every command
pays for this module, so each import waits until a command needs it.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer._types import TyperChoice

from ..printable import printable
from ..problems import GamemasterError, Problem, StateError

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for programs.")]


class Context:
    def __init__(self, root: Optional[Path]):
        from ..stems import STORE
        from ..workspace import Workspace, resolve_root

        self.root = root
        self.workspace = Workspace(resolve_root(root))
        STORE.keep_in(self.workspace.root)

    def target(self, directory: Optional[Path]) -> Path:
        """Where a command that creates a workspace puts it: DIRECTORY, else ``--root``, else the
        current folder; never a workspace found above it."""
        from ..workspace import resolve_root

        return directory.expanduser().resolve() if directory else resolve_root(self.root, walk_up=False)

    def gm(self):
        from ..gm import GameMaster

        self.workspace.require()
        self._gm = GameMaster(self.workspace)
        return self._gm

    def keep_stems(self) -> None:
        """The stems this command computed, for the next one (``stems.py``); only into a workspace."""
        from ..stems import STORE

        if not STORE.added or not self.workspace.state.is_dir():
            return
        try:
            STORE.save()
        except StateError as exc:  # a link out of the workspace: said as for every write
            self.workspace.warn(Problem("state/.cache/stems.json", None, str(exc).split(": ", 1)[-1], warning=True))
        except OSError as exc:  # a derived file: the command did its work, the next one stems again
            reason = exc.strerror or str(exc)
            self.workspace.warn(Problem("state/.cache/stems.json", None, f"not written: {reason}", warning=True))

    def report_warnings(self) -> None:
        found = getattr(getattr(self, "_gm", None), "warnings", []) + self.workspace.warnings
        for problem in dict.fromkeys(found):
            text = str(problem).replace(": warning: ", ": ", 1)
            print(f"warning: {printable(text)}", file=sys.stderr)


def rich_console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def print_json(data) -> None:
    from ..fsio import dump_json

    sys.stdout.write(dump_json(data))


def print_json_rows(data: dict) -> None:
    """``print_json`` for listings: each item of a list on a line of its own."""
    from ..jsontext import dumps_rows

    sys.stdout.write(dumps_rows(data))


def fail(message: str) -> None:
    print(f"error: {printable(message)}", file=sys.stderr)
    raise typer.Exit(1)


#: Where a studio that does not load is pointed to.
DOCTOR_HINT = "`gamemaster doctor` lists every drift from the format and what fixing it does; `gamemaster doctor --fix` fixes them (after a backup)"


def fail_blocked(workspace, exc: StateError) -> None:
    """A state file that does not load: every file and field that blocks, not just the first."""
    from ..validate import blocking_problems

    blocking = blocking_problems(workspace) if workspace.state.is_dir() else []
    if not blocking:
        fail(str(exc))
    lines = [f"the studio cannot be played until {'this is' if len(blocking) == 1 else 'these are'} fixed:"]
    lines += [f"  {p}" for p in blocking]
    lines.append(DOCTOR_HINT)
    print("error: " + "\n".join(printable(line) for line in lines), file=sys.stderr)
    raise typer.Exit(1)


def run(ctx: typer.Context, action):
    """Call ``action(Context)`` and turn reported problems into exit code 1."""
    from ..fsio import LockBusy
    from ..replies import ReplyError

    try:
        return action(ctx.obj)
    except StateError as exc:
        fail_blocked(ctx.obj.workspace, exc)
    except (GamemasterError, ReplyError, LockBusy) as exc:
        fail(str(exc))
    except BrokenPipeError:
        # The reader stopped (`gamemaster prompt vera | head`): click's own handling exits
        # quietly, as `cat` does; it is no problem of the workspace.
        raise
    except OSError as exc:
        fail(describe_os_error(ctx.obj.workspace, exc))
    finally:
        ctx.obj.keep_stems()
        ctx.obj.report_warnings()


#: A write that failed for want of space: nothing half-written stays behind (atomic rewrites,
#: whole-line appends, the journal), so the hint can promise that.
_NO_SPACE = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


def describe_os_error(workspace, exc: OSError) -> str:
    where = workspace.rel(Path(exc.filename)) if exc.filename else str(workspace.root)
    reason = exc.strerror or str(exc)
    if exc.errno in _NO_SPACE:
        return (f"{where}: {reason}; nothing was lost: every file is either as before or complete, "
                "and the next gamemaster command resumes the scene once there is space")
    return f"{where}: {reason}"


def scene_lines(spec, names: dict[str, str]) -> list[str]:
    """Plain lines, control characters escaped: names, topics and reasons come from files."""
    topic = f" · {spec.topic}" if spec.topic else ""
    rooms = spec.rooms or [spec.participants]
    people = [printable(f"  room {n}: " * (len(rooms) > 1) + ", ".join(names.get(p, p) for p in room))
              for n, room in enumerate(rooms, 1)]
    return [printable(f"{spec.ref} {spec.type}{topic}"), *people, printable(f"  why: {spec.reason}")]


def describe_scene(console, spec, names: dict[str, str]) -> None:
    from rich.markup import escape

    first, *people, why = scene_lines(spec, names)
    console.print(f"[bold]{escape(first)}[/]", soft_wrap=True)
    for line in people:
        console.print(line, markup=False, soft_wrap=True)
    console.print(f"[dim]{escape(why)}[/]", soft_wrap=True)


class LazyChoice(TyperChoice):
    """A choice of values found only when they are needed — for ``--help``, or to check a value
    given — since finding them (every scene kind, every retrieval strategy) costs an import the
    other commands do not pay for. The parser checks the value, so a wrong one is a usage error
    (exit 2) naming the option, and ``--help`` shows the choices. (Typer's own choice type: typer
    carries its own click, and takes no other click's types.)

    ``resolve``, where given, turns a value into the choice it names without finding them all (a
    built-in scene kind, without the installed packages' kinds). Values that cannot be found (an
    installed kind package that does not load) are one ``error:`` line, not a traceback."""

    def __init__(self, find: Callable[[], list[str]], case_sensitive: bool = False,
                 resolve: Callable[[str], str | None] | None = None):
        self._find = find
        self._resolve = resolve
        self._found: tuple[str, ...] | None = None
        self.case_sensitive = case_sensitive

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        if self._found is None:
            try:
                self._found = tuple(self._find())
            except GamemasterError as exc:
                fail(str(exc))
        return self._found

    @choices.setter
    def choices(self, values) -> None:
        self._found = tuple(values)

    def convert(self, value, param, ctx):
        quick = self._resolve(value) if self._resolve and isinstance(value, str) else None
        return quick if quick is not None else super().convert(value, param, ctx)

    # Shown as they are named (ARRIVAL), not as they are compared (case-insensitively).
    def get_metavar(self, param, ctx) -> str:
        return f"<{'|'.join(self.choices)}>"

    def get_invalid_choice_message(self, value, ctx) -> str:
        return f"{value!r}: choose {', '.join(self.choices)}"


def kind_choice() -> LazyChoice:
    def kinds() -> list[str]:
        from ..kinds import kind_names

        return list(kind_names())

    def builtin(value: str) -> str | None:
        from ..kinds import builtin_kind

        kind = builtin_kind(value)
        return None if kind is None else kind.name

    return LazyChoice(kinds, resolve=builtin)


def memory_type_choice() -> LazyChoice:
    def types() -> list[str]:
        from typing import get_args

        from ..models import MemoryType

        return list(get_args(MemoryType))

    return LazyChoice(types, case_sensitive=True)


def strategy_choice() -> LazyChoice:
    def strategies() -> list[str]:
        from ..retrieval import available

        return available()

    return LazyChoice(strategies, case_sensitive=True)


def complete_agent(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of an agent id: the agents of the workspace the command would use."""
    from ..workspace import resolve_root

    try:
        root = resolve_root(ctx.find_root().params.get("root"))
    except Exception:  # noqa: BLE001 - completion offers nothing rather than an error in the shell
        return []
    agents = root / "state" / "agents"
    return sorted(p.stem for p in agents.glob("*.json") if p.stem.startswith(incomplete)) if agents.is_dir() else []


#: An agent id as the first argument, completed from the workspace's agents.
AgentArgument = Annotated[str, typer.Argument(metavar="AGENT", help="Agent id.", autocompletion=complete_agent)]
