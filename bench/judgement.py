"""Whether the offline studio passes news on with judgement: who hears of what, item by item.

    python bench/judgement.py [--size 25] [--seeds 7,11,23] [--days 3]

A fresh studio (``scale.build_studio``: the bundled seven and numbered copies), offline backend,
world seed from ``--seeds``. Five of the characters (drawn by the seed) form the team
„Rendering“. On day 1, before its ARRIVAL, the Creative Director briefs everyone on a studio
meeting about the summer holidays (what the whole studio is told). After that ARRIVAL six items
are planted, each in another carrier's stream (drawn by the seed, never a team member, never
the secret's subject), as the carrier's own observation of importance 8 unless said:

- ``studio-wide``: the studio meeting is moved — a change to what everyone was told;
- ``team``: the Rendering team's shader compiler is broken — it concerns five;
- ``secret``: a colleague applies elsewhere, told in confidence („Erzähl es niemandem …“);
- ``free-worded``: the coffee machine is broken — no cue word, concerns nobody in particular;
- ``day-0``: a decision written by hand with ``created`` day-000 at the end of the stream;
- ``big``: an own observation of importance 9 („einschneidend“) no one in particular is named in.

A seventh carrier (drawn after the others, so their draws stay as they were) notes a rumour on
day 1 — the holiday wishes are due on Friday, a matter of what everyone was told — and its
correction after day 2's ARRIVAL („… doch erst bis Montag …“), worded so that by itself it
would concern nobody in particular (it shares one word with the brief, the rumour two). Rows: who knows the rumour, who
knows the correction, of those who heard the rumour the share who hold the correction (the goal
counts it two days after the correction, at the end of day 3), and at the end everyone who knows
either, asked „Bis wann …?“ (``gamemaster ask``, offline): how many answer Monday, how many
only Friday. An eighth carrier notes on day 1 that the publisher wants a colleague's sketches
(both drawn after the others) for the demo's cover: does that colleague learn it, and how many
of the other 23?

After each of ``--days`` days: the share of the studio that knows each item (``who-knows``:
recalled at the default budget by a memory that holds two thirds of the query's words), the
carrier and the secret's subject left out. For the team item also the share of the team and of
the others. Then the pairs of characters who shared a MEETING or ENCOUNTER (``diffusion.density``,
the backstory's conversations counted) and the memories written per character and day so far. Runs on any commit with ``gamemaster.who_knows`` (a checkout of it on
``PYTHONPATH``). Table to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from diffusion import density  # noqa: E402
from scale import build_studio, log  # noqa: E402

TEAM = "Rendering"
TEAM_SIZE = 5
BRIEF = "Am Donnerstag ist Studioversammlung im großen Saal: Wir legen den Urlaubsplan für den Sommer fest."
ITEMS = {
    "studio-wide": ("Die Studioversammlung zum Urlaubsplan ist von Donnerstag auf Mittwochmorgen verlegt worden.",
                    "Studioversammlung Urlaubsplan Mittwochmorgen verlegt", 8, None),
    "team": ("Der Shader-Compiler des Rendering-Teams stürzt seit dem Treiber-Update ab; bis Montag läuft kein Build.",
             "Shader-Compiler Treiber-Update Build", 8, None),
    "secret": ("Erzähl es niemandem: {subject} bewirbt sich heimlich bei einem anderen Studio in Hamburg.",
               "bewirbt heimlich Studio Hamburg", 8, None),
    "free-worded": ("Der Kaffeeautomat in der Küche ist kaputt, der Techniker kommt erst nächste Woche.",
                    "Kaffeeautomat Küche kaputt Techniker", 8, None),
    "day-0": ("Die Geschäftsführung hat entschieden, dass wir im Frühjahr in das größere Büro am Hafen umziehen.",
              "Geschäftsführung Büro Hafen umziehen", 8, "day-000/scene-00"),
    "big": ("Der Publisher hat die Finanzierung für ein zweites Jahr zugesagt, mit Option auf eine Konsolen-Fassung.",
            "Publisher Finanzierung zweites Jahr Konsolen-Fassung", 9, None),
}


RUMOUR = ("Die Urlaubswünsche für den Sommer müssen bis Freitag im Urlaubsplan stehen.", "Urlaubswünsche Freitag")
# It shares one word with the brief where the rumour shares two: by itself it would not concern everyone.
CORRECTION = ("Die Urlaubswünsche müssen doch erst bis Montag im Urlaubsplan stehen.", "Urlaubswünsche Montag")
QUESTION = "Bis wann müssen die Urlaubswünsche im Urlaubsplan stehen?"
ABOUT = ("Der Publisher will die Skizzen von {name} für das Cover der Demo nehmen.", "Publisher Skizzen Cover Demo")


def set_world(workspace, **fields) -> None:
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, **fields}, ensure_ascii=False, indent=2), encoding="utf-8")


def set_team(workspace, agent_id: str, team: str) -> None:
    path = workspace.agent_path(agent_id)
    agent = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**agent, "team": team}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def plant(workspace, agent: str, text: str, importance: int, created: str) -> None:
    path = workspace.memories_dir / f"{agent}.jsonl"
    count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    line = {"id": f"{agent}-{count + 1:03d}", "created": created, "type": "observation", "depth": 0,
            "description": text, "importance": importance, "tags": [], "evidence": [], "metadata": {"source": "bench"}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def knowing(workspace, query: str) -> set[str]:
    from gamemaster.who_knows import who_knows

    return {row.agent for row in who_knows(workspace, query).knowing}


def run(size: int, days: int, seed: int, tmp: Path) -> dict:
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.briefs import give_brief
    from gamemaster.gm import GameMaster
    from gamemaster.lang import short_name
    from gamemaster.loop import advance_days, run_scene

    workspace = build_studio(tmp / f"judgement-{size}-{seed}", size)
    set_world(workspace, seed=seed)
    rng = random.Random(seed)
    agents = workspace.agent_ids()
    team = sorted(rng.sample(agents, TEAM_SIZE))
    for member in team:
        set_team(workspace, member, TEAM)
    others = [a for a in agents if a not in team]
    carriers = rng.sample(others, len(ITEMS) + 1)
    subject = carriers.pop()
    rumour_carrier = rng.choice(sorted(set(others) - set(carriers) - {subject}))
    named = rng.choice(sorted(set(others) - set(carriers) - {subject, rumour_carrier}))
    named_carrier = rng.choice(sorted(set(others) - set(carriers) - {subject, rumour_carrier, named}))
    names = {a: workspace.load_agent(a).name.split()[0] for a in agents}
    give_brief(workspace, BRIEF, to=None)
    backend = OfflineBackend()
    gm = GameMaster(workspace)
    start = time.perf_counter()
    arrival = run_scene(gm, backend)
    planted = {}
    for (item, (text, query, importance, created)), carrier in zip(ITEMS.items(), carriers):
        plant(workspace, carrier, text.format(subject=names[subject]), importance, created or arrival.spec.ref)
        planted[item] = carrier
    plant(workspace, rumour_carrier, RUMOUR[0], 8, arrival.spec.ref)
    # By the name colleagues use: a numbered copy's first name is the original's.
    plant(workspace, named_carrier, ABOUT[0].format(name=short_name(workspace.load_agent(named).name)), 8,
          arrival.spec.ref)
    about: dict[int, tuple[bool, int]] = {}
    heard = [a for a in agents if a != rumour_carrier]
    rumour: dict[int, tuple[int, int, int]] = {}
    counted = {item: [a for a in agents if a != planted[item] and (item != "secret" or a != subject)] for item in ITEMS}
    shares: dict[str, dict[int, tuple[int, int]]] = {item: {} for item in ITEMS}
    team_split: dict[int, tuple[int, int]] = {}
    talked: dict[int, float] = {}
    lines: dict[int, float] = {}
    before = memory_lines(workspace)
    for day in range(1, days + 1):
        if day == 2:
            plant(workspace, rumour_carrier, CORRECTION[0], 8, run_scene(gm, backend).spec.ref)
        advance_days(gm, backend, 1)
        old, new = (knowing(workspace, RUMOUR[1]) & set(heard), knowing(workspace, CORRECTION[1]) & set(heard))
        rumour[day] = (len(old), len(new), len(old & new))
        told = knowing(workspace, ABOUT[1]) - {named_carrier}
        about[day] = (named in told, len(told - {named}))
        for item, (_, query, _, _) in ITEMS.items():
            knows = knowing(workspace, query)
            shares[item][day] = (len(knows & set(counted[item])), len(counted[item]))
            if item == "team":
                team_split[day] = (len(knows & set(team) - {planted[item]}), len(knows & set(others) - {planted[item]}))
        talked[day] = density(workspace, agents, backstory=True)[0]
        lines[day] = (memory_lines(workspace) - before) / (len(agents) * day)
        log(f"  seed {seed}, day {day}: " + ", ".join(f"{i} {shares[i][day][0]}" for i in ITEMS))
    log(f"  seed {seed}: {time.perf_counter() - start:.0f} s")
    return {"seed": seed, "shares": shares, "team": team_split, "others": len(others) - 1, "talked": talked,
            "lines": lines, "rumour": rumour, "about": about, "asked": asked_date(workspace, old | new), "of": len(heard)}


def asked_date(workspace, who: set[str]) -> tuple[int, int, int]:
    """Of ``who``, asked ``QUESTION`` (offline ``ask``): how many answer Monday, how many only
    Friday, how many neither."""
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.interview import build, run

    new = old = neither = 0
    for agent in sorted(who):
        answer = run(build(workspace, agent, QUESTION), OfflineBackend()).answer.lower()
        new += "montag" in answer
        old += "freitag" in answer and "montag" not in answer
        neither += "freitag" not in answer and "montag" not in answer
    return new, old, neither


def memory_lines(workspace) -> int:
    return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in workspace.memories_dir.glob("*.jsonl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=25)
    parser.add_argument("--seeds", default="7,11,23")
    parser.add_argument("--days", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = [run(args.size, args.days, int(s), Path(tmp)) for s in args.seeds.split(",") if s.strip()]
    days = range(1, args.days + 1)
    print("| item | " + " | ".join(f"knows after {d} d (seeds {args.seeds})" for d in days) + " |")
    print("|---" * (args.days + 1) + "|")
    for item in ITEMS:
        cells = []
        for d in days:
            cells.append(" · ".join(f"{r['shares'][item][d][0]}/{r['shares'][item][d][1]}" for r in results))
        print(f"| {item} | " + " | ".join(cells) + " |")
    cells = [" · ".join(f"{r['team'][d][0]}/{TEAM_SIZE} + {r['team'][d][1]}/{r['others']}" for r in results) for d in days]
    print("| team item: team + others | " + " | ".join(cells) + " |")
    for label, index in (("rumour (Friday)", 0), ("correction (Monday)", 1)):
        cells = [" · ".join(f"{r['rumour'][d][index]}/{r['of']}" for r in results) for d in days]
        print(f"| {label} | " + " | ".join(cells) + " |")
    cells = [" · ".join(f"{r['rumour'][d][2]}/{r['rumour'][d][0]}" for r in results) for d in days]
    print("| heard the rumour: hold the correction | " + " | ".join(cells) + " |")
    cells = [" · ".join(("yes" if r["about"][d][0] else "no") + f" + {r['about'][d][1]}/{r['of'] - 1}" for r in results)
             for d in days]
    print("| about a colleague: they know + others who know | " + " | ".join(cells) + " |")
    asked = " · ".join("{}/{}/{}".format(*r["asked"]) for r in results)
    print(f"| asked the date at the end: Monday / only Friday / neither | {asked} |" + " |" * (args.days - 1))
    cells = [" · ".join(f"{r['talked'][d]:.0%}" for r in results) for d in days]
    print("| pairs who talked (day 0 too) | " + " | ".join(cells) + " |")
    cells = [" · ".join(f"{r['lines'][d]:.1f}" for r in results) for d in days]
    print("| memories / character-day | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
