"""One scene = one transaction, made crash-safe with a journal.

Every change a scene makes (memory lines to append, files to rewrite) is first
written as ``state/.journal.json`` in one atomic rename. Only then are the
streams appended and the files replaced; the journal is removed last. If the
process dies anywhere in between, the next writer finds the journal and plays it
again: appends that already landed are recognised by their id numbers and not
repeated, rewrites are simply done again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .fsio import atomic_write_json, atomic_write_text
from .models import Memory
from .workspace import Workspace


@dataclass
class Transaction:
    label: str
    appends: dict[str, list[Memory]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    def add_memory(self, agent: str, memory: Memory) -> None:
        self.appends.setdefault(agent, []).append(memory)

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "appends": {a: [m.model_dump(mode="json") for m in ms] for a, ms in self.appends.items()},
            "files": self.files,
        }

    @classmethod
    def from_json(cls, data: dict) -> Transaction:
        return cls(
            label=data["label"],
            appends={a: [Memory.model_validate(m) for m in ms] for a, ms in data["appends"].items()},
            files=dict(data["files"]),
        )


def commit(workspace: Workspace, transaction: Transaction) -> None:
    """Make the transaction durable, then carry it out. Call with the lock held."""
    atomic_write_json(workspace.journal_path, transaction.to_json())
    _carry_out(workspace, transaction, resumed=False)


def recover(workspace: Workspace) -> str | None:
    """Finish a transaction a crash interrupted; returns its label, if there was one."""
    _remove_stale_temp_files(workspace)
    try:
        data = json.loads(workspace.journal_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    transaction = Transaction.from_json(data)
    _carry_out(workspace, transaction, resumed=True)
    return transaction.label


def _carry_out(workspace: Workspace, transaction: Transaction, resumed: bool) -> None:
    for agent, memories in transaction.appends.items():
        stream = workspace.stream(agent)
        if resumed:
            # Only the exact ids tell what landed before the crash; a hand edit
            # since then may have added any number.
            landed = stream.find(m.id for m in memories)
            memories = [m for m in memories if m.id not in landed]
        stream.append(memories)
    for relative, text in transaction.files.items():
        atomic_write_text(workspace.inside(workspace.root / relative), text)
    workspace.journal_path.unlink(missing_ok=True)


def _remove_stale_temp_files(workspace: Workspace) -> None:
    """Temp files a killed writer left behind; with the lock held no write is in flight.

    Only where writes happen now: state, the gallery and the latest two days of
    scenes, so the check stays cheap however long the studio has run.
    """
    days = sorted(workspace.scenes.glob("day-*"))[-2:] if workspace.scenes.is_dir() else []
    for folder in (workspace.state, workspace.gallery, *days):
        if folder.is_dir():
            for path in folder.rglob(".*.tmp"):
                path.unlink(missing_ok=True)
