"""Record and replay: every turn a character answered, kept so the day can be played again.

``files.py`` is the format (``Recorder`` writes it, ``Recording`` reads it), ``sections.py``
says which part of a prompt changed. A recording is made by ``--record DIR`` on the commands
that play (the loop stores each reply through ``GameMaster.store_reply``, which records it)
or, for replies that arrive by ``gamemaster reply``, the SubagentStop hook or the MCP tool,
by the world setting ``record`` (a folder in the workspace). ``backends/replay.py`` plays one back.
"""

from __future__ import annotations

from pathlib import Path

from .. import jsontext
from ..pending import Pending, shown_in_prompt
from ..problems import GamemasterError
from ..workspace import Workspace
from .files import Recorder, Recording, RecordingError, RecordedScene, Source, TurnRecord

__all__ = ["Recorder", "Recording", "RecordingError", "RecordedScene", "Source", "TurnRecord",
           "recorded_scene", "record_turn", "open_recorder", "setting_folder"]


def recorded_scene(pending: Pending) -> RecordedScene:
    spec = pending.spec
    return RecordedScene(ref=spec.ref, type=spec.type, participants=spec.participants, topic=spec.topic,
                      forced=getattr(pending.record, "forced", None))


def open_recorder(workspace: Workspace, folder: Path, studio: str) -> Recorder:
    """A recorder for ``folder`` (``--record``): anywhere but in the folders the workspace reads."""
    folder = folder.expanduser().resolve()
    workspace.check_output_folder(folder, "--record", "recordings/")
    return Recorder(folder, studio)


def setting_folder(workspace: Workspace, value: str) -> Path:
    """The folder the world setting ``record`` names, inside the workspace and none of its own folders."""
    folder = workspace.inside(workspace.root / value)
    try:
        workspace.check_output_folder(folder, "record", "recordings/")
    except GamemasterError as exc:
        raise RecordingError(f"state/world.json: {exc}") from None
    return folder


def record_turn(recorder: Recorder, workspace: Workspace, pending: Pending, turn: int,
                raw: str | dict, error: str | None, source: Source) -> Path:
    """Keep one answered turn: the prompt the character was given (as kept with the scene), the
    memory ids it showed, and its reply as written; a reply given as an object is kept as its JSON text."""
    prompt_path = pending.prompt_path(turn)
    prompt = prompt_path.read_text(encoding="utf-8") if prompt_path.exists() else ""
    reply = raw if isinstance(raw, str) else jsontext.dumps(raw, ensure_ascii=False)
    shown = shown_in_prompt(pending, turn)
    return recorder.write(recorded_scene(pending), pending.label(turn), pending.turns[turn], prompt, reply, error, source,
                          sorted(shown) if shown is not None else None)
