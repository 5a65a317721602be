"""One scene = one transaction, made crash-safe with a journal.

Every change a scene makes (memory lines to append, files to rewrite) is first
written as ``state/.journal.json`` in one atomic rename. Only then are the
streams appended and the files replaced; the journal is removed last. If the
process dies anywhere in between, the next writer finds the journal and plays it
again: appends that already landed are recognised by their id numbers and not
repeated, rewrites are simply done again.

The writes cost what the scene changes: a file whose content stays the same is
left out, each stream gets one append (one fsync), each rewritten file one fsync,
and each folder that got new names one fsync after all of them. The journal
stays until those folder syncs are done, so a power cut that loses a rename
before them still finds the journal and replays it.

Ids are handed out when a scene is planned, and a user may append a line by hand at any
time, without the lock: before the journal is written, every id a line appended since has
taken is given the next free number, in the memories and in every file of the transaction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import jsontext
from .fsio import atomic_write_json, atomic_write_text, dump_json, fsync_dirs, is_stale_temp
from .linesize import memory_too_long
from .models import Memory, memory_id
from .problems import GamemasterError, Problem, StateError
from .streams import ISSUED_FILE, issued_numbers
from .workspace import Workspace


@dataclass
class Transaction:
    label: str
    appends: dict[str, list[Memory]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    #: Each rewritten file as it was before (None: it did not exist), so a replay can tell
    #: a hand edit made after the crash from a rewrite that simply did not happen yet.
    before: dict[str, str | None] = field(default_factory=dict)

    def add_memory(self, agent: str, memory: Memory) -> None:
        """Every memory line any command writes passes here, before anything is written."""
        problem = memory_too_long(memory)
        if problem:
            raise GamemasterError(f"{agent}: {problem}; nothing was written")
        self.appends.setdefault(agent, []).append(memory)

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "appends": {a: [m.model_dump(mode="json") for m in ms] for a, ms in self.appends.items()},
            "files": self.files,
            "before": self.before,
        }

    @classmethod
    def from_json(cls, data: dict) -> Transaction:
        return cls(
            label=data["label"],
            appends={a: [Memory.model_validate(m) for m in ms] for a, ms in data["appends"].items()},
            files=dict(data["files"]),
            before=dict(data.get("before") or {}),
        )


def commit(workspace: Workspace, transaction: Transaction) -> dict[str, str]:
    """Make the transaction durable, then carry it out. Call with the lock held. Returns the ids
    a hand-appended line had taken, each with the one its memory got instead (``make_room``)."""
    renamed = make_room(workspace, transaction)
    if transaction.appends:
        issued = issued_numbers(workspace.root)
        for agent, memories in transaction.appends.items():
            issued[agent] = max([issued.get(agent, 0), *(m.number for m in memories)])
        transaction.files[f"state/{ISSUED_FILE}"] = dump_json(dict(sorted(issued.items())))
    transaction.before = {relative: _read(workspace.root / relative) for relative in transaction.files}
    # A file whose text the scene would leave exactly as it is costs no write, and no replay.
    for relative, before in list(transaction.before.items()):
        if before == transaction.files[relative]:
            del transaction.files[relative], transaction.before[relative]
    atomic_write_json(workspace.journal_path, transaction.to_json())
    _carry_out(workspace, transaction, resumed=False)
    return renamed


def make_room(workspace: Workspace, transaction: Transaction) -> dict[str, str]:
    """Renumber the transaction's memories whose ids a line appended by hand since they were
    handed out has taken (old id → new). Only a stream whose highest id reached this
    transaction's is searched for them: the index reads just what was appended since."""
    renamed: dict[str, str] = {}
    issued = issued_numbers(workspace.root)
    for agent, memories in transaction.appends.items():
        stream = workspace.stream(agent)
        if not memories or not stream.path.exists():
            continue
        highest = stream.index().max_number
        if highest < min(m.number for m in memories):
            continue
        taken = stream.find(m.id for m in memories)
        following = max(highest, issued.get(agent, 0), *(m.number for m in memories)) + 1
        for memory in memories:
            if memory.id in taken:
                renamed[memory.id] = memory_id(agent, following)
                following += 1
    if renamed:
        ids = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, renamed)) + r")(?!\d)")

        def moved(text: str) -> str:
            return ids.sub(lambda m: renamed[m.group(1)], text)

        transaction.appends = {agent: [Memory.model_validate(jsontext.loads(moved(dump_json(m.model_dump(mode="json")))))
                                       for m in memories] for agent, memories in transaction.appends.items()}
        transaction.files = {relative: moved(text) for relative, text in transaction.files.items()}
    return renamed


def recover(workspace: Workspace) -> str | None:
    """Finish a transaction a crash interrupted; returns its label, if there was one."""
    _remove_stale_temp_files(workspace)
    try:
        text = workspace.journal_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    transaction = read_journal(workspace, text)
    _carry_out(workspace, transaction, resumed=True)
    return transaction.label


def read_journal(workspace: Workspace, text: str) -> Transaction:
    """The interrupted transaction; a journal that cannot be read is named, with how to go on."""
    try:
        return Transaction.from_json(jsontext.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        reason = exc.msg if isinstance(exc, jsontext.JSONDecodeError) else f"not a journal ({type(exc).__name__}: {exc})"
        raise StateError(
            f"{workspace.rel(workspace.journal_path)}: {reason}; the interrupted scene it records cannot be "
            "finished from it. Move it aside (for example to state/journal.broken.json) and run "
            "`gamemaster validate`: memory lines that were appended stay, the scene's other changes are not made",
            [Problem(workspace.rel(workspace.journal_path), None, f"unreadable journal: {reason}")],
        ) from None


def _carry_out(workspace: Workspace, transaction: Transaction, resumed: bool) -> None:
    dirs: set = set()  # folders that got a new name; each synced once, before the journal goes
    for agent, memories in transaction.appends.items():
        stream = workspace.stream(agent)
        if resumed:
            # Only the exact ids tell what landed before the crash; a hand edit
            # since then may have added any number.
            landed = stream.find(m.id for m in memories)
            memories = [m for m in memories if m.id not in landed]
        stream.append(memories, dirs)
    for relative, text in transaction.files.items():
        path = workspace.inside(workspace.root / relative)
        if resumed and relative in transaction.before:
            text = _replayed(workspace, transaction, relative, text)
            if text is None:
                continue
        atomic_write_text(path, text, dirs)
    fsync_dirs(dirs)
    workspace.journal_path.unlink(missing_ok=True)


def _read(path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _replayed(workspace: Workspace, transaction: Transaction, relative: str, new: str) -> str | None:
    """What a replay writes to ``relative``: None if nothing is left to do there.

    Untouched since the journal was written: the scene's version. Already the
    scene's version: nothing. Edited by hand after the crash: the edit is kept and
    only the fields the scene changes are applied (JSON objects); if the edit and
    the scene changed the same field, nothing is overwritten and the user is told.
    """
    before, current = transaction.before[relative], _read(workspace.root / relative)
    if current == new:
        return None
    if current == before:
        return new
    merged, clashes = _merge(before, current, new)
    if merged is None or clashes:
        what = f"in {', '.join(clashes)}, which the scene also changes" if clashes else "and it is not a JSON object"
        raise StateError(
            f"{relative}: edited after an interrupted scene ({transaction.label}) was journaled, {what}; "
            "gamemaster will not overwrite your edit. Undo it (the scene then finishes on the next command), "
            "or move state/.journal.json aside to drop the rest of that scene"
        )
    return dump_json(merged)


def _merge(before: str | None, current: str | None, new: str) -> tuple[dict | None, list[str]]:
    try:
        old, mine, theirs = (jsontext.loads(t) if t is not None else None for t in (before, current, new))
    except ValueError:
        return None, []
    if not all(isinstance(d, dict) for d in (old, mine, theirs)):
        return None, []
    merged, clashes = dict(mine), []
    for key in set(old) | set(theirs):
        if old.get(key, _GONE) == theirs.get(key, _GONE):
            continue  # the scene left this field alone: the edit stands
        if mine.get(key, _GONE) not in (old.get(key, _GONE), theirs.get(key, _GONE)):
            clashes.append(key)
        elif key in theirs:
            merged[key] = theirs[key]
        else:
            merged.pop(key, None)
    return merged, sorted(clashes)


_GONE = object()


def _remove_stale_temp_files(workspace: Workspace) -> None:
    """Temp files a killed writer left behind; those of live writers stay.

    Only where writes happen now: state, the gallery and the latest two days of
    scenes, so the check stays cheap however long the studio has run.
    """
    days = sorted(p for p in workspace.scenes.glob("day-*") if p.is_dir())[-2:] if workspace.scenes.is_dir() else []
    for folder in (workspace.state, workspace.gallery, *days):
        if folder.is_dir():
            for path in folder.rglob(".*.tmp"):
                if is_stale_temp(path):
                    path.unlink(missing_ok=True)
