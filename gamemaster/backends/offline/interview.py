"""The offline player in an interview: answers the question asked, from the character's own state.

What the question asks for decides what the answer is made of: who the character is (name,
role, studio, what it is working on), its plans (today's plan, whom it wants to talk to about
what), the colleagues it talks with, or what it knows about a matter — the memories recall found
for the question, and where one keeps what someone said about it, that line, with the speaker.
It invents nothing: every sentence comes from the agent file or a recalled memory, and the ids of
the memories it rests on go into the answer's ``memories``. Of two versions of one matter it
gives the one that holds (``updates.py``: the correction, not the rumour).
"""

from __future__ import annotations

import random
import re

from ...lang import join_names
from ...models import Memory
from ...retrieval.heard import cut
from ...updates import stale
from ..base import InterviewRequest
from .told import told_in

LINES = {
    "de": {
        "opening": ["Da fällt mir einiges ein.", "Lass mich nachdenken.", "Ja, daran erinnere ich mich."],
        "first": "{text}",
        "more": ["Außerdem: {text}", "Und dann noch: {text}", "Dazu passt: {text}"],
        "reflection": "Für mich heißt das: {text}",
        "nothing": "Dazu fällt mir ehrlich gesagt nichts ein – davon weiß ich nichts.",
        "self": "Ich bin {name}, {role}{at}.",
        "at": " bei {studio}",
        "interests": "Am meisten beschäftigt mich gerade: {topics}.",
        "plan": "Heute habe ich mir vorgenommen: {plan}",
        "no_plan": "Einen festen Plan für heute habe ich noch nicht.",
        "wish": "Mit {people} will ich über „{topic}“ sprechen.",
        "partners": "Am meisten zu tun habe ich mit {people}.",
        "no_partners": "Richtig lange gesprochen habe ich hier noch mit niemandem.",
        "and": "und",
        "told": "{name} hat erzählt: „{says}“",
    },
    "en": {
        "opening": ["A few things come to mind.", "Let me think.", "Yes, I remember that."],
        "first": "{text}",
        "more": ["Also: {text}", "And then: {text}", "Related to that: {text}"],
        "reflection": "What I take from it: {text}",
        "nothing": "Honestly, nothing comes to mind about that; I don't know.",
        "self": "I am {name}, {role}{at}.",
        "at": " at {studio}",
        "interests": "What occupies me most right now: {topics}.",
        "plan": "Today I mean to: {plan}",
        "no_plan": "I have no fixed plan for today yet.",
        "wish": "I want to talk with {people} about “{topic}”.",
        "partners": "I work most with {people}.",
        "no_partners": "I have not had a real conversation with anyone here yet.",
        "and": "and",
        "told": "{name} told me: “{says}”",
    },
}
#: What a question asks about: patterns on the lower-cased question, each with the one asked as
#: its subject („was hast du … vor“, not „hast du Angst vor …“). Every language's are tried: a
#: question in English gets its answer in a German studio too.
ASKS = {
    "self": (r"\bstelle? dich\b.*\bvor\b", r"\bwer bist du\b", r"\berzähl\w* (mal |uns |mir )?(etwas |was )?von dir\b",
             r"\bdeine rolle\b", r"\bwas machst du\b(?! mit)", r"\bintroduce yourself\b", r"\bwho are you\b",
             r"\babout yourself\b", r"\byour role\b", r"\bwhat do you do\b(?! with)"),
    "plans": (r"\bwas (hast|habt) (du|ihr)\b[^?]*\bvor\b", r"\bwas (du|ihr)\b[^?]*\bvor(hast|habt)\b",
              r"\bwelche pläne\b", r"\bdeine?n? pl(an|äne)\b", r"\bwas planst du\b", r"\bdir\b[^?]*\bvorgenommen\b",
              r"\byour plans?\b", r"\bwhat are you (planning|going to do|up to)\b"),
    "partners": (r"\bmit wem (arbeitest|sprichst|redest|verstehst) du\b", r"\bwen (magst|schätzt) du\b",
                 r"\bdeine?n? kolleg", r"\bwho do you (like|work with|get along with)\b", r"\bwhom do you\b",
                 r"\byour colleagues\b"),
}
MOST = 3


def answer(request: InterviewRequest) -> dict:
    code = (request.language or "de").split("-")[0]
    lines = LINES.get(code, LINES["en"])
    asked = _asks(request.question)
    parts: list[str] = []
    if "self" in asked:
        parts += _introduction(request, lines)
    if "plans" in asked:
        parts += _plans(request, lines)
    if "partners" in asked:
        parts.append(_partners(request, lines))
    if parts:
        return {"answer": " ".join(parts), "memories": []}
    return _matter(request, lines, code)


def _asks(question: str) -> list[str]:
    lower = " ".join(question.lower().split())
    return [kind for kind, patterns in ASKS.items() if any(re.search(p, lower) for p in patterns)]


def _introduction(request: InterviewRequest, lines: dict) -> list[str]:
    agent = request.agent
    at = lines["at"].format(studio=request.studio) if request.studio else ""
    found = [lines["self"].format(name=agent.name, role=agent.role, at=at)]
    topics = [interest.topic for interest in agent.interests[:3]]
    if topics:
        found.append(lines["interests"].format(topics=join_names(request.language, topics)))
    return found


def _plans(request: InterviewRequest, lines: dict) -> list[str]:
    agent = request.agent
    found = [lines["plan"].format(plan=_sentence_text(agent.today_plan.text)) if agent.today_plan else lines["no_plan"]]
    for wish in agent.talk_wishes[:2]:
        people = [request.names.get(p, p) for p in wish.with_]
        found.append(lines["wish"].format(people=join_names(request.language, people), topic=wish.topic))
    return found


def _partners(request: InterviewRequest, lines: dict) -> str:
    names = [request.names.get(p, p) for p in request.partners[:3]]
    return lines["partners"].format(people=join_names(request.language, names)) if names else lines["no_partners"]


def _shared(question: str):
    asked = set(re.findall(r"\w+", question.lower()))
    return lambda text: len(asked & set(re.findall(r"\w+", text.lower())))


def _versions(request: InterviewRequest, memory: Memory, code: str) -> list[tuple[str | None, str]]:
    """What ``memory`` holds that an answer may say: each news item a kept line passed on (or the
    line itself where it passed none on), with its speaker; else the memory's own description."""
    heard = request.heard.get(memory.id)
    if not heard:
        return [(None, _sentence(memory))]
    return [(name, item) for name, says in heard for item in (told_in(code, says) or [cut(says)])]


def _matter(request: InterviewRequest, lines: dict, code: str) -> dict:
    """What the character recalls about the matter asked: the best matches, each as the news item
    someone passed on about it (with the speaker; of a memory's lines the one that shares most words
    with the question) where the memory keeps one, else as the memory itself. Where a later
    version replaces a memory's best match (``updates.py``), the answer gives that version in its
    place: what holds."""
    rng = random.Random(f"{request.seed}:{request.agent.id}:{request.question}")
    by_id = {m.id: m for m in request.memories}
    found = [by_id[i] for i in request.relevant if i in by_id]
    versions = [(position, version) for position, m in enumerate(found) for version in _versions(request, m, code)]
    versions.sort(key=lambda v: (found[v[0]].scene_key or (0, 0), v[0]))
    replaced = stale(code, [text for _, (_, text) in versions])
    shared = _shared(request.question)
    best: dict[int, tuple[int, tuple[str | None, str]]] = {}  # position -> (index, version)
    for index, (position, version) in enumerate(versions):
        if position not in best or shared(version[1]) > shared(best[position][1][1]):
            best[position] = (index, version)
    chosen: list[tuple[Memory, tuple[str | None, str]]] = []
    for position in range(len(found)):
        index, version = best[position]
        if index in replaced:  # in its place the version that holds, from the memory that keeps it
            position, version = versions[replaced[index]]
        if len(chosen) < MOST and all(found[position] is not m for m, _ in chosen):
            chosen.append((found[position], version))
    if not chosen:
        return {"answer": lines["nothing"], "memories": []}
    parts = [rng.choice(lines["opening"])]
    for position, (memory, (name, text)) in enumerate(chosen):
        text = lines["told"].format(name=name, says=text) if name else text
        if memory.type == "reflection":
            parts.append(lines["reflection"].format(text=text))
        elif position == 0:
            parts.append(lines["first"].format(text=text))
        else:
            parts.append(rng.choice(lines["more"]).format(text=text))
    return {"answer": " ".join(parts), "memories": [m.id for m, _ in chosen]}


def _sentence(memory: Memory) -> str:
    return _sentence_text(memory.description)


def _sentence_text(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if text.endswith((".", "!", "?", "…", "“", "\"", "”")) else text + "."
