"""Passing news on: what the character holds that its listeners do not know yet.

An item is either first-hand (an own observation of importance 7 or more, ``news.held``)
or heard: a line someone said to the character that passed news on, recognised by the
phrase bank's own ``news`` templates, with the speaker as its source. Whether a listener
knows an item is decided from the character's own exchanges only (``news.exchanges``):
it told them, heard it from them, or they were there when someone said it. A colleague an item
names is told it, addressed („Leo, das betrifft dich: …“), not about them in the third person;
what others say about the character itself it does not tell on.
An item told in confidence („Erzähl es niemandem …“) stays with the one who holds it. Whom the
rest is told is a choice (``whom.reason_to_tell``): whom it concerns, everyone when it changes what
the whole studio was told, the few one is close to what one lived oneself. Items are told most
important first, then newest; two a turn at most, to those who do not know them. Of two items
on one matter only the version that holds is passed on (``updates.py``: a correction replaces
the rumour), and whoever the character can tell knows the old one is told the new.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ...ids import parse_scene_ref
from ...lang import join_names
from ...news import recent_lines
from ...updates import stale
from .naming import about
from .person import first_person
from .told import NEWS_CHARS, confided, told_in
from .text import bare, clip, mention
from .whom import knows, plain as _plain, reason_to_tell

if TYPE_CHECKING:
    from .player import Player

#: A heard item counts as much as a significant own observation: someone thought it worth passing on.
HEARD_IMPORTANCE = 8
#: Items one turn passes on at most: more would drown what the turn is about.
PER_TURN = 2


@dataclass(frozen=True)
class Item:
    text: str
    #: Whom the character heard it from; None for its own observation.
    source: str | None
    importance: int
    order: int
    #: Told or noted in confidence: the character keeps it.
    secret: bool = False
    #: The scene it was first noted or heard in (day, scene).
    when: tuple[int, int] = (0, 0)
    #: The earlier versions of the same matter it replaces (``updates.py``): those who know one of
    #: them are told it as a correction.
    replaces: tuple[Item, ...] = ()
    #: The words it is told with where they differ from ``text``: one's own news about oneself in
    #: the first person (``person.py``).
    said: str = ""

    @property
    def words(self) -> str:
        return self.said or self.text


def items(player: Player) -> list[Item]:
    """What the character holds, most important first, then newest; each item once, and of items on
    one matter only the version that holds (``updates.stale``). Worked out once a request: an
    ARRIVAL asks for them twice (what to tell, whom to seek out)."""
    if "items" not in player.memo:
        player.memo["items"] = _items(player)
    return list(player.memo["items"])


def _items(player: Player) -> list[Item]:
    found: dict[str, Item] = {}
    order = 0
    for memory in player.req.news:
        text = bare(memory.description, NEWS_CHARS)
        order += 1
        _keep(found, Item(text, None, memory.importance, order, confided(player.code, memory.description),
                          _key(memory.created or "")))
    for line in player.req.exchanges:
        if line.speaker == player.agent.id:
            continue
        # By the words (how the player says news, cues), else as the speaker passed it on (``passing.py``).
        for text in told_in(player.code, line.says) or list(line.passes):
            order += 1
            _keep(found, Item(text, line.speaker, HEARD_IMPORTANCE, order, confided(player.code, line.says, text),
                              _key(line.scene)))
    held = [_own_voice(player, item) for item in _holding(player.code, list(found.values()))]
    return sorted(held, key=lambda i: (-i.importance, -i.order))


def _own_voice(player: Player, item: Item) -> Item:
    """An own observation about the character itself, in its own voice where that is sure."""
    if item.source is not None or not about(player, item, player.agent.id):
        return item
    return replace(item, said=first_person(player.code, item.text, player.own_names(), player.others_names()) or "")


def _keep(found: dict[str, Item], item: Item) -> None:
    """Keep ``item`` unless the character had it already, from an earlier scene or first-hand."""
    known = found.get(_plain(item.text))
    if known is None or item.when < known.when:
        found[_plain(item.text)] = item


def _holding(code: str, held: list[Item]) -> list[Item]:
    """The items no later version replaces, each with the versions it replaces."""
    held.sort(key=lambda i: (i.when, i.order))
    replaced = stale(code, [item.text for item in held])
    earlier: dict[int, list[Item]] = {}
    for old, new in replaced.items():
        earlier.setdefault(new, []).append(held[old])
    return [replace(item, replaces=tuple(earlier.get(index, ()))) for index, item in enumerate(held)
            if index not in replaced]


def untold(player: Player, listeners: list[str]) -> list[tuple[Item, dict[str, str]]]:
    """The items some of ``listeners`` do not know yet and would want to, each with who they
    are and why (``reason_to_tell``); never a confidence, nor what others say about the character
    itself (told on, it would be about itself in the third person)."""
    found = []
    # Item (by its place in ``items``) and listener → why tell them, None if not: an ARRIVAL asks
    # it of everyone twice, for what to say and for whom to seek out.
    reasons: dict[tuple[int, str], str | None] = player.memo.setdefault("reasons", {})
    for number, item in enumerate(items(player)):
        if item.secret or (item.source is not None and about(player, item, player.agent.id)):
            continue
        unaware = {}
        for person in listeners:
            if person != player.agent.id:
                if (number, person) not in reasons:
                    reasons[number, person] = None if knows(player, item, person) else reason_to_tell(player, item, person)
                if reasons[number, person]:
                    unaware[person] = reasons[number, person]
        if unaware:
            found.append((item, unaware))
    return found


def line(player: Player, item: Item) -> str:
    """The sentence that passes ``item`` on, attributed to its source; said to one listener (an
    ENCOUNTER) or to several (German: „dir“ or „euch“); to the one it names when they listen,
    addressed („Leo, das betrifft dich: …“); a correction as one, naming whom it comes from where
    that is not whom the old version came from."""
    bank = player.lines["news"]
    one = "_one" if len(player.req.listeners) == 1 else ""
    subject = next((p for p in player.req.listeners if about(player, item, p)), None)
    if subject is not None:  # said to them, not about them in the third person
        key = "about_you" if item.source is None else "about_you_relayed"
        ctx = {"news": item.text, "name": player.name_of(subject)}
        return player.pick(bank[key], ctx | ({"source": player.name_of(item.source)} if item.source else {}))
    if item.replaces:
        relayed = item.source is not None and item.source != item.replaces[0].source
        return player.pick(bank["corrected_relayed" if relayed else "corrected"],
                           {"news": item.text, "source": player.name_of(item.source) if relayed else ""})
    if item.source is None and about(player, item, player.agent.id) and not item.said:
        return player.pick(bank["first_hand_self"], {"news": item.text})  # about itself, as written
    if item.source is None:
        return player.pick(bank["first_hand" + one], {"news": item.words})
    return player.pick(bank["relayed" + one], {"news": item.text, "source": player.name_of(item.source)})


def tell(player: Player) -> str | None:
    """What to say to the scene's listeners; ``None`` when none of them would learn anything."""
    return telling(player)[0]


def telling(player: Player) -> tuple[str | None, set[str]]:
    """What to say to the scene's listeners (``PER_TURN`` items at most) and whom it tells something:
    the item a talk was sought out for first (its topic names it), then the most pressing."""
    found = _most_pressing(untold(player, list(player.req.listeners)))
    topic = player.spec.topic or ""
    found = sorted(found, key=lambda entry: clip(entry[0].words, 50) not in topic)[:PER_TURN]
    return " ".join(line(player, item) for item, _ in found) or None, {p for _, who in found for p in who}


def news_wishes(player: Player, candidates: list[str]) -> list[tuple[dict[str, Any], str]]:
    """Talk wishes for the items some of ``candidates`` should hear (``PER_TURN`` items at most): one
    or two of them an item (whom it names first), each sought out on their own (a word in passing,
    an ENCOUNTER), nobody twice, each wish with the line announcing it; a correction to all who heard the old version from
    the character or with it (``CORRECT_AT_ONCE`` at most), in one talk."""
    found: list[tuple[dict[str, Any], str]] = []
    taken: set[str] = set()
    items_wished = 0
    for item, unaware in _most_pressing(untold(player, candidates)):
        ranked = sorted(p for p in unaware if p not in taken)
        if not ranked:
            continue
        misled = [p for p in ranked if unaware[p] == "correction"]
        if misled:  # whom one told the old version one seeks out together, to set it straight
            found.append(_correction_wish(player, item, misled[:CORRECT_AT_ONCE]))
            taken.update(misled[:CORRECT_AT_ONCE])
            items_wished += 1
            if items_wished == PER_TURN:
                break
            continue
        player.rng.shuffle(ranked)
        ranked.sort(key=lambda p: unaware[p] != "about them")  # whom it names first: it is theirs to know
        chosen = ranked[:2]
        taken.update(chosen)
        ctx = {"short": clip(item.words, 50)}
        if item.source is not None:
            ctx["source"] = player.name_of(item.source)
        topic = player.pick(player.lines["news"]["wish_topics"], ctx)
        for person in chosen:
            says = player.pick(player.lines["news"]["wish_says"], {"colleague": player.name_of(person)})
            found.append(({"with": [person], "topic": _held_topic(player, person, ctx["short"]) or topic,
                           "tags": ["news"]}, says))
        items_wished += 1
        if items_wished == PER_TURN:
            break
    return found


#: How pressing a reason to tell is, most first: setting straight what one told someone wrongly,
#: then telling someone what is about them, then the rest as they come.
PRESSING = ("correction", "about them")


def _most_pressing(found: list[tuple[Item, dict[str, str]]]) -> list[tuple[Item, dict[str, str]]]:
    """``untold``'s items, the most pressing to seek someone out for first (``PRESSING``)."""
    def rank(entry: tuple[Item, dict[str, str]]) -> int:
        reasons = set(entry[1].values())
        return next((i for i, why in enumerate(PRESSING) if why in reasons), len(PRESSING))
    return sorted(found, key=rank)


def _held_topic(player: Player, person: str, short: str) -> str | None:
    """The topic of the wish the character still holds to tell ``person`` this item: wanting to tell
    them the same thing again, it is the same wish, as old as when it was first made."""
    return next((w.topic for w in player.agent.talk_wishes if w.with_ == [person] and short in w.topic), None)


#: Those who heard the old version one seeks out in one talk (a MEETING): a table's worth.
CORRECT_AT_ONCE = 4


def _correction_wish(player: Player, item: Item, people: list[str]) -> tuple[dict[str, Any], str]:
    bank = player.lines["news"]
    topic = player.pick(bank["correction_topics"], {"short": clip(item.words, 50)})
    names = join_names(player.code, [player.name_of(p) for p in people])
    says = player.pick(bank["correction_says_one" if len(people) == 1 else "correction_says"], {"colleagues": names})
    return {"with": people, "topic": topic, "tags": ["news"]}, says


def takeaways(player: Player) -> list[dict[str, str]]:
    """The news items said in this conversation since the character last spoke that it did not hold."""
    known = {_plain(i.text) for i in items(player)}
    taken: list[dict[str, str]] = []
    for turn in player.req.transcript:
        if turn.speaker == player.agent.id:
            taken = []  # what came before the own last turn was taken away then
            continue
        for text in told_in(player.code, turn.says):
            if _plain(text) not in known:
                taken.append({"from": turn.speaker, "what": text})
                known.add(_plain(text))
    return taken


#: How much a heard item matters to the listener. It was passed on as news, so someone judged it
#: worth telling: "notable" on seed 001's scale at least; "significant", as the player holds any
#: heard item (``HEARD_IMPORTANCE``), when it names what the listener works on (its interests,
#: today's plan, its most important memories). Set by the seed's scale, not tuned on a bench.
WEIGHED_CLOSE = HEARD_IMPORTANCE
WEIGHED_FAR = 5


def weighed(player: Player) -> list[dict[str, Any]]:
    """News the character heard side by side since its last scene (``news.recent_lines``, as its
    prompt shows them) and did not hold, weighed by whether it touches what the character works
    on: ``takeaways`` with an importance. Conversations take theirs as they go (``takeaways``)."""
    last = parse_scene_ref(player.agent.last_scene) if player.agent.last_scene else (0, 0)
    # What touches the character: its interests, today's plan, and what it holds most important
    # (a studio's shared deadline is in everyone's kickoff memory, whatever their craft).
    own = {t for i in player.interests for t in i.tags}
    own |= {t for m in player.req.memories if m.importance >= 7 for t in m.tags}
    if player.agent.today_plan:
        own |= set(player.agent.today_plan.tags) | set(player.terms(player.agent.today_plan.text))
    known = {_plain(bare(m.description, NEWS_CHARS)) for m in player.req.news}
    taken: list[dict[str, Any]] = []
    for line in recent_lines(list(player.req.exchanges), player.agent.id):
        if line.speaker == player.agent.id or not line.side_by_side or _key(line.scene) < last:
            continue
        for text in told_in(player.code, line.says) or list(line.passes):
            if _plain(text) in known:
                continue
            known.add(_plain(text))
            close = any(mention(text, tag) for tag in own if tag not in player.plain_tags)
            taken.append({"from": line.speaker, "what": text, "importance": WEIGHED_CLOSE if close else WEIGHED_FAR})
    return taken[:PER_TURN]


def _key(ref: str) -> tuple[int, int]:
    try:
        return parse_scene_ref(ref)
    except ValueError:
        return (0, 0)
