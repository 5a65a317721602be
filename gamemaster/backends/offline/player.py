"""One character's turn in one scene: what it knows, and how it fills the phrase banks.

The scene modules (``arrival``, ``work``, ``meeting``, ``reflection``) decide
what a reply says; a ``Player`` gives them the character's interests,
colleagues and citable memories, and fills templates. Every choice comes from
``Player.rng``, seeded from the world seed, the scene, the agent and the turn,
so the same request always gives the same reply. Scene modules therefore draw
from it in a fixed order; reordering two draws changes every later reply.
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any, Callable, Iterable, Sequence

from ...kinds import SECTIONS
from ...lang import join_names, short_name
from ...models import Brief, Memory
from ...sections import sections_for
from ...topics import STOPWORDS, topic_terms
from ..base import ReplyRequest
from .focus import Focus, Interest
from .news import weighed
from .person import first_person
from .phrase_banks import artifact_family, language_code, phrase_bank, template_fields
from .text import PLAIN_TAGS, QUOTE_MARKS, WORD_RE, bare, dedupe, mention, sentence_like, slug, whole


#: A tag as the reply contract asks for them: lower-case ASCII words joined by hyphens.
ENGLISH_TAG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: Between two sentences of a line: what ``said`` compares with what others said in the scene.
SENTENCE_GAP = re.compile(r"(?<=[.!?])\s+")


def derive_seed(seed: int, scene: str, agent: str, turn: int) -> int:
    """A stable 64-bit seed; ``hash()`` is salted per process and would break replay."""
    key = f"{seed}\x1f{scene}\x1f{agent}\x1f{turn}".encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


class Player:
    def __init__(self, request: ReplyRequest):
        self.req = request
        self.agent = request.agent
        self.spec = request.spec
        self.code = language_code(request.language)
        self.lines = phrase_bank(self.code)
        self.grammar = self.lines["grammar"]
        self.rng = random.Random(
            derive_seed(request.seed, request.spec.ref, request.agent.id, request.turn)
        )
        self.me = short_name(self.agent.name) or self.agent.id.capitalize()
        family = artifact_family(self.agent.artifact_kind, self.agent.role)
        self.family = self.lines["families"][family]
        self.stopwords = STOPWORDS | set(self.grammar["function_words"].split())
        self.interests: list[Interest] = []  # terms() consults them while they are read
        self.interests = self._read_interests()
        self.colleagues = {
            cid: short_name(name) or cid.capitalize()
            for cid, name in request.colleagues.items()
            if cid != self.agent.id
        }
        self.people = self._people()
        #: What is worked out once from the request and asked for again and again (``news.py``:
        #: everyone's names, what the studio was told, whose names hold whose).
        self.memo: dict[str, object] = {}
        self.plain_tags = PLAIN_TAGS | self.people | {slug(self.agent.artifact_kind)}

    def scene_rng(self, label: str) -> random.Random:
        """Draws every participant of the scene shares (``label`` names what for), unlike ``rng``."""
        return random.Random(derive_seed(self.req.seed, self.spec.ref, label, 0))

    def play(self, compose: "Callable[[Player], dict[str, Any]]") -> dict[str, Any]:
        """The reply ``compose`` (the kind's composer, ``composers.py``) writes, shaped by the
        scene kind's reply model: what it does not allow is left out."""
        kind = self.spec.kind
        body = compose(self)
        # A note the character already has, word for word, adds nothing but a duplicate.
        known = set(self.req.remembered)
        notes = []
        for note in body.pop("memories", []):
            if note["description"] not in known:
                known.add(note["description"])
                notes.append(note)
        if notes:
            body["memories"] = notes
        for section in SECTIONS:
            if section not in kind.allows:
                body.pop(section, None)
        if not kind.in_sequence:
            taken = weighed(self)
            if taken:
                body["takeaways"] = taken
        for section in sections_for(kind):  # the fields of a section from elsewhere, as it fills them
            body.update(section.offline(self.req))
        return {"agent": self.agent.id, "scene": self.spec.ref, **body}

    def answers_invitations(self) -> bool:
        """Invitations are answered once, in the character's first turn of a scene; so is a
        gathering it accepted looked at again (it may have to decline it now)."""
        asked = self.req.invitations or self.req.engagements
        return bool(asked) and not any(t.speaker == self.agent.id for t in self.req.transcript)

    def rng_for(self, key: str) -> random.Random:
        """A draw of its own for ``key`` (a brief to organise something): the same whatever scene or turn asks,
        and leaving ``rng``'s sequence, so every other part of the reply, as it was."""
        return random.Random(derive_seed(self.req.seed, key, self.agent.id, 0))

    # -- filling templates -------------------------------------------------

    def fill(self, template: str, ctx: dict[str, Any]) -> str:
        text = template.format_map(ctx)
        text = text.replace("….", "…")
        if text[:1].isalpha() and text[:1].islower():
            text = text[0].upper() + text[1:]
        return text

    def usable(self, templates: Sequence[str], ctx: dict[str, Any]) -> list[str]:
        usable = [t for t in templates if template_fields(t) <= ctx.keys()]
        if not usable:
            raise LookupError(f"no template fits the fields {sorted(ctx)}: {templates[0]!r}")
        return usable

    def pick(self, templates: Sequence[str], ctx: dict[str, Any]) -> str:
        return self.fill(self.rng.choice(self.usable(templates, ctx)), ctx)

    def known(self, text: str) -> bool:
        """Does one of the character's newest memories say ``text`` already (word for word, or within it)?"""
        return any(text in remembered for remembered in self.req.remembered)

    def said(self, text: str) -> bool:
        """Has the character said ``text`` before, as far as its own memories keep its lines
        (``news.exchanges``), or has anyone said it in this scene (its transcript): two people at
        one table do not say the same sentence word for word."""
        if any(line.says == text for line in self.req.exchanges if line.speaker == self.agent.id):
            return True
        sentences = [s for s in SENTENCE_GAP.split(text) if len(s) > 20]
        return any(s in turn.says for turn in self.req.transcript for s in sentences)

    def pick_fresh(self, templates: Sequence[str], ctx: dict[str, Any], spoken: bool = False) -> str:
        """``pick``, but a text the character has already written (``spoken``: said, or said by
        someone in this scene) is avoided where another template gives one it has not: a memory
        written again word for word is noise in its stream, and so is a stock line said again to
        the same people. The first draw is ``pick``'s, so the rest of the reply is drawn as before
        unless the text was known."""
        seen = self.said if spoken else self.known
        first = self.pick(templates, ctx)
        if not seen(first):
            return first
        fresh = [text for text in (self.fill(t, ctx) for t in self.usable(templates, ctx)) if not seen(text)]
        return self.rng.choice(fresh) if fresh else first

    def pick_many(self, templates: Sequence[str], ctx: dict[str, Any], count: int) -> list[str]:
        usable = self.usable(templates, ctx)
        chosen = self.rng.sample(usable, min(count, len(usable)))
        return [self.fill(t, ctx) for t in chosen]

    def quote(self, text: str, limit: int = 70) -> str:
        inner = whole(text.strip(), limit).rstrip(".!?;: ")
        return f"{self.grammar['quote_open']}{inner}{self.grammar['quote_close']}"

    def join(self, names: Sequence[str]) -> str:
        return join_names(self.code, list(names))

    def possessive(self, name: str) -> str:
        if name[-1:].lower() in ("s", "ß", "x", "z"):
            return name + self.grammar["possessive_sibilant"]
        return name + self.grammar["possessive"]

    def base_ctx(self, focus: Focus) -> dict[str, Any]:
        ctx: dict[str, Any] = {
            "name": self.me,
            "full_name": self.agent.name,
            "topic": self.display_topic(focus.phrase),
            "tag": self.display_tag(focus.tags),
            "day": self.spec.day,
            "deliverable": self.rng.choice(self.family["deliverables"]),
            "colleagues": self.join(list(self.colleagues.values())) or self.grammar["team"],
        }
        colleague = self.colleague_for(focus.tags)
        if colleague:
            ctx["colleague"] = self.colleagues[colleague]
        if focus.brief:
            ctx["brief"] = focus.brief
        if focus.facts:
            fact = bare(focus.facts[0].description, 110)
            ctx["fact"] = first_person(self.code, fact, self.own_names(), self.others_names()) or fact  # of itself
        return ctx

    def own_names(self) -> list[str]:
        """The names the character goes by: in full, short, and as colleagues call it."""
        return [self.agent.name, short_name(self.agent.name), self.name_of(self.agent.id)]

    def others_names(self) -> list[str]:
        """Everyone else's names, in full and short."""
        return [n for a, name in self.req.roster.items() if a != self.agent.id for n in (name, short_name(name))]

    def display_topic(self, phrase: str) -> str:
        words = phrase.split()
        if words and words[0].lower() in self.grammar["quote_topics_starting_with"].split():
            return self.quote(phrase, 80)
        return phrase

    def display_tag(self, tags: Sequence[str]) -> str:
        content = self.content_tags(tags)
        if content:
            return self.tag_word(content[0])
        if tags:
            return self.tag_word(tags[0])
        return slug(self.agent.artifact_kind) or self.agent.id

    def tag_word(self, tag: str) -> str:
        """How a tag is said: tags are short English keywords, so outside English the noun of the
        topic that carries the tag stands in for it (``bone-towers`` → „Knochentürme“)."""
        if self.code == "en" or not ENGLISH_TAG.match(tag):
            return tag
        topics = [i.topic for i in self.interests if tag in i.tags]
        if self.spec.topic and tag in self.spec.topic_tags:
            topics.append(self.spec.topic)
        for topic in topics:
            nouns = [w for w in WORD_RE.findall(topic) if w[:1].isupper() and len(w) >= 5
                     and w.lower() not in self.stopwords]
            if nouns:
                return max(nouns, key=len)
        return tag

    def note(self, text: str, importance: int, tags: Sequence[str]) -> dict[str, Any]:
        return {"type": "observation", "description": text, "importance": importance, "tags": list(tags[:5])}

    # -- what the character knows -----------------------------------------

    def _read_interests(self) -> list[Interest]:
        interests = []
        for item in self.agent.interests:
            if item.topic.strip():
                clean_tags = [t.strip().lower() for t in item.tags if t.strip()]
                interests.append(Interest(item.topic.strip(), clean_tags or self.terms(item.topic)[:3]))
        return interests

    def _people(self) -> set[str]:
        """Ids of everyone the character knows of; such tags name a person, not a subject."""
        people = set(self.req.colleagues) | {self.agent.id}
        people |= {name.lower() for name in self.colleagues.values()}
        people |= {turn.speaker for turn in self.req.transcript}
        for memory in list(self.req.memories) + list(self.req.since):
            author = memory.metadata.get("author")
            if isinstance(author, str):
                people.add(author)
            partners = memory.metadata.get("with")
            if isinstance(partners, list):
                people.update(p for p in partners if isinstance(p, str))
        return people

    def content_tags(self, tags: Iterable[str]) -> list[str]:
        return [t for t in tags if t not in self.plain_tags]

    def name_of(self, agent_id: str) -> str:
        if agent_id == self.agent.id:
            return self.me
        if agent_id in self.colleagues:
            return self.colleagues[agent_id]
        if agent_id in self.req.roster:  # someone not in the room: by the name colleagues use
            return short_name(self.req.roster[agent_id]) or agent_id.capitalize()
        for turn in self.req.transcript:
            if turn.speaker == agent_id:
                return short_name(turn.name) or agent_id.capitalize()
        return agent_id.capitalize()

    def author_of(self, memory: Memory) -> str | None:
        """The colleague a memory is about, if it names one."""
        author = memory.metadata.get("author")
        if isinstance(author, str) and author and author != self.agent.id:
            return author
        for tag in memory.tags:
            if tag in self.colleagues:
                return tag
        lowered = memory.description.lower()
        for cid, name in self.colleagues.items():
            # The substring first: a hundred colleagues' patterns for every memory were a fifth of a day.
            if name and name.lower() in lowered and re.search(rf"\b{re.escape(name.lower())}\b", lowered):
                return cid
        return None

    def terms(self, text: str) -> list[str]:
        """Tag-like keywords for a piece of prose; nouns first where the language capitalises them."""
        words = WORD_RE.findall(text or "")
        candidates = [
            w for w in words
            if len(w) >= 4 and w.lower() not in self.stopwords and not w.isdigit()
        ]
        capitalised = [w for w in candidates if w[:1].isupper()]
        ordered = capitalised + [w for w in candidates if w not in capitalised]
        from_interests = [
            tag for interest in self.interests for tag in interest.tags if mention(text or "", tag)
        ]
        return dedupe(from_interests + [slug(w) for w in ordered], 4)

    def interest_for(self, tags: Sequence[str], text: str = "") -> Interest | None:
        """The interest that best matches some tags or text; ``None`` when nothing overlaps."""
        wanted = {t.lower() for t in tags}
        lowered = text.lower()
        best, best_score = None, 0.0
        for interest in self.interests:
            score = len(wanted & set(interest.tags)) * 2
            score += sum(1 for term in topic_terms(interest.topic) if term in lowered)
            if interest.topic.lower() in lowered:
                score += 3
            if score > best_score:
                best, best_score = interest, score
        return best

    def as_topic(self, text: str) -> str:
        return self.quote(text, 60) if sentence_like(text) else text.strip()

    def facts(self, tags: Sequence[str], count: int, phrase: str = "") -> list[Memory]:
        """Memories worth quoting on these tags: on-topic, important and recent first."""
        phrase = phrase.lower()
        memories = [m for m in self.req.memories if m.description.strip()]
        if not memories or count <= 0:
            return []
        wanted = set(tags)
        total = len(memories)

        def score(item: tuple[int, Memory]) -> float:
            index, memory = item
            value = 3 * len(wanted & set(memory.tags)) + memory.importance * 0.5
            value += 2 * (index + 1) / total
            # Plans and reflections are the character's own conclusions, and
            # notices ("X and Y had a meeting") carry no content worth citing.
            if memory.type in ("plan", "reflection"):
                value -= 3
            if memory.type == "artifact":
                value -= 2
            if memory.importance <= 2 or memory.metadata.get("source") == "meeting":
                value -= 4
            if any(mark in memory.description for mark in QUOTE_MARKS):
                value -= 1
            if phrase and phrase in memory.description.lower():
                value -= 1.5  # says no more than the topic itself
            if self.author_of(memory):
                value += 1
            return value + self.rng.random() * 0.5

        ranked = sorted(enumerate(memories), key=score, reverse=True)
        return [memory for _, memory in ranked[:count]]

    def colleague_for(self, tags: Sequence[str]) -> str | None:
        ranked = self.colleagues_by_affinity(tags)
        return ranked[0] if ranked else None

    def shared_work(self, tags: Sequence[str]) -> dict[str, int]:
        """Per present colleague: how many of ``tags`` the work one remembers of them shares."""
        wanted = set(tags)
        shared = {cid: 0 for cid in self.colleagues}
        for memory in list(self.req.memories) + list(self.req.since):
            author = self.author_of(memory)
            if author in shared:
                shared[author] += len(wanted & set(memory.tags))
        return shared

    def colleagues_by_affinity(self, tags: Sequence[str]) -> list[str]:
        """Present colleagues, those whose remembered work shares the tags first."""
        wanted = set(tags)
        shared = {cid: 0.0 for cid in self.colleagues}
        for memory in list(self.req.memories) + list(self.req.since):
            author = self.author_of(memory)
            if author in shared:
                shared[author] += len(wanted & set(memory.tags)) + 0.2
        jitter = {cid: self.rng.random() for cid in sorted(shared)}
        return sorted(shared, key=lambda cid: (-shared[cid], jitter[cid]))

    def scene_briefs(self) -> list[Brief]:
        return [b for b in self.req.briefs if b.id in self.spec.brief_ids]

    def since_highlight(self) -> Memory | None:
        """The newest, most important thing that reached the character since their last scene."""
        relevant = [m for m in self.req.since if m.metadata.get("source") in ("brief", "artifact")]
        if not relevant:
            return None
        return max(enumerate(relevant), key=lambda item: (item[1].importance, item[0]))[1]

