"""Gatherings characters organise: a reply proposes one, invitees answer, and it takes place.

A reply's ``gathering`` (what, day, slot, place, whom) becomes a ``Gathering`` in
``world.json`` with the next ``gathering-NNN`` id; every invitee gets the invitation as a
memory from the host, and the host one of having invited. An invitee answers in a later
reply's ``invitations`` (accept or decline); the host counts as accepted. At its slot the
GATHERING scene (``kinds/gathering.py``) seats the host and those who accepted.

The rules on what a reply may propose and answer live here (``proposal_problems``,
``answer_problems``); ``replies.check_reply`` asks them.
"""

from __future__ import annotations

from typing import Iterable

from .calendar import day_text
from .ids import no_agent
from .lang import join_names, phrase, short_name
from .models import GATHERING_DAYS_AHEAD, GATHERINGS_MAX, Gathering, World
from .slots import SLOTS, slot_index, slot_label

#: Words a reply may use in ``invite`` for everyone in the studio (but the host).
EVERYONE = frozenset({"alle", "everyone", "all"})
#: An invitation is personal and names a day: worth remembering, like an event.
INVITATION_IMPORTANCE = 6
HOSTING_IMPORTANCE = 5
ANSWER_IMPORTANCE = 3


def invitees(invite: Iterable[str], host: str, roster: Iterable[str]) -> list[str]:
    """The agent ids ``invite`` names, everyone for ``alle``; never the host, each once."""
    roster = sorted(roster)
    wanted: list[str] = []
    for name in invite:
        wanted += [a for a in roster] if name.strip().lower() in EVERYONE else [name.strip().lower()]
    return [a for a in dict.fromkeys(wanted) if a != host]


def proposal_problems(draft, agent: str, spec, roster: Iterable[str], scenes_left: int | None = None,
                      held: int = 0) -> list[str]:
    """``gathering.<field>: reason`` for what a proposal cannot be (``scenes_left``: counted
    scenes today after this one, ``scenes.scenes_left``; a gathering is held before one;
    ``held``: the gatherings the world keeps now)."""
    problems = []
    if held >= GATHERINGS_MAX:
        problems.append(f"gathering: the studio keeps {GATHERINGS_MAX} gatherings already, the most it can; "
                        "answer an invitation instead")
    roster = sorted(roster)
    if draft.day < spec.day:
        problems.append(f"gathering.day: day {draft.day} is over (this scene is on day {spec.day})")
    elif draft.day > spec.day + GATHERING_DAYS_AHEAD:
        problems.append(f"gathering.day: at most {GATHERING_DAYS_AHEAD} days ahead (day {spec.day + GATHERING_DAYS_AHEAD}), "
                        f"not day {draft.day}")
    elif draft.day == spec.day and spec.slot in SLOTS and slot_index(draft.slot) < slot_index(spec.slot):
        problems.append(f"gathering.slot: the {draft.slot} of day {spec.day} is over (this scene is in the {spec.slot})")
    elif draft.day == spec.day and scenes_left == 0:
        problems.append(f"gathering.day: day {spec.day} has no scene left after this one; choose day {spec.day + 1} or later")
    named = [n.strip().lower() for n in draft.invite if n.strip().lower() not in EVERYONE]
    unknown = [n for n in named if n not in roster]
    if unknown:
        problems.append(f"gathering.invite: {no_agent(unknown, roster)}")
    elif not invitees(draft.invite, agent, roster):
        problems.append("gathering.invite: invite someone besides yourself (agent ids, or \"alle\")")
    return problems


def answer_problems(answers, agent: str, day: int, gatherings: list[Gathering] | None) -> list[str]:
    """``invitations.<n>.gathering: reason`` for answers to invitations the agent does not have."""
    if gatherings is None:
        return []
    by_id = {g.id: g for g in gatherings}
    problems = []
    for index, answer in enumerate(answers):
        gathering = by_id.get(answer.gathering)
        where = f"invitations.{index}.gathering"
        if gathering is None:
            problems.append(f"{where}: no gathering {answer.gathering!r}")
        elif agent not in gathering.asked():
            problems.append(f"{where}: {agent} is not invited to {gathering.id} and has not heard of it")
        elif gathering.held is not None or gathering.day < day:
            problems.append(f"{where}: {gathering.id} is over")
    return problems


def when(language: str, world: World, gathering: Gathering) -> str:
    """„Tag 003 (Mittwoch, 4. November 2026), Mittag“."""
    return phrase(language, "gathering_when", day=f"{gathering.day:03d}", date=day_text(language, world, gathering.day),
                  slot=slot_label(language, gathering.slot))


def describe(language: str, world: World, gathering: Gathering, host_name: str, key: str = "invitation",
             **more) -> str:
    return phrase(language, key, host=host_name, what=gathering.what, when=when(language, world, gathering),
                  place=gathering.place, **more)


def write_reply(scene, agent: str, reply) -> None:
    """What a reply's ``gathering`` and ``invitations`` change: the world's gatherings and memories."""
    world, language = scene.world, scene.language

    def name(agent_id: str) -> str:
        return short_name(scene.agents[agent_id].name) if agent_id in scene.agents else agent_id

    by_id = {g.id: g for g in world.gatherings}
    for answer in reply.invitations:
        gathering = by_id[answer.gathering]
        given = "accepted" if answer.answer == "accept" else "declined"
        if gathering.answers.get(agent) == given:
            continue  # said again in a later turn of the same scene: nothing new to remember
        gathering.answers[agent] = given
        because = " ".join(answer.because.split())
        if because:
            gathering.reasons[agent] = because
        else:
            gathering.reasons.pop(agent, None)  # a reason given for the other answer is not this one's
        # Not invited, one did not answer the host: one decided to go, or not.
        key = f"invitation_{given}" if agent in gathering.invited else f"heard_of_{given}"
        said = describe(language, world, gathering, name(gathering.host), key)
        scene.remember(agent, type="observation", importance=ANSWER_IMPORTANCE,
                       description=said + (" " + phrase(language, "invitation_because", why=because) if because else ""),
                       tags=["invitation", gathering.host],
                       metadata={"source": "invitation", "gathering": gathering.id, "host": gathering.host})
    draft = reply.gathering
    if draft is None:
        return
    world.gatherings_issued += 1
    gathering = Gathering(id=f"gathering-{world.gatherings_issued:03d}", host=agent, what=draft.what.strip(),
                          day=draft.day, slot=draft.slot, place=draft.place.strip(),
                          invited=invitees(draft.invite, agent, scene.agents), created=scene.spec.ref)
    world.gatherings.append(gathering)
    text = describe(language, world, gathering, name(agent))
    metadata = {"source": "invitation", "gathering": gathering.id, "host": agent}
    scene.remember(agent, type="plan", importance=HOSTING_IMPORTANCE,
                   description=describe(language, world, gathering, name(agent), "hosting", count=len(gathering.invited)),
                   tags=["invitation", "gathering"], metadata=metadata)
    for guest in gathering.invited:
        scene.remember(guest, type="observation", importance=INVITATION_IMPORTANCE, description=text,
                       tags=["invitation", agent], metadata=metadata)


def open_invitations(world: World, agent: str, day: int) -> list[Gathering]:
    """Invitations ``agent`` has not answered, to gatherings still ahead; also those it was not
    invited to and heard of (``Gathering.heard``)."""
    return [g for g in world.gatherings if g.open_for(agent, day)]


def soonest(gatherings: list[Gathering], limit: int) -> list[Gathering]:
    """The first ``limit`` gatherings by day and time of day: what a prompt lists of many."""
    return sorted(gatherings, key=lambda g: (g.day, slot_index(g.slot), g.id))[:limit]


def engagements(world: World, agent: str, day: int) -> list[Gathering]:
    """Gatherings still ahead that ``agent`` hosts or has accepted."""
    return [g for g in world.gatherings if g.held is None and g.day >= day and agent in g.accepted()]


def declined(world: World, agent: str, day: int) -> list[Gathering]:
    """Gatherings still ahead that ``agent`` has declined (it may still change its mind)."""
    return [g for g in world.gatherings if g.held is None and g.day >= day and g.answers.get(agent) == "declined"]


def render_invitations(language: str, world: World, gatherings: list[Gathering], names: dict[str, str],
                       engaged: list[Gathering] = (), turned_down: list[Gathering] = (), agent: str | None = None,
                       told_by: dict[str, list[str]] | None = None, more: int = 0) -> str:
    """The prompt's invitations paragraph: the open invitations, the gatherings it heard of without
    an invitation (``word_of_mouth.py``), what the character has accepted or hosts, and what it has
    declined, each with its id (a character answers, or changes its answer, by id); empty when
    there is none of them. ``told_by``: gathering id → whom the character heard of it from;
    ``more``: open invitations left out (later than those listed), said in one sentence."""
    def line(g: Gathering) -> str:
        if g.host == agent:
            return f"- {g.id}: {describe(language, world, g, '', 'hosting_listed')} {guest_list(language, g, names, agent)}"
        said = describe(language, world, g, short_name(names.get(g.host, g.host)) or g.host)
        tellers = [short_name(names.get(a, a)) or a for a in (told_by or {}).get(g.id, [])]
        told = " " + phrase(language, "heard_of_from", names=join_names(language, tellers)) if tellers else ""
        return f"- {g.id}: {said} {guest_list(language, g, names, agent)}{told}"

    invited = [g for g in gatherings if agent is None or agent in g.invited]
    heard = [g for g in gatherings if g not in invited]
    parts = [phrase(language, key) + "\n" + "\n".join(line(g) for g in listed)
             for key, listed in (("invitations_open", invited), ("invitations_heard", heard)) if listed]
    parts += [phrase(language, "invitations_more", count=more)] if more else []
    parts += [phrase(language, key) + "\n" + "\n".join(line(g) for g in listed)
              for key, listed in (("invitations_taken", engaged), ("invitations_declined", turned_down)) if listed]
    # Starts with a blank line: it follows the briefs in character.md and is nothing without invitations.
    return "".join("\n\n" + part for part in parts)


#: Up to this many guests are named in a prompt's invitation; more are counted.
NAMED_GUESTS = 8


def guest_list(language: str, gathering: Gathering, names: dict[str, str], agent: str | None) -> str:
    """„Eingeladen: du, Leo und Finn.“ — whom the gathering is for, as the one reading it would
    know (whether it is the whole studio, a few close colleagues, …)."""
    others = [short_name(names.get(a, a)) or a for a in gathering.invited if a != agent]
    me = [phrase(language, "you")] if agent in gathering.invited else []
    if len(others) > NAMED_GUESTS:
        return phrase(language, "invited_many", you=(me[0] + " " + phrase(language, "and") + " ") if me else "",
                      count=len(others))
    return phrase(language, "invited_who", names=join_names(language, me + others))


def due(world: World, has_come=lambda slot: True) -> Gathering | None:
    """Today's first gathering not yet held whose time of day ``has_come`` (by default: any)."""
    return next((g for g in world.gatherings if g.day == world.day and g.held is None and has_come(g.slot)), None)


def guests(world: World, gathering: Gathering, roster: Iterable[str]) -> list[str]:
    """Who comes: the host and those who accepted, unless they are at another gathering
    of the same day and slot already."""
    roster = set(roster)
    busy = {a for g in world.gatherings if g.id != gathering.id and g.held and g.day == gathering.day
            and g.slot == gathering.slot for a in g.accepted()}
    return [a for a in gathering.accepted() if a in roster and a not in busy]


def attendance(gathering: Gathering, present: list[str]) -> dict[str, list[str]]:
    """Who was invited or heard of it, answered how, and who came: ``absent`` accepted and did not
    come, ``uninvited`` came without an invitation (having heard of it, or seated by hand)."""
    accepted = [a for a in gathering.asked() if gathering.answers.get(a) == "accepted"]
    return {
        "invited": list(gathering.invited),
        "heard": list(gathering.heard),
        "accepted": accepted,
        "declined": [a for a in gathering.asked() if gathering.answers.get(a) == "declined"],
        "no_answer": [a for a in gathering.invited if a not in gathering.answers],
        "absent": [a for a in [gathering.host, *accepted] if a not in present],
        "uninvited": [a for a in present if a != gathering.host and a not in gathering.invited],
    }


def attendance_line(gathering: Gathering, seen: dict[str, list[str]]) -> str:
    """One English line for the CLI: how many of the invited came, and who is missing or extra."""
    came = len([a for a in seen["accepted"] if a in seen["invited"] and a not in seen["absent"]])
    host = "host present" if gathering.host not in seen["absent"] else "host absent"
    parts = [f"{host}, {came} of {len(seen['invited'])} invited came", f"{len(seen['declined'])} declined",
             f"{len(seen['no_answer'])} did not answer"]
    if seen["absent"]:
        parts.append("accepted but absent: " + ", ".join(seen["absent"]))
    if seen["uninvited"]:
        parts.append("came uninvited: " + ", ".join(seen["uninvited"]))
    return "; ".join(parts)


def overview(gathering: Gathering, came: list[str] | None) -> dict:
    """A gathering as ``status`` and the report show it: its facts, the answers and why (as the
    invitees said it), and, once held (``came``: the held scene's participants), who came, who
    accepted and stayed away and who came uninvited."""
    present = list(came or [])
    seen = attendance(gathering, present)
    return {
        "id": gathering.id, "host": gathering.host, "what": gathering.what, "day": gathering.day, "slot": gathering.slot,
        "place": gathering.place, "created": gathering.created, "held": gathering.held,
        "invited": seen["invited"], "heard": seen["heard"], "accepted": seen["accepted"], "declined": seen["declined"],
        "no_answer": seen["no_answer"], "reasons": dict(gathering.reasons), "came": present,
        "absent": seen["absent"] if gathering.held else [], "uninvited": seen["uninvited"] if gathering.held else [],
    }


def overviews(world: World, record_of) -> list[dict]:
    """Every gathering's ``overview``; ``record_of`` reads a scene's record (who was there)."""
    rows = []
    for gathering in world.gatherings:
        record = record_of(gathering.held) if gathering.held else None
        rows.append(overview(gathering, record.participants if record else None))
    return rows


def overview_lines(row: dict) -> list[str]:
    """Two English lines for ``status``: what, when, where and who; then the answers and who came."""
    def people(label: str, key: str) -> list[str]:
        return [f"{label} {', '.join(row[key])}"] if row[key] else []

    head = f"{row['id']} · day {row['day']:03d} {row['slot']} · {row['place']} · host {row['host']}: {row['what']}"
    parts = people("invited", "invited") + people("heard of it", "heard") + people("accepted", "accepted") \
        + people("declined", "declined") + people("no answer", "no_answer")
    if row["held"]:
        parts.append(f"held {row['held']}: came {', '.join(row['came']) or 'nobody'}")
        parts += people("accepted but absent:", "absent") + people("came uninvited:", "uninvited")
    else:
        parts.append("upcoming")
    return [head, "  " + " · ".join(parts)]
