"""Passing news on: what the character holds that its listeners do not know yet.

An item is either first-hand (an own observation of importance 7 or more, ``news.held``)
or heard: a line someone said to the character that passed news on, recognised by the
phrase bank's own ``news`` templates, with the speaker as its source. Whether a listener
knows an item is decided from the character's own exchanges only (``news.exchanges``):
it told them, heard it from them, or they were there when someone said it — and a colleague
an item names knows their own affairs, so nobody is told about themselves in the third person.
An item told in confidence („Erzähl es niemandem …“) stays with the one who holds it. Whom the
rest is told is a choice (``reason_to_tell``): whom it concerns, everyone when it changes what
the whole studio was told, the few one is close to what one lived oneself. Items are told most
important first, then newest; two a turn at most, to those who do not know them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...ids import parse_scene_ref
from ...lang import phrase
from ...news import recent_lines
from ...retrieval.text import analyzer
from .phrase_banks import phrase_bank
from .text import bare, clip, mention

if TYPE_CHECKING:
    from .player import Player

#: A heard item counts as much as a significant own observation: someone thought it worth passing on.
HEARD_IMPORTANCE = 8
#: Characters of a news item's text when it is said.
NEWS_CHARS = 160
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


@functools.cache
def _patterns(code: str) -> tuple[re.Pattern, ...]:
    """A pattern per news template of a language, capturing the item (and its source)."""
    bank = phrase_bank(code)["news"]
    found = []
    for template in bank["first_hand"] + bank["first_hand_one"] + bank["relayed"] + bank["relayed_one"]:
        pattern = re.escape(template)
        # Bounded: an unbounded lazy group makes a long line without a match take quadratic time.
        pattern = pattern.replace(re.escape("{source}"), r"(?P<source>[^.!?]{1,80}?)")
        pattern = pattern.replace(re.escape("{news}"), r"(?P<news>[^„“”\"»«]{1,1000})")
        found.append(re.compile(pattern))
    return tuple(found)


#: How people pass news on in their own words (a Claude character, a human's reply): a line
#: with one of these, lower-cased, passes on what follows it. Read, never said: not in the phrase bank.
CUES = {
    "de": ("hast du schon gehört", "habt ihr schon gehört", "schon gehört", "stell dir vor", "stellt euch vor",
           "wusstest du", "wusstet ihr", "weißt du schon", "wisst ihr schon", "hat erzählt", "hat mir erzählt",
           "hat gesagt", "meinte", "ich habe gehört", "hab gehört", "habe ich gehört", "eine neuigkeit",
           "neuigkeiten"),
    "en": ("did you hear", "have you heard", "heard that", "guess what", "told me", "said that", "apparently",
           "did you know", "some news"),
}
#: How people ask to keep something to oneself: a sentence with one of these, lower-cased, makes
#: what it and the next sentence say a confidence its holder keeps. Requests only: „unter uns
#: Artists“ or „der Vertrag ist vertraulich“ say nothing about passing on. Read, never said.
SECRET = {
    "de": ("erzähl es niemandem", "erzählt es niemandem", "sag es niemandem", "sagt es niemandem",
           "erzähl das niemandem", "sag das niemandem", "erzähl das keinem", "sag das keinem", "nicht weitersagen",
           "nicht weiter sagen", "bleibt unter uns", "unter uns gesagt", "behalte es für dich", "behalt es für dich",
           "behaltet es für euch", "behalte das für dich", "im vertrauen gesagt", "ganz im vertrauen"),
    "en": ("don't tell anyone", "do not tell anyone", "don't tell anybody", "keep it to yourself",
           "keep this to yourself", "between you and me", "just between us", "keep it quiet", "keep this quiet"),
}
#: What a cue must be followed by to be news: a few words, not a greeting.
CUED_WORDS = 4
_QUOTED = re.compile(r"[„“\"»«”]([^„“\"»«”]{20,1000})[“”\"«»]")
_SENTENCES = re.compile(r"[^.!?]+[.!?]*")
_THAT = {"de": re.compile(r"\bdass\s+"), "en": re.compile(r"\bthat\s+")}


def told_in(code: str, says: str) -> list[str]:
    """The news items a line passes on: by the phrase bank's templates (how the offline player
    says it), else by the language's ``CUES`` (how anyone else might): a quoted passage after the
    cue, or the rest of its sentence (after „dass“), or, when the cue is a question of its own
    („Habt ihr schon gehört?“), the next sentence."""
    items = []
    for pattern in _patterns(code):
        items += [m.group("news").strip() for m in pattern.finditer(says)]
    return list(dict.fromkeys(items or _cued(code, says[:4000])))


@functools.cache
def _words_pattern(phrases: tuple[str, ...]) -> re.Pattern:
    """Any of ``phrases`` as whole words (as ``text.mention``): „Neuigkeiten“ and
    „Neuigkeiten-Seite“ are not the cue „neuigkeit“ and a rest."""
    return re.compile("|".join(rf"(?<![\w-]){re.escape(p)}(?![\w-])" for p in phrases))


def confided(code: str, text: str, item: str | None = None) -> bool:
    """Whether ``text`` asks that ``item`` (by default all it says) be kept to oneself: a request
    to keep it in the sentence that holds the item or in the one before it."""
    where = text.find(item[:40]) if item else -1
    sentences = [m.group(0) for m in _SENTENCES.finditer(text[:where] if where > 0 else text)]
    scope = " ".join(sentences[-2:] + ([item] if where > 0 and item else []))
    return bool(_words_pattern(SECRET.get(code, SECRET["en"])).search(scope.lower()))


def _cued(code: str, says: str) -> list[str]:
    cues = _words_pattern(CUES.get(code, CUES["en"]))
    sentences = [m.group(0).strip() for m in _SENTENCES.finditer(says) if m.group(0).strip()]
    for index, sentence in enumerate(sentences):
        lower = sentence.lower()
        ends = [m.end() for m in cues.finditer(lower)]
        if not ends:
            continue
        rest = sentence[max(ends):]
        quoted = _QUOTED.search(" ".join([rest, *sentences[index + 1:index + 2]]))
        if quoted:
            return [quoted.group(1).strip().rstrip(".!?")]
        that = _THAT.get(code, _THAT["en"]).search(rest)
        rest = (rest[that.end():] if that else rest).strip(" ,:;-–.!?")
        if len(rest.split()) < CUED_WORDS and index + 1 < len(sentences):
            rest = sentences[index + 1].strip(" ,:;-–.!?")
        if len(rest.split()) >= CUED_WORDS:
            return [rest[:NEWS_CHARS * 2]]
    return []


def _plain(text: str) -> str:
    return " ".join(text.split()).lower()


def items(player: Player) -> list[Item]:
    """What the character holds, most important first, then newest; each item once."""
    found: dict[str, Item] = {}
    order = 0
    for memory in player.req.news:
        text = bare(memory.description, NEWS_CHARS)
        order += 1
        found.setdefault(_plain(text), Item(text, None, memory.importance, order,
                                            confided(player.code, memory.description)))
    for line in player.req.exchanges:
        if line.speaker == player.agent.id:
            continue
        for text in told_in(player.code, line.says):
            order += 1
            found.setdefault(_plain(text), Item(text, line.speaker, HEARD_IMPORTANCE, order,
                                                confided(player.code, line.says, text)))
    return sorted(found.values(), key=lambda i: (-i.importance, -i.order))


def knows(player: Player, item: Item, person: str) -> bool:
    """Does ``person`` know ``item``, as far as the character can tell? Their own affairs they do."""
    if person == item.source or about(player, item, person):
        return True
    wanted = _plain(item.text)
    for line in player.req.exchanges:
        if (line.speaker == person or person in line.present) and wanted in _plain(line.says):
            return True
    return False


def about(player: Player, item: Item, person: str) -> bool:
    """Whether ``item`` names ``person`` (by the name colleagues use, or the full one)."""
    names = {player.name_of(person), player.req.colleagues.get(person, "")}
    return any(mention(item.text, name) for name in names if len(name) > 2)


def untold(player: Player, listeners: list[str]) -> list[tuple[Item, list[str]]]:
    """The items some of ``listeners`` do not know yet and would want to, each with who they
    are (``reason_to_tell``); never a confidence."""
    found = []
    for item in items(player):
        if item.secret:
            continue
        unaware = [p for p in listeners if p != player.agent.id and not knows(player, item, p)
                   and reason_to_tell(player, item, p)]
        if unaware:
            found.append((item, unaware))
    return found


#: Of the colleagues a character talked with lately (``news.partners``, most often first), the
#: ones it tells what it holds whatever it is about: a handful, as people have a few they tell
#: everything. Not tuned on a bench: the number of people one confides in.
CLOSE = 3
#: An own observation this important ("einschneidend" on seed 001's scale) is told to anyone who
#: will listen; a heard one is judged by whom it concerns, as the holder did not live it.
EVERYONE_IMPORTANCE = 9
#: Terms an item must share with what the whole studio was told to concern everyone: one shared
#: word („Studio“) is chance, two are the same matter.
COMMON_TERMS = 2


def reason_to_tell(player: Player, item: Item, person: str) -> str | None:
    """Why the character would tell ``person`` the item, or None: it changes what the whole studio
    was told (``common``), it touches what ``person`` works on (their role, team and topics, as the
    roster shows them), ``person`` is one of the few the character is close to, or the character
    lived it and it is einschneidend. What one lived one tells the few one is close to; what one
    heard one passes on to whom it concerns. Whom an item names knows their own affairs (``knows``)."""
    terms = _terms(player.code, item.text) - _names(player)
    if len(terms & _common_terms(player)) >= COMMON_TERMS:
        return "everyone"
    subject = _subject_terms(player.code, item.text) - _names(player)
    if subject & _profile_terms(player.code, player.req.profiles.get(person, "")):
        return "concerned"
    if item.source is None and person in player.req.partners[:CLOSE]:
        return "close"
    if item.source is None and item.importance >= EVERYONE_IMPORTANCE:
        return "einschneidend"
    return None


@functools.cache
def _terms(code: str, text: str) -> frozenset[str]:
    return frozenset(analyzer(code).query_terms(text))


_WORD = re.compile(r"[\w-]+")


@functools.cache
def _subject_terms(code: str, text: str) -> frozenset[str]:
    """The terms of what an item is about: in German its nouns (capitalised words), so that a verb
    („fällen“) does not stand for a noun with the same stem („Fall“); elsewhere every term."""
    if code != "de":
        return _terms(code, text)
    return _terms(code, " ".join(w for w in _WORD.findall(text) if w[:1].isupper()))


@functools.cache
def _profile_terms(code: str, profile: str) -> frozenset[str]:
    """A roster line's terms without the words the roster itself adds („Team“, „arbeitet an“)."""
    frame = phrase(code, "roster_team", team="") + " " + phrase(code, "roster_works_on", topics="")
    return _terms(code, profile) - _terms(code, frame)


def _common_terms(player: Player) -> frozenset[str]:
    """What the whole studio was told, without the words of the brief's frame („Creative Director“)."""
    told = frozenset().union(*(_terms(player.code, text) for text in player.req.common))
    return told - _terms(player.code, phrase(player.code, "brief", text=""))


def _names(player: Player) -> frozenset[str]:
    """The terms of everyone's names: a name says whom an item is about, not what."""
    return frozenset().union(*(_terms(player.code, name) for name in player.req.roster.values()))


def line(player: Player, item: Item) -> str:
    """The sentence that passes ``item`` on, attributed to its source; said to one listener (an
    ENCOUNTER) or to several (German: „dir“ or „euch“)."""
    bank = player.lines["news"]
    one = "_one" if len(player.req.listeners) == 1 else ""
    if item.source is None:
        return player.pick(bank["first_hand" + one], {"news": item.text})
    return player.pick(bank["relayed" + one], {"news": item.text, "source": player.name_of(item.source)})


def tell(player: Player) -> str | None:
    """What to say to the scene's listeners; ``None`` when none of them would learn anything."""
    return telling(player)[0]


def telling(player: Player) -> tuple[str | None, set[str]]:
    """What to say to the scene's listeners (``PER_TURN`` items at most) and whom it tells something."""
    found = untold(player, list(player.req.listeners))[:PER_TURN]
    return " ".join(line(player, item) for item, _ in found) or None, {p for _, who in found for p in who}


def news_wishes(player: Player, candidates: list[str]) -> list[tuple[dict[str, Any], str]]:
    """Talk wishes for the items some of ``candidates`` should hear (``PER_TURN`` items at most): one
    or two of them an item, each sought out on their own (a word in passing, an ENCOUNTER), nobody
    twice, each wish with the line announcing it."""
    found: list[tuple[dict[str, Any], str]] = []
    taken: set[str] = set()
    items_wished = 0
    for item, unaware in untold(player, candidates):
        ranked = sorted(p for p in unaware if p not in taken)
        if not ranked:
            continue
        player.rng.shuffle(ranked)
        chosen = ranked[:2]
        taken.update(chosen)
        ctx = {"short": clip(item.text, 50)}
        if item.source is not None:
            ctx["source"] = player.name_of(item.source)
        topic = player.pick(player.lines["news"]["wish_topics"], ctx)
        for person in chosen:
            says = player.pick(player.lines["news"]["wish_says"], {"colleague": player.name_of(person)})
            found.append(({"with": [person], "topic": topic, "tags": ["news"]}, says))
        items_wished += 1
        if items_wished == PER_TURN:
            break
    return found


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
        for text in told_in(player.code, line.says):
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
