"""Is a seeded offline run byte-identical between two commits?

    python bench/same_run.py [BEFORE [AFTER]] [--days 6] [--keep DIR]

BEFORE and AFTER are git revisions of this repository (default: ``HEAD~1`` and the working
tree, written ``.``). Each is exported with ``git archive`` into a temporary folder and run as
``python -m gamemaster`` with that folder first on ``PYTHONPATH``: ``init`` the bundled studio,
schedule an EVENT with a meeting for day 2, brief one character to organise a gathering, then ``day advance --days N`` with the offline
player (its seed is the world's, so the run is fixed). Every file the run writes (under ``state/``,
``scenes/`` - with every prompt and reply, a packed day as the files it holds - and ``gallery/``) is then
hashed and compared, except
those that depend on the clock, not on behaviour: ``state/.cache/`` holds the search indexes and
parse caches, keyed by file mtimes. (The workspace's other files are the toolkit's templates;
``.gamemaster.lock`` holds the process id of the last command.)

``state/world.json`` is compared by value when its bytes differ, with the kinds' settings that
were flat keys before d2abfa3 (``RENAMED``) moved to their place under ``kinds``: the same world
in the old form and the new is no difference in behaviour.

Prints one line per differing file and a summary of scene kinds played; exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: What a run of the studio writes; the workspace's other files are copies of the toolkit's templates.
COMPARED = ("state/", "scenes/", "gallery/")
VOLATILE = ("state/.cache/",)
#: Flat world.json keys of before d2abfa3 → (kind, setting) under ``kinds``.
RENAMED = {
    "meeting_rounds": ("meeting", "rounds"), "meeting_max": ("meeting", "max"), "meeting_notices": ("meeting", "notices"),
    "meeting_notices_per_day": ("meeting", "notices_per_day"), "encounters_per_day": ("encounter", "per_day"),
    "encounter_rounds": ("encounter", "rounds"), "work_group_size": ("work", "group_size"), "work_rooms": ("work", "rooms"),
}
WORLD = "state/world.json"


def same_world(before: Path, after: Path) -> bool:
    """The two world.json files hold the same values, the renamed settings in their new place."""
    def moved(path: Path) -> dict:
        data = json.loads(path.read_text(encoding="utf-8"))
        for old, (kind, name) in RENAMED.items():
            if old in data:
                data.setdefault("kinds", {}).setdefault(kind, {})[name] = data.pop(old)
        return data

    return moved(before) == moved(after)


def export(rev: str, into: Path) -> Path:
    """The package at REV (``.``: the working tree as it is) as a folder to put on PYTHONPATH."""
    into.mkdir(parents=True)
    if rev == ".":
        shutil.copytree(REPO / "gamemaster", into / "gamemaster", ignore=shutil.ignore_patterns("__pycache__"))
        return into
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "gamemaster"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def play(code: Path, root: Path, days: int) -> None:
    env = dict(os.environ, PYTHONPATH=str(code))
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("GAMEMASTER_ROOT", None)

    def gm(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(root), *args], env=env, check=True,
                       capture_output=True, cwd=code)

    gm("init", str(root))
    gm("event", "Der Publisher kommt zu Besuch und will den Vertical Slice sehen.", "--day", "2", "--meeting")
    # A gathering to organise, so the run plays every built-in kind (the seventh: GATHERING).
    gm("brief", "Organisiere am Mittwoch abends einen Spieleabend im Pausenraum und lade alle ein.", "--to", "nami")
    gm("day", "advance", "--days", str(days), "--backend", "offline")


def hashes(root: Path) -> dict[str, str]:
    """sha256 of every compared file; a packed day (``scenes/day-NNN.tar.xz``) counts as the files
    it holds, as if the day were a folder: the archive's own bytes (and the digest beside it) carry
    the time it was packed."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or not rel.startswith(COMPARED) or rel.startswith(VOLATILE):
            continue
        if rel.endswith(".tar.xz"):
            out.update({f"scenes/{name}": hashlib.sha256(data).hexdigest() for name, data in packed(path).items()})
        elif not rel.endswith(".tar.xz.sha256"):
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def packed(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:xz") as archive:
        return {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}


def kinds(root: Path) -> collections.Counter:
    found = [p.read_text(encoding="utf-8") for p in root.glob("scenes/day-*/scene-*/scene.json")]
    found += [data.decode("utf-8") for archive in root.glob("scenes/day-*.tar.xz")
              for name, data in packed(archive).items() if name.endswith("/scene.json")]
    return collections.Counter(json.loads(text)["type"] for text in found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", nargs="?", default="HEAD~1")
    parser.add_argument("after", nargs="?", default=".")
    parser.add_argument("--days", type=int, default=6)
    parser.add_argument("--keep", type=Path, help="keep both workspaces under this folder")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="same-run-")) if args.keep is None else args.keep
    runs = {}
    for side, rev in (("before", args.before), ("after", args.after)):
        code = export(rev, base / side / "code")
        root = base / side / "ws"
        play(code, root, args.days)
        runs[side] = root
    a, b = hashes(runs["before"]), hashes(runs["after"])
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    if WORLD in differ and WORLD in a and WORLD in b and same_world(runs["before"] / WORLD, runs["after"] / WORLD):
        differ.remove(WORLD)
        print(f"same values: {WORLD} (its bytes differ: the kinds' settings stand under kinds)")
    for rel in differ:
        print(f"differs: {rel}" if rel in a and rel in b else f"only {'before' if rel in a else 'after'}: {rel}")
    played = kinds(runs["after"])
    print(f"{args.before} vs {args.after}: {len(a)} files compared, {len(differ)} differ; "
          f"scenes played: " + ", ".join(f"{k} {n}" for k, n in sorted(played.items())))
    if args.keep is None:
        shutil.rmtree(base)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
