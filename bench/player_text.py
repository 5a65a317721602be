"""How the offline player's text reads: repeats, English tags, third person, stock gestures.

    python bench/player_text.py [--days 5] [--size 7]

A fresh studio (``scale.build_studio``: the bundled seven and numbered copies), offline
backend, ``--days`` days. Of the memories written in those days (their descriptions):

- exact copies: the share whose text another memory of the studio (old or new) has already;
  and the same among what the characters wrote themselves (no ``metadata.source``: their notes,
  plans, summaries, insights and artifacts; not the notices, events, library reads and heard
  lines the tool writes alike for everyone who was there);
- the copies split (``--split``, a second table): by who wrote them (the character, or the tool:
  by ``metadata.source``) and by where the earlier copy is — in the same character's own stream,
  or only in someone else's (across the studio); and, last column, the copies that remain when a
  text the tool gives several characters in one scene (an event, a notice, what a table heard)
  counts once — a copy there repeats a text of an earlier scene; plus the lines said (``says``)
  that repeat an earlier line of the same character word for word, and the worst single stream;
- English tags: the share that say „Stichwort <tag>“ with a lower-case ASCII tag (``core-loop``);
- third person: the share in which a character names itself (its first name as a word),
  a notice, brief or heard line excepted (those quote others);
- the gesture most often repeated: the most frequent ``action`` of all replies, with the
  character's name taken out, and how often it came;
- insights naming one topic as two: of the new insights, those said with a phrase-bank frame that
  names two topics where both are the same („Immer wenn es um Vertical geht, taucht auch Vertical
  auf“), out of all new insights (and how many name two topics at all);
- lines cut mid-sentence: of the lines said (``says`` of every reply), those where „…“ follows
  a word, where a quoted sentence was clipped („… der Vertical Slice…“);
- one line, two speakers: sentences (over 25 characters) that two characters said word for word
  in the same scene, out of the scenes played;
- meeting outcomes: of the conversation summaries that credit a proposal to someone („auf
  Vorschlag von Finn“, „nach dem Vorschlag von mir“), those that credit one who proposed nothing
  in that meeting, and those that name what was proposed (the deliverable of the person's line,
  read with the phrase bank's proposal frames).

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
    paired, tautologies = _tautologies([m for _, m in new if (m.get("depth") or 0) >= 1])
    total = len(new)
    split = _split(streams(workspace), before)
    split["said"], split["said_copies"] = _said_copies(workspace)
    split["cut"], split["shared_lines"], split["scenes"] = _said_shapes(workspace)
    split["outcomes"] = _outcomes(workspace, names)
    return {"split": split, "memories": total, "copies": copies, "written": written, "written_copies": written_copies, "english": english, "third": third, "gesture": gesture,
            "gesture_count": count, "insights": sum((m.get("depth") or 0) >= 1 for _, m in new), "paired": paired,
            "tautologies": tautologies}


def _tautologies(insights: list[dict]) -> tuple[int, int]:
    """Of the insights said with a frame of the phrase bank that names two topics („Beim
    Stichwort {tag_a} geht es eigentlich um {tag_b}“), how many there are and how many name the
    same topic twice (one word holds the other: „Knochentürme und Knochentürme …“)."""
    from gamemaster.backends.offline.phrase_banks import phrase_bank

    patterns = []
    for frame in phrase_bank("de")["reflection"]["frames"] + phrase_bank("de")["reflection"].get("frames_people", []):
        if "{tag_a}" in frame and "{tag_b}" in frame:
            pattern = re.escape(frame)
            for name in re.findall(r"\{(\w+)\}", frame):
                group = f"(?P<{name}>.+?)" if name in ("tag_a", "tag_b") else ".+?"
                pattern = pattern.replace(re.escape("{" + name + "}"), group, 1)
            patterns.append(re.compile(pattern + "$"))
    paired = same = 0
    for memory in insights:
        found = next((m for m in (p.search(memory["description"]) for p in patterns) if m), None)
        if found:
            a, b = found.group("tag_a").lower(), found.group("tag_b").lower()
            paired += 1
            same += a in b or b in a
    return paired, same


def _split(found: dict[str, list[dict]], before: dict[str, int]) -> dict:
    """Copies among the new memories by writer (``character`` or the tool's source) and place
    (``own``: the character's own stream has the text already; ``across``: only another's)."""
    studio: Counter = Counter()
    own: dict[str, Counter] = {a: Counter() for a in found}
    scenes: dict[str, set] = {}
    for agent, memories in found.items():
        for memory in memories[: before.get(agent, 0)]:
            studio[memory["description"]] += 1
            own[agent][memory["description"]] += 1
            scenes.setdefault(memory["description"], set()).add(memory.get("created"))
    rows: dict[str, Counter] = {}
    worst = (0.0, "", 0, 0)
    order = sorted(((m.get("created") or "", agent, i, m) for agent, memories in found.items()
                    for i, m in enumerate(memories) if i >= before.get(agent, 0)), key=lambda t: (t[0], t[1], t[2]))
    per_agent: dict[str, list[int]] = {a: [0, 0] for a in found}
    for _, agent, _, memory in order:
        text = memory["description"]
        writer = (memory.get("metadata") or {}).get("source") or "character"
        row = rows.setdefault(writer, Counter())
        row["new"] += 1
        if own[agent][text]:
            row["own"] += 1
            per_agent[agent][0] += 1
        elif studio[text]:
            row["across"] += 1
        if scenes.get(text, set()) - {memory.get("created")}:
            row["repeats"] += 1
        scenes.setdefault(text, set()).add(memory.get("created"))
        per_agent[agent][1] += 1
        studio[text] += 1
        own[agent][text] += 1
    for agent, (copies, count) in per_agent.items():
        if count and copies / count > worst[0]:
            worst = (copies / count, agent, copies, count)
    return {"rows": rows, "worst": worst}


def _said_copies(workspace) -> tuple[int, int]:
    """Lines said in the played scenes, and those a character had said word for word before."""
    said: dict[str, set] = {}
    total = copies = 0
    for path in sorted(workspace.root.glob("scenes/day-*/scene-*/replies/*.json"),
                       key=lambda p: (p.parent.parent.parent.name, p.parent.parent.name, p.name)):
        reply = json.loads(path.read_text(encoding="utf-8"))
        text = (reply.get("says") or "").strip()
        if not text:
            continue
        total += 1
        mine = said.setdefault(reply.get("agent"), set())
        copies += text in mine
        mine.add(text)
    return total, copies


CUT = re.compile(r"\w…")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _said_shapes(workspace) -> tuple[int, int, int]:
    """Lines said that are cut mid-sentence; sentences two speakers of one scene said alike; scenes."""
    cut = shared = 0
    scenes = sorted(workspace.root.glob("scenes/day-*/scene-*"))
    for scene in scenes:
        speakers: dict[str, set] = {}
        for path in sorted(scene.glob("replies/*.json")):
            reply = json.loads(path.read_text(encoding="utf-8"))
            text = (reply.get("says") or "").strip()
            cut += bool(CUT.search(text))
            for sentence in SENTENCE_END.split(text):
                if len(sentence) > 25:
                    speakers.setdefault(sentence, set()).add(reply.get("agent"))
        shared += sum(len(who) > 1 for who in speakers.values())
    return cut, shared, len(scenes)


CREDIT = re.compile(r"Vorschlag von (\w+)|proposed by (\w+)|proposal by (\w+)")


def _outcomes(workspace, names: dict[str, str]) -> tuple[int, int, int]:
    """Summaries crediting a proposal; of them, crediting one who proposed nothing; naming what was proposed."""
    from gamemaster.backends.offline.phrase_banks import phrase_bank

    frames = []
    for frame in phrase_bank("de")["meeting"]["proposals"] + phrase_bank("en")["meeting"]["proposals"]:
        pattern = re.escape(frame).replace(re.escape("{deliverable}"), "(?P<deliverable>.+?)", 1)
        frames.append(re.compile(re.sub(r"\\\{\w+\\\}", ".+?", pattern)))
    by_name = {name: agent for agent, name in names.items()}
    credited = nobody = named = 0
    for scene in sorted(workspace.root.glob("scenes/day-*/scene-*")):
        record = json.loads((scene / "scene.json").read_text(encoding="utf-8"))
        if record.get("type") != "MEETING":
            continue
        said: dict[str, list[str]] = {}
        summaries = []
        for path in sorted(scene.glob("replies/*.json")):
            reply = json.loads(path.read_text(encoding="utf-8"))
            said.setdefault(reply.get("agent"), []).append(reply.get("says") or "")
            if isinstance(reply.get("conversation"), dict):
                summaries.append((reply.get("agent"), reply["conversation"].get("summary") or ""))
        for writer, summary in summaries:
            found = CREDIT.search(summary)
            if not found:
                continue
            who = next(g for g in found.groups() if g)
            owner = writer if who in ("mir", "me") else by_name.get(who)
            proposals = [m.group("deliverable") for line in said.get(owner, []) for f in frames for m in [f.search(line)] if m]
            credited += 1
            nobody += not proposals
            named += any(p in summary for p in proposals)
    return credited, nobody, named


def print_split(r: dict) -> None:
    split = r["split"]
    rows = split["rows"]
    share = lambda n, d: f"{n} ({n / max(d, 1):.0%})"  # noqa: E731
    print("| written by | new memories | copy in its own stream | copy only in another's | copies in all "
          "| copies, one scene's shared text once |")
    print("|---|---|---|---|---|---|")
    tool = Counter()
    for writer in ["character"] + sorted(w for w in rows if w != "character"):
        if writer not in rows:
            continue
        row = rows[writer]
        if writer != "character":
            tool.update(row)
        print(f"| {writer} | {row['new']} | {share(row['own'], row['new'])} | {share(row['across'], row['new'])} | "
              f"{share(row['own'] + row['across'], row['new'])} | {share(row['repeats'], row['new'])} |")
    every = tool + rows.get("character", Counter())
    for label, row in (("the tool, all", tool), ("everyone", every)):
        print(f"| **{label}** | {row['new']} | {share(row['own'], row['new'])} | {share(row['across'], row['new'])} | "
              f"{share(row['own'] + row['across'], row['new'])} | {share(row['repeats'], row['new'])} |")
    worst, agent, copies, count = split["worst"]
    print()
    worst_stream = f"{agent} {copies} of {count} ({worst:.0%})" if copies else "none has a copy"
    print(f"worst own stream: {worst_stream}; lines said again word for word by the same "
          f"character: {share(split['said_copies'], split['said'])}")


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
    parser.add_argument("--split", action="store_true", help="also the copies by writer and by stream")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = run(args.days, args.size, Path(tmp))
    share = lambda n: f"{n} ({n / max(r['memories'], 1):.0%})"  # noqa: E731
    own = f"{r['written_copies']} of {r['written']} ({r['written_copies'] / max(r['written'], 1):.0%})"
    taut = f"{r['tautologies']} of {r['insights']} ({r['paired']} name two topics)"
    said = r["split"]
    cut = f"{said['cut']} of {said['said']} ({said['cut'] / max(said['said'], 1):.0%})"
    print("| new memories | exact copies | of what characters wrote | „Stichwort <english-tag>“ | names itself "
          "| most repeated gesture | insights naming one topic as two | lines cut mid-sentence | one line, two speakers "
          "| outcomes crediting a proposal: to one who made none / naming it |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    credited, nobody, named = said["outcomes"]
    print(f"| {r['memories']} | {share(r['copies'])} | {own} | {share(r['english'])} | {share(r['third'])} | "
          f"{r['gesture_count']}× „{r['gesture']}“ | {taut} | {cut} | {said['shared_lines']} in {said['scenes']} scenes | "
          f"{nobody} / {named} of {credited} |")
    if args.split:
        print()
        print_split(r)


if __name__ == "__main__":
    main()
