"""How the offline player's text reads: repeats, English tags, third person, stock gestures.

    python bench/player_text.py [--days 5] [--size 7]

A fresh studio (``scale.build_studio``: the bundled seven and numbered copies), offline
backend, ``--days`` days. Of the memories written in those days (their descriptions):

- exact copies: the share whose text another memory of the studio (old or new) has already;
  and the same among what the characters wrote themselves (no ``metadata.source``: their notes,
  plans, summaries, insights and artifacts; not the notices, events, library reads and heard
  lines the tool writes alike for everyone who was there);
- English tags: the share that say „Stichwort <tag>“ with a lower-case ASCII tag (``core-loop``);
- third person: the share in which a character names itself (its first name as a word),
  a notice, brief or heard line excepted (those quote others);
- the gesture most often repeated: the most frequent ``action`` of all replies, with the
  character's name taken out, and how often it came.

Runs on any commit of the project (``--root`` of a checkout on PYTHONPATH). The table goes to
stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from scale import build_studio, log  # noqa: E402

ENGLISH_TAG = re.compile(r"Stichwort [a-z0-9][a-z0-9-]*\b")
#: Memories that quote others or the Creative Director: a name in them is not the character's own voice.
QUOTING = {"heard", "meeting", "brief", "artifact", "event", "interview"}


def streams(workspace) -> dict[str, list[dict]]:
    found = {}
    for path in sorted(workspace.memories_dir.glob("*.jsonl")):
        found[path.stem] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return found


def first_names(workspace) -> dict[str, str]:
    from gamemaster.lang import short_name

    return {a: short_name(workspace.load_agent(a).name) for a in workspace.agent_ids()}


def measure(workspace, before: dict[str, int]) -> dict:
    names = first_names(workspace)
    seen: Counter = Counter()
    new: list[tuple[str, dict]] = []
    for agent, memories in streams(workspace).items():
        for index, memory in enumerate(memories):
            if index >= before.get(agent, 0):
                new.append((agent, memory))
            else:
                seen[memory["description"]] += 1
    copies = english = third = written = written_copies = 0
    for agent, memory in new:
        text = memory["description"]
        copies += seen[text] > 0
        if not (memory.get("metadata") or {}).get("source"):
            written += 1
            written_copies += seen[text] > 0
        seen[text] += 1
        english += bool(ENGLISH_TAG.search(text))
        source = (memory.get("metadata") or {}).get("source")
        name = names.get(agent)
        if source not in QUOTING:
            third += bool(name and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text))
    actions: Counter = Counter()
    for path in workspace.root.glob("scenes/day-*/scene-*/replies/*.json"):
        reply = json.loads(path.read_text(encoding="utf-8"))
        name = names.get(reply.get("agent"), "")
        action = (reply.get("action") or "").strip()
        if action:
            actions[action.replace(name, "X", 1) if name else action] += 1
    gesture, count = actions.most_common(1)[0] if actions else ("—", 0)
    total = len(new)
    return {"memories": total, "copies": copies, "written": written, "written_copies": written_copies, "english": english, "third": third, "gesture": gesture,
            "gesture_count": count}


def run(days: int, size: int, tmp: Path) -> dict:
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.gm import GameMaster
    from gamemaster.loop import advance_days

    workspace = build_studio(tmp / f"studio-{size}", size)
    before = {agent: len(memories) for agent, memories in streams(workspace).items()}
    advance_days(GameMaster(workspace), OfflineBackend(), days)
    log(f"  {size} characters, {days} days played")
    return measure(workspace, before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--size", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = run(args.days, args.size, Path(tmp))
    share = lambda n: f"{n} ({n / max(r['memories'], 1):.0%})"  # noqa: E731
    own = f"{r['written_copies']} of {r['written']} ({r['written_copies'] / max(r['written'], 1):.0%})"
    print("| new memories | exact copies | of what characters wrote | „Stichwort <english-tag>“ | names itself "
          "| most repeated gesture |")
    print("|---|---|---|---|---|---|")
    print(f"| {r['memories']} | {share(r['copies'])} | {own} | {share(r['english'])} | {share(r['third'])} | "
          f"{r['gesture_count']}× „{r['gesture']}“ |")


if __name__ == "__main__":
    main()
