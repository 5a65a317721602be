"""``world.json`` and ``bulletin.json`` as studios write them, carried into the toolkit's world.

What has a place is moved there: the day and scene counters into ``day``, ``scene``,
``today`` and ``first_weekday``; scheduled events into ``events``; briefs (the world's
``active_briefs`` and the Creative Director's posts on the bulletin) into ``past_briefs``,
seen by everyone, since the studio already played them. The fields that were carried
are kept, as they were, under ``imported``, so a second run finds nothing left to carry.
Fields without a place (``time_of_day``, ``studio_status``…) stay where they are.
``bulletin.json`` itself is only read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import ValidationError

from ..ids import is_agent_id
from ..kinds.settings import old_keys, problems
from ..models import Brief, Memory, World, scene_ref
from ..problems import describe_validation_error
from .drift import Drift, Finding, day_number, first_weekday, keep_under, shorten, weekday_of

#: Legacy fields whose meaning the world now holds; their original values go under ``imported``.
CARRIED = ("day_of_week", "scenes_today", "scenes_total", "scheduled_events", "active_briefs")
#: The type a scene of the old studio gets in ``today``: the toolkit did not play it.
IMPORTED_SCENE = "IMPORTED"
BULLETIN = "state/bulletin.json"


@dataclass
class StudioFacts:
    """What the rest of the state says, for the world's repair."""

    folder_name: str
    agent_ids: list[str]
    memories: dict[str, list[Memory]]
    bulletin: list = field(default_factory=list)


def _old_setting_names(data: dict, finding: Finding) -> None:
    """Kind settings under their flat names of before (``meeting_rounds``): the world is written
    with them under ``kinds`` (``kinds.settings.world_data``). Under both names with one value the
    old key goes; with two, only the user knows which was meant."""
    for old, new in old_keys(data).items():
        section, field = new.split(".")[1:]
        settings = data.get("kinds", {}).get(section, {}) if isinstance(data.get("kinds"), dict) else {}
        if not isinstance(settings, dict) or field not in settings:
            finding.drift(f"{old} {data[old]!r}: an old name", f"moved to {new}")
        elif settings[field] == data[old]:
            finding.drift(f"{old} {data.pop(old)!r}: an old name", f"removed: {new} holds the same value")
        # Two values: the world does not load, and its error says which key to remove.


def repair_world(data: dict, facts: StudioFacts, finding: Finding, bulletin_drifts: list[Drift]) -> World | None:
    data = dict(data)
    imported = data.get("imported") if isinstance(data.get("imported"), dict) else {}
    if "studio" not in data or not isinstance(data["studio"], str) or not data["studio"].strip():
        if "studio" in data:
            keep_under(data, "original_studio", data.pop("studio"))
        data["studio"] = facts.folder_name
        finding.drift("no studio", f"studio {facts.folder_name!r} from the folder's name", draft=True)
    _day(data, facts, finding)
    if "day_of_week" in data:
        weekday = weekday_of(data["day_of_week"])
        if weekday and isinstance(data.get("day"), int) and data["day"] >= 1:
            data["first_weekday"] = first_weekday(weekday, data["day"])
            finding.drift(f"day_of_week {data['day_of_week']!r}",
                          f"first_weekday {data['first_weekday']} (the weekday of day 1)")
        else:
            finding.drift(f"day_of_week {data['day_of_week']!r}", "no weekday to derive; kept under imported")
    if "scenes_today" in data:
        _today(data, facts, finding)
    if "scenes_total" in data:
        finding.drift(f"scenes_total {data['scenes_total']!r}", "kept under imported.scenes_total (the toolkit counts scenes per day)")
    if "scheduled_events" in data:
        _events(data, facts, finding)
    past = [b for b in data.get("past_briefs") or [] if isinstance(b, dict)]
    if "active_briefs" in data:
        _active_briefs(data, facts, past, finding)
    _bulletin_briefs(data, facts, past, bulletin_drifts)
    if past:
        data["past_briefs"] = past
    for name in CARRIED:
        if name in data:
            keep_under(imported, name, data.pop(name))
    if imported:
        data["imported"] = imported
    _old_setting_names(data, finding)
    try:
        world = World.model_validate(data)
    except ValidationError as exc:
        finding.error(describe_validation_error(exc))
        return None
    # The value reads each kind's section as JSON; the kinds check what the sections hold.
    kind_problems = problems(world)
    if kind_problems:
        finding.error("; ".join(kind_problems))
        return None
    return world


def _day(data: dict, facts: StudioFacts, finding: Finding) -> None:
    if "day" in data and isinstance(data["day"], int) and not isinstance(data["day"], bool):
        return
    day = day_number(data.get("day"))
    if day is None:
        days = [m.scene_key[0] for memories in facts.memories.values() for m in memories if m.scene_key]
        day = max(days, default=0)
        how = "the last day the memories were written on"
    else:
        how = "the same day"
    if "day" in data:
        keep_under(data, "original_day", data.pop("day"))
    data["day"] = day
    finding.drift("no day as a number", f"day {day} ({how})")


def _today(data: dict, facts: StudioFacts, finding: Finding) -> None:
    """The old studio's scenes of its last day become ``today``, so the toolkit knows how
    far that day got: a full day is over and the next ``day advance`` opens the next one."""
    count = day_number(data["scenes_today"])
    day = data.get("day")
    if not count or not isinstance(day, int) or day < 1 or data.get("today"):
        finding.drift(f"scenes_today {data['scenes_today']!r}", "nothing to carry; kept under imported")
        return
    entries = []
    for number in range(1, count + 1):
        ref = scene_ref(day, number)
        present = sorted(agent for agent, memories in facts.memories.items() if any(m.created == ref for m in memories))
        entries.append({"scene": number, "type": IMPORTED_SCENE, "participants": present})
    data["today"] = entries
    data["scene"] = max(count, data.get("scene") if isinstance(data.get("scene"), int) else 0)
    finding.drift(f"scenes_today {count}", f"today: scenes 1–{count} of day {day:03d} as {IMPORTED_SCENE} "
                  f"(participants: who remembers that scene), scene {data['scene']}")


_TEXT_KEYS = ("text", "event", "title", "description", "content", "name", "what")
_TO_KEYS = ("to", "participants", "who", "attendees", "agents")


def _events(data: dict, facts: StudioFacts, finding: Finding) -> None:
    items = data["scheduled_events"] if isinstance(data["scheduled_events"], list) else [data["scheduled_events"]]
    events = [e for e in data.get("events") or [] if isinstance(e, dict)]
    issued = data.get("events_issued") if isinstance(data.get("events_issued"), int) else len(events)
    day = data.get("day") if isinstance(data.get("day"), int) else 0
    made = []
    for item in items:
        event = _event(item, facts, day)
        if event is None:
            finding.drift(f"scheduled_events: {shorten(item)!r} has no text", "not carried; kept under imported")
            continue
        issued += 1
        event["id"] = f"event-{issued:03d}"
        events.append(event)
        when = f"day {event['day']:03d}" if "day" in event else f"every {event['weekday']}"
        made.append(f"{event['id']} {when}{' (held)' if event.get('held') else ''}")
    if made:
        data["events"], data["events_issued"] = events, issued
    finding.drift(f"scheduled_events ({len(items)})", f"events {', '.join(made) or 'none'}; the originals kept under imported")


def _event(item: object, facts: StudioFacts, today: int) -> dict | None:
    if isinstance(item, str):
        head, _, rest = item.partition(":")
        weekday = weekday_of(head) if rest.strip() else None
        text = rest.strip() if weekday else item.strip()
        if not text:
            return None
        return {"text": text, "weekday": weekday} if weekday else {"text": text, "day": today + 1}
    if not isinstance(item, dict):
        return None
    texts = [item[k].strip() for k in _TEXT_KEYS if isinstance(item.get(k), str) and item[k].strip()]
    if not texts:
        return None
    event: dict = {"text": " – ".join(dict.fromkeys(texts))}
    day = day_number(item.get("day"))
    weekday = weekday_of(item.get("weekday") or item.get("day_of_week") or item.get("day"))
    if day is not None and day >= 1:
        event["day"] = day
        # An event on a day the studio already played has taken place (or was missed): not again.
        if day <= today:
            event["held"] = [day]
    elif weekday:
        event["weekday"] = weekday
    else:
        event["day"] = today + 1
    people = next((item[k] for k in _TO_KEYS if isinstance(item.get(k), list)), None)
    known = [p for p in people or [] if is_agent_id(p) and p in facts.agent_ids]
    if known:
        event["to"] = known
    if item.get("meeting") is True or str(item.get("type", "")).lower() in ("meeting", "besprechung"):
        event["meeting"] = True
    consumed = {*_TEXT_KEYS, *_TO_KEYS, "day", "weekday", "day_of_week", "meeting", "type", "id", "held"}
    event.update({k: v for k, v in item.items() if k not in consumed})  # a time of day, a place: kept on the event
    return event


def _brief(text: str, created: str, facts: StudioFacts, number: int, **extra) -> dict:
    brief = Brief(id=f"brief-{number:03d}", text=text, created=created, seen_by=list(facts.agent_ids), **extra)
    return brief.model_dump(mode="json")


def _issued(data: dict, past: list[dict]) -> int:
    current = data.get("briefs_issued") if isinstance(data.get("briefs_issued"), int) else 0
    return max(current, len(past) + len(data.get("briefs") or []))


def _known_texts(data: dict, past: list[dict]) -> set[str]:
    return {b.get("text") for b in [*past, *(data.get("briefs") or [])] if isinstance(b, dict)}


def _active_briefs(data: dict, facts: StudioFacts, past: list[dict], finding: Finding) -> None:
    items = data["active_briefs"] if isinstance(data["active_briefs"], list) else [data["active_briefs"]]
    now = scene_ref(data.get("day", 0) or 0, data.get("scene", 0) or 0)
    posted = {post["content"]: post for post in _brief_posts(facts.bulletin)}
    ids = []
    for item in items:
        text = item.strip() if isinstance(item, str) else None
        if not text:
            continue
        existing = next((b for b in past if b.get("text") == text), None)
        if existing is not None:
            existing["active"] = True
            ids.append(existing["id"])
            continue
        post = posted.get(text)
        created = _post_ref(post) if post else now
        data["briefs_issued"] = _issued(data, past) + 1
        extra = {"active": True, **({"from": post["from"], "source": BULLETIN} if post and post.get("from") else {})}
        past.append(_brief(text, created, facts, data["briefs_issued"], **extra))
        ids.append(past[-1]["id"])
    finding.drift(f"active_briefs ({len(items)})", f"past_briefs {', '.join(ids) or 'none'}, marked active and seen by "
                  "everyone (the studio already had them); the list kept under imported")


def _bulletin_briefs(data: dict, facts: StudioFacts, past: list[dict], drifts: list[Drift]) -> None:
    for index, post in enumerate(facts.bulletin):
        if post not in _brief_posts([post]) or post["content"] in _known_texts(data, past):
            continue
        data["briefs_issued"] = _issued(data, past) + 1
        extra = {"source": BULLETIN, **({"from": post["from"]} if isinstance(post.get("from"), str) else {})}
        past.append(_brief(post["content"], _post_ref(post), facts, data["briefs_issued"], **extra))
        drifts.append(Drift(BULLETIN, None, f"[{index}] brief from {post.get('from', '?')} on day {post.get('day', '?')}",
                            f"world.json past_briefs {past[-1]['id']}, seen by everyone; bulletin.json stays as it is"))


def _brief_posts(posts: list) -> list[dict]:
    return [p for p in posts if isinstance(p, dict) and str(p.get("type", "")).lower() == "brief"
            and isinstance(p.get("content"), str) and p["content"].strip()]


def _post_ref(post: dict) -> str:
    """The scene a post was made in; ``"scene": "03b"`` counts as scene 3."""
    scene = post.get("scene")
    if isinstance(scene, str):
        digits = re.search(r"\d+", scene)
        scene = int(digits.group()) if digits else None
    return scene_ref(day_number(post.get("day")) or 0, day_number(scene) or 0)
