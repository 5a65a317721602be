"""What every command does around its work, without the command-line parser: the workspace from
``--root``, a reported problem as one line and exit code 1, the warnings, the stems kept.

The CLI (typer, ``cli/common.py``) runs each command's action through ``guarded``; so does the
SubagentStop hook when ``__main__`` starts it directly. That hook runs once per character reply
in a Claude Code session, and typer's import alone is more than half of what a start costs
(``bench/startup.py``), so this module imports neither typer nor anything a command may not need.
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path
from typing import NoReturn, Optional

from .printable import printable
from .problems import GamemasterError, Problem, StateError


class Exit(Exception):
    """The command ends with ``code``; what was wrong is printed already."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class Context:
    def __init__(self, root: Optional[Path]):
        from .stems import STORE
        from .workspace import Workspace, resolve_root

        self.root = root
        self.workspace = Workspace(resolve_root(root))
        STORE.keep_in(self.workspace.root)

    def target(self, directory: Optional[Path]) -> Path:
        """Where a command that creates a workspace puts it: DIRECTORY, else ``--root``, else the
        current folder; never a workspace found above it."""
        from .workspace import resolve_root

        return directory.expanduser().resolve() if directory else resolve_root(self.root, walk_up=False)

    def gm(self):
        from .gm import GameMaster

        self.workspace.require()
        self._gm = GameMaster(self.workspace)
        return self._gm

    def keep_stems(self) -> None:
        """The stems this command computed, for the next one (``stems.py``); only into a workspace."""
        from .stems import STORE

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


def fail(message: str) -> NoReturn:
    print(f"error: {printable(message)}", file=sys.stderr)
    raise Exit(1)


#: Where a studio that does not load is pointed to.
DOCTOR_HINT = "`gamemaster doctor` lists every drift from the format and what fixing it does; `gamemaster doctor --fix` fixes them (after a backup)"


def fail_blocked(workspace, exc: StateError) -> NoReturn:
    """A state file that does not load: every file and field that blocks, not just the first."""
    from .validate import blocking_problems

    blocking = blocking_problems(workspace) if workspace.state.is_dir() else []
    if not blocking:
        fail(str(exc))
    lines = [f"the studio cannot be played until {'this is' if len(blocking) == 1 else 'these are'} fixed:"]
    lines += [f"  {p}" for p in blocking]
    lines.append(DOCTOR_HINT)
    print("error: " + "\n".join(printable(line) for line in lines), file=sys.stderr)
    raise Exit(1)


def guarded(context: Context, action):
    """``action(context)``, a reported problem turned into its line and ``Exit(1)``."""
    from .fsio import LockBusy
    from .replies import ReplyError

    try:
        return action(context)
    except StateError as exc:
        fail_blocked(context.workspace, exc)
    except (GamemasterError, ReplyError, LockBusy) as exc:
        fail(str(exc))
    except BrokenPipeError:
        # The reader stopped (`gamemaster prompt vera | head`): it is no problem of the workspace;
        # click's handling (or ``run_subagent_stop``) exits quietly, as `cat` does.
        raise
    except OSError as exc:
        fail(describe_os_error(context.workspace, exc))
    finally:
        context.keep_stems()
        context.report_warnings()


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


def print_json(data) -> None:
    from .fsio import dump_json

    sys.stdout.write(dump_json(data))


def subagent_stop(from_plugin: bool):
    """The SubagentStop hook's action: the event on standard input, the answer (if any) as JSON."""

    def action(context: Context) -> None:
        from .claude_code import subagent_stop_hook

        answer = subagent_stop_hook(context.workspace, sys.stdin.read(), from_plugin=from_plugin)
        if answer is not None:
            print_json(answer)

    return action


def run_subagent_stop(root: Optional[str], from_plugin: bool) -> int:
    """``gamemaster [--root R] hook subagent-stop [--from-plugin]`` without the command tree: its exit code."""
    try:
        context = Context(Path(root) if root is not None else None)  # `--root=` is the current folder, as typer reads it
        guarded(context, subagent_stop(from_plugin))
    except Exit as exc:
        return exc.code
    except BrokenPipeError:  # Claude Code stopped reading: exit 1 without a traceback, as click does
        return 1
    except KeyboardInterrupt:
        print("Aborted!", file=sys.stderr)
        return 1
    return 0
