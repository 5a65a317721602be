"""How far news travels in the offline studio, and whether what is said is remembered.

    python bench/diffusion.py [--sizes 7,25] [--days 5] [--seeds 1]

For each size: a fresh studio (``scale.build_studio``: the bundled seven and numbered
copies, no teams), offline backend. After day 1's ARRIVAL two pieces of news are
planted in vera's stream as importance-9 observations: one on her work (it carries her
interest's tags, so the offline player may quote it) and one that is not. Then days are
played; after days 1, 2, 3 and 5 the share of characters who know each item (``who-knows``:
recalled at the default budget by a memory that holds two thirds of its words).

At the end:

- heard lines recalled: up to ``--lines`` lines said in scenes (sampled, seeded) and, for
  each listener of a line, whether ``recall`` of its words selects a memory that holds it.
  Listeners are the other participants of a MEETING or ENCOUNTER; at ARRIVAL, EVENT and in
  WORK the people at the speaker's table or room (``kinds.heard.tables``; a commit without it
  counts the room, everyone at ARRIVAL).
- relationship density: of all pairs of characters, the share who talked in a MEETING or
  ENCOUNTER (conversation memories naming each other), and the share who talked or heard one
  another (a heard memory naming the speaker); the first also after day 2, without and with the
  backstory's (day 0) conversations.
- memories per character-day: new memory lines over characters × days.
- ``ask`` against ``who-knows``: of the characters who know an item at the end, how many mention
  it when asked „Was weißt du über <query>?“ (offline; the answer holds two thirds of its words).

``--party`` (default on for 25 characters) plays a run of its own: after day 1's ARRIVAL the
host gets a brief (``gamemaster brief --to emre``) to organise a quince party on day 3's weekday
at lunch in the courtyard and to invite 12 others (drawn, seeded), named as the Creative Director
would name them; her offline reply proposes the gathering itself (``backends/offline/organise.py``).
``--inject`` instead puts the proposal into her first reply after that ARRIVAL, as a Claude
character would write the ``gathering`` field (what the bench did before the offline player could
organise). The invitees answer in their own replies (the offline player: by their plans, how
well they know the host and whether the topic is theirs). Three of the twelve (drawn, seeded) get
planned work for that slot: after day 2's ARRIVAL a brief to them, „Am <weekday> mittags zeigst du dem
Verlag den Stand deiner Arbeit.“ — after most have answered, so they must change their minds.
After day 3: how many accepted, and who was at the GATHERING, host included, the three apart.

Runs on any commit of the project (``--root`` of a checkout on PYTHONPATH): without
``gamemaster.who_knows`` the same rule is applied here. Tables go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from math import ceil
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from scale import build_studio, log  # noqa: E402

CARRIER = "vera"
NEWS = {
    "work": ("Der Verlag will die Knochentürme im Artbook als Klapptafel drucken, mit Silhouetten aus Perlmutt-Lack.",
             "Knochentürme Klapptafel Perlmutt", ["bone-towers", "concept-art", "silhouette"]),
    "other": ("Die Hausverwaltung lässt am Freitag den Quittenbaum im Innenhof fällen, das Holz bekommt der Kindergarten.",
              "Quittenbaum Innenhof fällen Kindergarten", ["innenhof"]),
}
CHECKPOINTS = (1, 2, 3, 5)


def plant(workspace, agent: str, text: str, tags: list[str], created: str) -> None:
    path = workspace.memories_dir / f"{agent}.jsonl"
    count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    line = {"id": f"{agent}-{count + 1:03d}", "created": created, "type": "observation", "depth": 0,
            "description": text, "importance": 9, "tags": tags, "evidence": [], "metadata": {"source": "bench"}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")


# -- who knows: the project's rule, or the same rule where the commit has none ----------------


def _holds_here(workspace, memory, query: str) -> bool:
    from gamemaster.retrieval.text import analyzer

    words = analyzer(workspace.load_world().language)
    wanted = set(words.terms(query))
    texts = [memory.description]
    for key in ("heard", "transcript"):
        entries = memory.metadata.get(key)
        if isinstance(entries, list):
            author = memory.id.rsplit("-", 1)[0]
            texts += [e["says"] for e in entries if isinstance(e, dict) and isinstance(e.get("says"), str)
                      and e.get("speaker") != author]
    return any(len(wanted & set(words.terms(t))) >= ceil(len(wanted) * 2 / 3 - 1e-9) for t in texts)


def holds(workspace, memory, query: str) -> bool:
    try:
        from gamemaster.retrieval.text import analyzer
        from gamemaster.who_knows import evidence
    except ImportError:
        return _holds_here(workspace, memory, query)
    language = workspace.load_world().language
    return evidence(memory, set(analyzer(language).terms(query)), language) is not None


def knows(workspace, agent: str, query: str) -> bool:
    from gamemaster.retrieval import recall

    return any(holds(workspace, p.memory, query) for p in recall(workspace, agent, query).picked)


def known_share(workspace, query: str) -> float:
    try:
        from gamemaster.who_knows import who_knows
    except ImportError:
        agents = workspace.agent_ids()
        return sum(knows(workspace, a, query) for a in agents) / len(agents)
    result = who_knows(workspace, query)
    return len(result.knowing) / len(result.rows)


# -- lines said and their listeners -----------------------------------------------------------


def listeners_of(workspace, record: dict, speaker: str) -> list[str]:
    participants = record["participants"]
    if record["type"] in ("MEETING", "ENCOUNTER"):
        return [p for p in participants if p != speaker]
    try:
        from gamemaster.kinds.heard import tables
        from gamemaster.scenes import SceneSpec

        spec = SceneSpec.model_validate({k: record[k] for k in ("type", "day", "scene", "participants", "reason")}
                                        | {"rooms": record.get("rooms") or []})
        seated = tables(spec, workspace.load_agents(), workspace.load_world())
    except ImportError:
        seated = record.get("rooms") or [participants]
    table = next((t for t in seated if speaker in t), [])
    return [p for p in table if p != speaker]


def said_lines(workspace) -> list[tuple[str, str, str, list[str]]]:
    """(scene kind, speaker, says, listeners) of every non-empty line said in a scene."""
    found = []
    for path in sorted(workspace.root.glob("scenes/day-*/scene-*/scene.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for reply_path in sorted((path.parent / "replies").glob("*.json")):
            reply = json.loads(reply_path.read_text(encoding="utf-8"))
            says = (reply.get("says") or "").strip()
            speaker = reply.get("agent")
            if says and speaker:
                listeners = listeners_of(workspace, record, speaker)
                if listeners:
                    found.append((record["type"], speaker, says, listeners))
    return found


def heard_recall(workspace, lines: list, sample: int, rng: random.Random) -> tuple[int, int]:
    chosen = rng.sample(lines, min(sample, len(lines)))
    asked = recalled = 0
    for _, _, says, listeners in chosen:
        for listener in listeners:
            asked += 1
            recalled += knows(workspace, listener, says)
    return recalled, asked


def density(workspace, agents: list[str], backstory: bool = False) -> tuple[float, float]:
    """Shares of all pairs who talked, and who talked or heard each other, on the days played
    (with ``backstory``: day 0's conversation memories too, partners on the roster only)."""
    talked, heard = set(), set()
    for agent in agents:
        stream = workspace.memories_dir / f"{agent}.jsonl"
        for raw in stream.read_text(encoding="utf-8").splitlines():
            memory = json.loads(raw)
            created = str(memory.get("created", ""))
            if not created.startswith("day-") or (created.startswith("day-000") and not backstory):
                continue
            meta = memory.get("metadata") or {}
            if memory.get("type") == "conversation" and isinstance(meta.get("with"), list):
                talked |= {frozenset((agent, other)) for other in meta["with"] if other != agent and other in agents}
            if meta.get("source") == "heard":
                heard |= {frozenset((agent, h["speaker"])) for h in meta.get("heard", []) if h["speaker"] != agent}
    pairs = len(agents) * (len(agents) - 1) / 2
    return len(talked) / pairs, len(talked | heard) / pairs


def memory_lines(workspace) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in workspace.memories_dir.glob("*.jsonl"))


# -- one run ------------------------------------------------------------------------------------


def run(size: int, days: int, tmp: Path, seed: int, sample: int) -> dict:
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.gm import GameMaster
    from gamemaster.loop import advance_days, run_scene

    workspace = build_studio(tmp / f"studio-{size}-{seed}", size)
    gm = GameMaster(workspace)
    backend = OfflineBackend()
    start = time.perf_counter()
    before = memory_lines(workspace)
    arrival = run_scene(gm, backend)
    for text, _, tags in NEWS.values():
        plant(workspace, CARRIER, text, tags, arrival.spec.ref)
    before += len(NEWS)
    shares: dict[str, dict[int, float]] = {item: {} for item in NEWS}
    talked_2 = (float("nan"), float("nan"))
    for day in range(1, days + 1):
        advance_days(gm, backend, 1)
        if day in CHECKPOINTS:
            for item, (_, query, _) in NEWS.items():
                shares[item][day] = known_share(workspace, query)
        if day == 2:
            talked_2 = (density(workspace, workspace.agent_ids())[0],
                        density(workspace, workspace.agent_ids(), backstory=True)[0])
        log(f"  {size} characters, day {day}: " + ", ".join(f"{i} {shares[i].get(day, float('nan')):.0%}" for i in NEWS))
    agents = workspace.agent_ids()
    answered = {item: ask_mentions(workspace, query) for item, (_, query, _) in NEWS.items()}
    recalled, asked = heard_recall(workspace, said_lines(workspace), sample, random.Random(seed))
    talked, talked_or_heard = density(workspace, agents)
    per_day = (memory_lines(workspace) - before) / (len(agents) * days)
    log(f"  {size} characters: {time.perf_counter() - start:.0f} s")
    return {"size": size, "shares": shares, "recalled": recalled, "asked": asked, "talked": talked,
            "talked_or_heard": talked_or_heard, "per_day": per_day, "answered": answered, "talked_2": talked_2}


def ask_mentions(workspace, query: str) -> tuple[int, int]:
    """Of the characters who know an item (``knows``), how many mention it when asked about it
    (`gamemaster ask`, offline): the answer holds two thirds of the query's words, as ``holds``."""
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.interview import build, run

    words = [w.lower() for w in query.split()]
    holding = [agent for agent in workspace.agent_ids() if knows(workspace, agent, query)]
    said = 0
    for agent in holding:
        answer = run(build(workspace, agent, f"Was weißt du über {query}?"), OfflineBackend()).answer.lower()
        said += 3 * sum(w in answer for w in words) >= 2 * len(words)
    return said, len(holding)


# -- the party ---------------------------------------------------------------------------------

HOST = "emre"
PARTY = {"what": "Quittenfest im Innenhof: Kuchen, Most und die neuen Skizzen an der Wand", "day": 3,
         "slot": "lunch", "place": "Innenhof"}
GUESTS = 12
BUSY = 3


class _Host:
    """The offline player, except that the host's first reply proposes the party."""

    def __init__(self, guests: list[str]):
        from gamemaster.backends.offline import OfflineBackend

        self.inner = OfflineBackend()
        self.capabilities = self.inner.capabilities
        self.name = self.inner.name
        self.guests = guests
        self.proposed = False

    def reply(self, request) -> str:
        body = json.loads(self.inner.reply(request))
        if request.agent.id == HOST and not self.proposed and request.spec.kind.name != "ARRIVAL":
            body["gathering"] = {**PARTY, "invite": self.guests}
            self.proposed = True
        return json.dumps(body, ensure_ascii=False)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def party_brief(workspace, guests: list[str]) -> str:
    """The Creative Director's brief to the host: the party, its weekday and time, the guests by name."""
    from gamemaster.lang import join_names, phrase, short_name

    world = workspace.load_world()
    weekday = phrase(world.language, "weekday_" + world.weekday(PARTY["day"]))
    names = join_names(world.language, [short_name(workspace.load_agent(g).name) for g in guests])
    return f"Organisiere am {weekday} mittags ein Quittenfest im Innenhof und lade {names} ein."


def busy_brief(workspace) -> str:
    """The Creative Director's brief that fills the party's slot with work."""
    from gamemaster.lang import phrase

    world = workspace.load_world()
    weekday = phrase(world.language, "weekday_" + world.weekday(PARTY["day"]))
    return f"Am {weekday} mittags zeigst du dem Verlag den Stand deiner Arbeit."


def party(size: int, tmp: Path, seed: int, inject: bool = False) -> dict:
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.briefs import give_brief
    from gamemaster.gm import GameMaster
    from gamemaster.loop import advance_days, run_scene

    workspace = build_studio(tmp / f"party-{size}-{seed}", size)
    # The seed draws the guests and the offline player's answers.
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "seed": seed}, ensure_ascii=False), encoding="utf-8")
    others = [a for a in workspace.agent_ids() if a != HOST]
    guests = sorted(random.Random(seed).sample(others, min(GUESTS, len(others))))
    busy = sorted(random.Random(seed + 1000).sample(guests, min(BUSY, len(guests))))
    backend = _Host(guests) if inject else OfflineBackend()
    start = time.perf_counter()
    gm = GameMaster(workspace)
    try:
        run_scene(gm, backend)  # day 1's ARRIVAL
        if not inject:
            give_brief(workspace, party_brief(workspace, guests), to=[HOST])
        advance_days(gm, backend, 1)
        while gm.world().day < 2:  # day 2's ARRIVAL: the day under way that advance_days counts as its first
            run_scene(gm, backend)
        give_brief(workspace, busy_brief(workspace), to=busy)
        advance_days(gm, backend, PARTY["day"] - 1)
    except Exception as exc:  # a commit without gatherings rejects the reply that proposes one
        log(f"  party at {size} characters: {str(exc).splitlines()[-1]}")
        return {"size": size, "seed": seed, "proposed": False}
    world = workspace.load_world()
    gathering = next((g for g in getattr(world, "gatherings", []) if g.host == HOST), None)
    if gathering is None:
        return {"size": size, "seed": seed, "proposed": False}
    record = None
    if gathering.held:
        record = json.loads((workspace.scene_dir(gathering.held) / "scene.json").read_text(encoding="utf-8"))
    present = record["participants"] if record else []
    log(f"  party at {size} characters: {time.perf_counter() - start:.0f} s")
    return {"size": size, "seed": seed, "proposed": True, "created": gathering.created, "invited": len(gathering.invited),
            "accepted": sum(1 for a in gathering.invited if gathering.answers.get(a) == "accepted"),
            "declined": sum(1 for a in gathering.invited if gathering.answers.get(a) == "declined"),
            "held": gathering.held, "slot": record.get("slot") if record else None,
            "host_present": HOST in present, "came": len(present),
            "guests_came": sum(1 for a in present if a in gathering.invited),
            "busy_came": sum(1 for a in present if a in busy),
            "busy_declined": sum(1 for a in busy if gathering.answers.get(a) == "declined"),
            "others_came": sum(1 for a in present if a in gathering.invited and a not in busy),
            "heard": len(gathering.heard),
            "heard_accepted": sum(1 for a in gathering.heard if gathering.answers.get(a) == "accepted"),
            "uninvited_came": sum(1 for a in present if a != HOST and a not in gathering.invited)}


def percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="7,25")
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--lines", type=int, default=40, help="lines said that are sampled for the recall check")
    parser.add_argument("--party", default="25", help="sizes to play the party run at (empty: none)")
    parser.add_argument("--party-seeds", type=int, default=1, help="party runs per size (seeds 1, 2, …)")
    parser.add_argument("--no-diffusion", action="store_true", help="only the party run")
    parser.add_argument("--inject", action="store_true",
                        help="the party's proposal put into the host's reply instead of asked for by a brief")
    args = parser.parse_args()
    sizes = [] if args.no_diffusion else [int(s) for s in args.sizes.split(",") if s.strip()]
    results, parties = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            results.append(run(size, args.days, Path(tmp), 1, args.lines))
        for size in [int(s) for s in args.party.split(",") if s.strip()]:
            parties += [party(size, Path(tmp), seed, args.inject) for seed in range(1, args.party_seeds + 1)]
    if parties:
        print_parties(parties)
    if not results:
        return
    days = [d for d in CHECKPOINTS if d <= args.days]
    print("| characters | news | " + " | ".join(f"knows after {d} d" for d in days)
          + " | `ask` mentions it (of those who know) | heard lines recalled | pairs who talked after 2 d"
            " (day 0 too) | pairs who talked | talked or heard | memories / character-day |")
    print("|---" * (len(days) + 8) + "|")
    for r in results:
        for item in NEWS:
            cells = [percent(r["shares"][item].get(d)) for d in days]
            said, holding = r["answered"][item]
            extra = [f"{said}/{holding} ({said / max(holding, 1):.0%})",
                     f"{r['recalled']}/{r['asked']} ({r['recalled'] / max(r['asked'], 1):.0%})",
                     f"{percent(r['talked_2'][0])} ({percent(r['talked_2'][1])})", percent(r["talked"]),
                     percent(r["talked_or_heard"]), f"{r['per_day']:.1f}"]
            print(f"| {r['size']} | {item} | " + " | ".join(cells) + " | " + " | ".join(extra) + " |")


def print_parties(parties: list[dict]) -> None:
    print("| characters | seed | proposed in | invited | accepted | declined | held | host present | came (host included) "
          f"| invitees who came | of the {BUSY} with work then: declined / came | the others who came "
          "| heard of it, not invited | of them said they come | came uninvited |")
    print("|---" * 15 + "|")
    for p in parties:
        if not p["proposed"]:
            print(f"| {p['size']} | {p['seed']} | — (no gathering proposed) |" + " |" * 12)
            continue
        held = f"{p['held']} ({p['slot']})" if p["held"] else "not held"
        print(f"| {p['size']} | {p['seed']} | {p['created']} | {p['invited']} | {p['accepted']} | {p['declined']} | {held} | "
              f"{'yes' if p['host_present'] else 'no'} | {p['came']} | {p['guests_came']} of {p['invited']} | "
              f"{p['busy_declined']} / {p['busy_came']} | {p['others_came']} of {p['invited'] - BUSY} | "
              f"{p['heard']} | {p['heard_accepted']} | {p['uninvited_came']} |")
    print()


if __name__ == "__main__":
    main()
