"""The offline player: plays a character without a language model.

It reads the structured half of a ``ReplyRequest`` (agent, memories, what
arrived since the last scene, colleagues, the meeting transcript), never the
prose prompt, and assembles a reply from the phrase banks in
``offline_lines``. The same request always gives the same text: every choice
comes from one ``random.Random`` seeded from the world seed, the scene, the
agent and the turn.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import string
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ..lang import join_names, short_name
from ..models import Brief, Memory
from ..scenes import STOPWORDS, SceneType, topic_terms
from .base import ReplyRequest, Turn
from .offline_lines import LINES

DEFAULT_LANGUAGE = "en"

#: Which phrase bank an artifact kind (or, failing that, a role) draws on.
#: Checked in order: "technical artist" must land on technical before "art"
#: sends it to concept, "narrative designer" on narrative before design.
FAMILY_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("qa", ("qa", "quality", "qualität", "test", "bug", "community")),
    ("technical", ("tech", "shader", "pipeline", "engine", "tool")),
    ("narrative", ("narrat", "story", "writer", "script", "dialog", "quest", "erzähl", "autor")),
    ("lore", ("lore", "world", "welt", "chronic", "chronik")),
    ("concept", ("concept", "konzept", "art", "image", "illustr", "environment")),
    ("production", ("produc", "produz", "produktion", "schedule", "roadmap", "project", "projekt", "manag")),
    ("design", ("design", "director", "mechanic", "gdd", "regel")),
)
FAMILIES = tuple(name for name, _ in FAMILY_KEYWORDS) + ("notes",)

# Tags that describe bookkeeping rather than content; useless as a topic.
_PLAIN_TAGS = frozenset({
    "own-work", "brief", "artifact", "meeting", "reflection", "plan", "conversation",
    "kickoff", "creative-director",
})
_QUOTE_MARKS = "„“”\"»«"

_FORMATTER = string.Formatter()
_WORD_RE = re.compile(r"\w[\w-]*")


def derive_seed(seed: int, scene: str, agent: str, turn: int) -> int:
    """A stable 64-bit seed; ``hash()`` is salted per process and would break replay."""
    key = f"{seed}\x1f{scene}\x1f{agent}\x1f{turn}".encode("utf-8")
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big")


def language_code(language: str | None) -> str:
    """``de-DE`` → ``de``; a language without phrase banks plays in English."""
    code = (language or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LINES else DEFAULT_LANGUAGE


def language_lines(language: str | None) -> dict:
    return LINES[language_code(language)]


def artifact_family(kind: str, role: str = "") -> str:
    """The phrase-bank family for an artifact kind; the role decides when the kind says nothing."""
    for text in (kind if kind != "notes" else "", role):
        lowered = (text or "").lower()
        for family, keywords in FAMILY_KEYWORDS:
            if any(word in lowered for word in keywords):
                return family
    return "notes"


def template_fields(template: str) -> set[str]:
    return {name for _, name, _, _ in _FORMATTER.parse(template) if name}


class OfflineBackend:
    """Plays every character from the phrase banks; needs no network and no key."""

    name = "offline"
    retries = 0

    def reply(self, request: ReplyRequest) -> str:
        return json.dumps(play(request), ensure_ascii=False)

    def interview(self, request) -> str:
        from .offline_interview import answer

        return json.dumps(answer(request), ensure_ascii=False)


def play(request: ReplyRequest) -> dict[str, Any]:
    """The reply for ``request`` as a plain dict (what ``OfflineBackend.reply`` serialises)."""
    return _Player(request).play()


@dataclass
class _Interest:
    topic: str
    tags: list[str]


@dataclass
class _Focus:
    """What the character works on or talks about in this scene."""

    phrase: str
    tags: list[str]
    brief: str | None = None
    facts: list[Memory] = field(default_factory=list)


def _dedupe(items: Iterable[str], limit: int | None = None) -> list[str]:
    seen: list[str] = []
    for item in items:
        item = (item or "").strip()
        if item and item not in seen:
            seen.append(item)
    return seen[:limit] if limit is not None else seen


def _slug(word: str) -> str:
    return re.sub(r"[^\w-]+", "-", word.strip().lower()).strip("-")


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return match.group(1) if match else text


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:–-") + "…"


def _bare(text: str, limit: int) -> str:
    """A remembered sentence ready to be embedded: first sentence, clipped, no final stop.

    Quotation marks go: the excerpt is usually quoted again, and quotes inside
    quotes pile up when characters cite each other's remarks day after day.
    """
    plain = "".join(ch for ch in text if ch not in _QUOTE_MARKS)
    return _clip(_first_sentence(plain), limit).rstrip(".!?;: ")


def _mention(text: str, tag: str) -> str | None:
    """How ``text`` spells ``tag`` (as a whole word, hyphens optional), if it does."""
    for form in (tag, tag.replace("-", " ")):
        if form.strip():
            # Whole words only: "Design" inside "Design-Dokument" is not the tag "design".
            match = re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text, re.IGNORECASE)
            if match:
                return match.group(0)
    return None


def _sentence_like(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and (stripped[-1] in ".!?" or len(_WORD_RE.findall(stripped)) > 9)


class _Player:
    def __init__(self, request: ReplyRequest):
        self.req = request
        self.agent = request.agent
        self.spec = request.spec
        self.code = language_code(request.language)
        self.lines = LINES[self.code]
        self.grammar = self.lines["grammar"]
        self.rng = random.Random(
            derive_seed(request.seed, request.spec.ref, request.agent.id, request.turn)
        )
        self.me = short_name(self.agent.name) or self.agent.id.capitalize()
        family = artifact_family(self.agent.artifact_kind, self.agent.role)
        self.family = self.lines["families"][family]
        self.stopwords = STOPWORDS | set(self.grammar["function_words"].split())
        self.interests: list[_Interest] = []  # terms() consults them while they are read
        self.interests = self._read_interests()
        self.colleagues = {
            cid: short_name(name) or cid.capitalize()
            for cid, name in request.colleagues.items()
            if cid != self.agent.id
        }
        self.people = self._people()
        self.plain_tags = _PLAIN_TAGS | self.people | {_slug(self.agent.artifact_kind)}

    # -- entry -------------------------------------------------------------

    def play(self) -> dict[str, Any]:
        body = self.spec.kind.play_offline(self)
        return {"agent": self.agent.id, "scene": self.spec.ref, **body}

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

    def pick_many(self, templates: Sequence[str], ctx: dict[str, Any], count: int) -> list[str]:
        usable = self.usable(templates, ctx)
        chosen = self.rng.sample(usable, min(count, len(usable)))
        return [self.fill(t, ctx) for t in chosen]

    def quote(self, text: str, limit: int = 70) -> str:
        inner = _clip(text.strip(), limit).rstrip(".!?;: ")
        return f"{self.grammar['quote_open']}{inner}{self.grammar['quote_close']}"

    def join(self, names: Sequence[str]) -> str:
        return join_names(self.code, list(names))

    def possessive(self, name: str) -> str:
        if name[-1:].lower() in ("s", "ß", "x", "z"):
            return name + self.grammar["possessive_sibilant"]
        return name + self.grammar["possessive"]

    def base_ctx(self, focus: _Focus) -> dict[str, Any]:
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
            ctx["fact"] = _bare(focus.facts[0].description, 110)
        return ctx

    def display_topic(self, phrase: str) -> str:
        words = phrase.split()
        if words and words[0].lower() in self.grammar["quote_topics_starting_with"].split():
            return self.quote(phrase, 80)
        return phrase

    def display_tag(self, tags: Sequence[str]) -> str:
        content = self.content_tags(tags)
        if content:
            return content[0]
        if tags:
            return tags[0]
        return _slug(self.agent.artifact_kind) or self.agent.id

    # -- what the character knows -----------------------------------------

    def _read_interests(self) -> list[_Interest]:
        raw = getattr(self.agent, "interests", None) or []
        interests = []
        for item in raw if isinstance(raw, list) else []:
            topic = item.get("topic") if isinstance(item, dict) else getattr(item, "topic", None)
            tags = item.get("tags") if isinstance(item, dict) else getattr(item, "tags", None)
            if isinstance(topic, str) and topic.strip():
                clean_tags = [str(t).strip().lower() for t in (tags or []) if str(t).strip()]
                interests.append(_Interest(topic.strip(), clean_tags or self.terms(topic)[:3]))
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
            if name and re.search(rf"\b{re.escape(name.lower())}\b", lowered):
                return cid
        return None

    def terms(self, text: str) -> list[str]:
        """Tag-like keywords for a piece of prose; nouns first where the language capitalises them."""
        words = _WORD_RE.findall(text or "")
        candidates = [
            w for w in words
            if len(w) >= 4 and w.lower() not in self.stopwords and not w.isdigit()
        ]
        capitalised = [w for w in candidates if w[:1].isupper()]
        ordered = capitalised + [w for w in candidates if w not in capitalised]
        from_interests = [
            tag for interest in self.interests for tag in interest.tags if _mention(text or "", tag)
        ]
        return _dedupe(from_interests + [_slug(w) for w in ordered], 4)

    def interest_for(self, tags: Sequence[str], text: str = "") -> _Interest | None:
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
        return self.quote(text, 60) if _sentence_like(text) else text.strip()

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
            if any(mark in memory.description for mark in _QUOTE_MARKS):
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

    def unseen_brief_text(self) -> str | None:
        if self.req.briefs:  # already only the briefs that reach this agent now
            return self.req.briefs[0].text
        for memory in reversed(self.req.since):
            if memory.metadata.get("source") == "brief":
                quoted = re.search(r"[„“\"»]([^„“”\"»«]{10,})[“”\"«]", memory.description)
                return quoted.group(1) if quoted else memory.description
        return None

    # -- choosing a focus --------------------------------------------------

    def known_topics(self) -> list[tuple[str, list[str]]]:
        """Topic phrases the character has met: own interests, then recent meeting topics."""
        topics = [(i.topic, list(i.tags)) for i in self.interests]
        for memory in reversed(self.req.memories):
            topic = memory.metadata.get("topic")
            if isinstance(topic, str) and topic.strip() and memory.type == "conversation":
                topics.append((topic.strip(), self.content_tags(memory.tags)))
        return topics

    def topic_for(self, tags: Sequence[str], text: str = "") -> tuple[str, list[str]] | None:
        """The best known topic phrase for some tags or text, ``None`` when nothing fits."""
        interest = self.interest_for(tags, text)
        if interest:
            return interest.topic, list(interest.tags)
        wanted = set(self.content_tags(tags))
        best, best_score = None, 0
        for topic, topic_tags in self.known_topics():
            score = len(wanted & set(topic_tags))
            if score > best_score:
                best, best_score = (topic, topic_tags), score
        return best

    def weighted_interest(self, tags: Iterable[str] = ()) -> _Interest:
        wanted = set(tags)
        weights = [1 + 2 * len(wanted & set(i.tags)) for i in self.interests]
        return self.rng.choices(self.interests, weights=weights)[0]

    def plan_focus(self) -> _Focus | None:
        plan = self.agent.today_plan
        if plan is None:
            return None
        tags = [t.lower() for t in plan.tags]
        lowered = plan.text.lower()
        for topic, topic_tags in self.known_topics():
            if topic.lower() in lowered:
                return _Focus(topic, _dedupe(tags or topic_tags, 5))
        if not _sentence_like(plan.text):
            return _Focus(plan.text.strip(), tags or self.terms(plan.text))
        found = self.topic_for(tags, plan.text)
        if found:
            return _Focus(found[0], _dedupe(tags + found[1], 5))
        if self.interests:
            interest = self.weighted_interest(tags)
            return _Focus(interest.topic, _dedupe(tags[:2] + interest.tags, 5))
        if self.content_tags(tags):
            return _Focus(self.display_tag(tags), tags)
        return None

    def own_focus(self) -> _Focus:
        """A topic from the character's interests or recent memories (ARRIVAL, idle WORK)."""
        recent = [m for m in self.req.memories[-8:] if self.content_tags(m.tags) and m.importance >= 3]
        recent_tags = {t for m in recent for t in m.tags}
        use_memory = bool(recent) and (not self.interests or self.rng.random() < 0.35)
        if self.interests and not use_memory:
            interest = self.weighted_interest(recent_tags)
            return _Focus(interest.topic, _dedupe(interest.tags, 5))
        if recent:
            memory = self.rng.choice(recent[-4:])
            tags = self.content_tags(memory.tags)
            found = self.topic_for(tags)
            if found:
                return _Focus(found[0], _dedupe(tags + found[1], 5))
            if self.interests:
                interest = self.weighted_interest(tags)
                return _Focus(interest.topic, _dedupe(interest.tags + tags[:1], 5))
            return _Focus(self.display_tag(tags), _dedupe(tags, 5))
        phrase = self.rng.choice(self.lines["fallback_topics"])
        return _Focus(phrase, self.terms(phrase)[:2] or [_slug(self.agent.artifact_kind)])

    def brief_focus(self, brief_text: str, base: _Focus | None) -> _Focus:
        """A CD brief as the reason, with the character's own closest topic as the handle."""
        brief_tags = self.terms(brief_text)
        interest = self.interest_for(brief_tags, brief_text)
        if interest:
            focus = _Focus(interest.topic, _dedupe(brief_tags[:2] + interest.tags, 5))
        elif base is not None:
            focus = _Focus(base.phrase, _dedupe(brief_tags[:2] + base.tags, 5))
        else:
            return _Focus(self.as_topic(brief_text), brief_tags or [_slug(self.agent.artifact_kind)])
        focus.brief = self.quote(brief_text, 80)
        return focus

    def scene_focus(self) -> _Focus:
        """WORK and MEETING: the scene's topic if it has one, else today's plan."""
        spec = self.spec
        if spec.topic:
            briefs = self.scene_briefs()
            if spec.brief_ids or briefs:
                text = briefs[0].text if briefs else spec.topic
                focus = self.brief_focus(text, self.plan_focus())
                if spec.topic_tags:
                    focus.tags = _dedupe(list(spec.topic_tags) + focus.tags, 5)
                return focus
            terms = self.terms(spec.topic)
            interest = None if spec.topic_tags else self.interest_for(terms, spec.topic)
            tags = list(spec.topic_tags) or (interest.tags if interest else []) + terms
            return _Focus(self.as_topic(spec.topic), _dedupe(tags, 5) or [_slug(self.agent.artifact_kind)])
        return self.plan_focus() or self.own_focus()

    # -- ARRIVAL -----------------------------------------------------------

    def arrival(self) -> dict[str, Any]:
        lines = self.lines["arrival"]
        focus = self.own_focus()
        brief_text = self.unseen_brief_text()
        if brief_text:
            focus = self.brief_focus(brief_text, focus)
        focus.facts = self.facts(focus.tags, 1, focus.phrase)
        ctx = self.base_ctx(focus)
        ctx["way"] = self.rng.choice(lines["ways"])
        ctx["mood"] = self.rng.choice(lines["moods"])

        action = self.pick(lines["actions"], ctx)
        greeting_bank = lines["greetings_named"] if "colleague" in ctx and self.rng.random() < 0.4 else lines["greetings"]
        says = [self.pick(greeting_bank, ctx)]
        says.append(self.pick(lines["plan_says_brief"] if "brief" in ctx else lines["plan_says"], ctx))
        plan_text = self.pick(lines["plan_texts_brief"] if "brief" in ctx else lines["plan_texts"], ctx)
        importance = self.rng.randint(5, 6) if "brief" in ctx else self.rng.randint(3, 5)
        plan = {"text": plan_text, "tags": focus.tags[:5], "importance": importance}

        reply: dict[str, Any] = {"action": action}
        wishes = []
        if self.colleagues and self.rng.random() < 0.6:
            wish = self.talk_wish(focus, lines)
            wishes.append(wish)
            wish_ctx = dict(ctx, colleague=self.colleagues[wish["with"][0]], wish=self.display_topic(wish["topic"]))
            says.append(self.pick(lines["wish_says"], wish_ctx))
        reply["says"] = " ".join(says)
        reply["plan"] = plan
        if self.rng.random() < 0.5:
            reply["memories"] = [self.note(self.pick(lines["memories"], ctx), self.rng.randint(2, 4), focus.tags)]
        if wishes:
            reply["talk_wishes"] = wishes
        return reply

    def talk_wish(self, focus: _Focus, lines: dict) -> dict[str, Any]:
        # Two topics in one wish only while the pair stays short enough to be a meeting title.
        others = [i for i in self.interests if i.topic != focus.phrase and len(i.topic) + len(focus.phrase) <= 60]
        ctx = {"topic": focus.phrase}
        tags = list(focus.tags[:3])
        if others and self.rng.random() < 0.4:
            other = self.rng.choice(others)
            ctx["other_topic"] = other.topic
            tags = _dedupe(tags + other.tags[:2], 5)
        topic = self.pick(lines["wish_topics"], ctx)
        ranked = self.colleagues_by_affinity(tags)
        count = 2 if len(ranked) >= 2 and self.rng.random() < 0.35 else 1
        return {"with": ranked[:count], "topic": topic, "tags": tags}

    # -- WORK --------------------------------------------------------------

    def work(self) -> dict[str, Any]:
        lines = self.lines["work"]
        focus = self.scene_focus()
        since = self.since_highlight() if self.req.replan else None
        if since is not None:
            focus.tags = _dedupe(focus.tags[:3] + self.content_tags(since.tags)[:2], 5)
        focus.facts = self.facts(focus.tags, 2, focus.phrase)
        ctx = self.base_ctx(focus)

        bank = lines["actions_brief"] if "brief" in ctx and self.rng.random() < 0.7 else lines["actions"]
        reply: dict[str, Any] = {"action": self.pick(bank, ctx), "says": ""}
        if self.rng.random() < 0.4:
            reply["says"] = self.pick(lines["says"], ctx)

        memory_count = 1 if self.rng.random() < 0.5 else 2
        notes = []
        for index, text in enumerate(self.pick_many(lines["memories"], self.with_second_fact(ctx, focus), memory_count)):
            importance = min(7, self.rng.randint(3, 6) + (1 if "brief" in ctx or (index == 0 and focus.facts) else 0))
            notes.append(self.note(text, importance, focus.tags))
        reply["memories"] = notes

        if self.req.replan:
            reply["plan"] = self.replan(focus, since, ctx)
        if self.spec.brief_ids or self.rng.random() < 0.8:
            reply["artifacts"] = [self.artifact(focus, ctx)]
        return reply

    def with_second_fact(self, ctx: dict[str, Any], focus: _Focus) -> dict[str, Any]:
        if len(focus.facts) > 1 and self.rng.random() < 0.5:
            return dict(ctx, fact=_bare(focus.facts[1].description, 110))
        return ctx

    def since_highlight(self) -> Memory | None:
        """The newest, most important thing that reached the character since their last scene."""
        relevant = [m for m in self.req.since if m.metadata.get("source") in ("brief", "artifact")]
        if not relevant:
            return None
        return max(enumerate(relevant), key=lambda item: (item[1].importance, item[0]))[1]

    def replan(self, focus: _Focus, since: Memory | None, ctx: dict[str, Any]) -> dict[str, Any]:
        lines = self.lines["work"]
        plan_ctx = dict(ctx)
        importance = self.rng.randint(4, 6)
        if since is not None:
            source = since.metadata.get("source")
            if source == "brief":
                plan_ctx["source"] = lines["source_brief"]
                importance = self.rng.randint(6, 7)
            elif source == "artifact":
                author = since.metadata.get("author")
                owner = self.possessive(self.name_of(author)) if isinstance(author, str) else self.me
                plan_ctx["source"] = lines["source_artifact"].format(owner=owner)
            else:
                plan_ctx["source"] = lines["source_other"]
            plan_ctx["since_fact"] = _bare(since.description, 90)
        elif self.req.briefs:
            plan_ctx["source"] = lines["source_brief"]
        else:
            plan_ctx["source"] = lines["source_other"]
        return {"text": self.pick(lines["replan_texts"], plan_ctx), "tags": focus.tags[:5], "importance": importance}

    # -- artifacts ---------------------------------------------------------

    def artifact(self, focus: _Focus, ctx: dict[str, Any]) -> dict[str, Any]:
        family = self.family
        title = _clip(self.pick(family["titles"], ctx), 80)
        content = self.artifact_content(title, focus, ctx)
        summary_ctx = dict(ctx, quality=self.rng.choice(family["qualities"]))
        summary = self.pick(family["summaries"], summary_ctx)
        importance = self.rng.randint(5, 7) + (1 if focus.brief or len(focus.facts) > 1 else 0)
        tags = _dedupe(focus.tags[:4] + [_slug(self.agent.artifact_kind)], 6)
        return {
            "title": title,
            "kind": self.agent.artifact_kind,
            "content": content,
            "summary": summary,
            "importance": min(8, importance),
            "tags": tags,
        }

    def artifact_content(self, title: str, focus: _Focus, ctx: dict[str, Any]) -> str:
        family = self.family
        art = self.lines["artifact"]
        names = list(self.colleagues.values())
        if not names:
            names = _dedupe(self.name_of(a) for a in (self.author_of(m) for m in focus.facts) if a)
        team_ctx = dict(ctx, colleagues=self.join(names) or self.grammar["team"])

        blocks: dict[str, list[str]] = {}
        overview = [self.pick(family["overviews"], ctx)]
        if focus.brief:
            overview.append(self.fill(art["brief_line"], ctx))
        blocks["overview"] = overview
        if focus.facts:
            blocks["facts"] = [
                self.fill(art["fact_line"], {"fact": _bare(m.description, 160), "id": m.id})
                for m in focus.facts
            ]
        else:
            blocks["facts"] = [art["no_facts"]]
        blocks["points"] = ["- " + p for p in self.pick_many(family["points"], ctx, self.rng.randint(3, 4))]
        blocks["open"] = ["- " + q for q in self.pick_many(art["open_questions"], ctx, 2)]
        blocks["extra"] = self.extra_block(family["extra"], ctx)

        out = [f"# {title}", "", self.fill(art["byline"], {"label": family["label"], "author": self.agent.name, "day": self.spec.day}), ""]
        for heading, key in family["sections"]:
            out += [f"## {heading}", *blocks[key], ""]
        out.append(self.pick(art["team_lines"], team_ctx))
        return "\n".join(out) + "\n"

    def extra_block(self, extra: dict, ctx: dict[str, Any]) -> list[str]:
        style = extra["style"]
        if style == "scene":
            speaker_a, speaker_b = self.rng.choice(extra["speakers"])
            return [
                self.rng.choice(extra["settings"]),
                "",
                f"**{speaker_a}:** {self.rng.choice(extra['lines_a'])}",
                f"**{speaker_b}:** {self.rng.choice(extra['lines_b'])}",
                f"**{speaker_a}:** {self.rng.choice(extra['lines_c'])}",
                "",
                self.rng.choice(extra["closers"]),
            ]
        low, high = extra["count"]
        count = self.rng.randint(low, high)
        if style == "prompts":
            views = self.rng.sample(extra["view"], min(count, len(extra["view"])))
            return [
                self.fill(extra["template"], {
                    "n": n,
                    "view": view,
                    "topic": ctx["topic"],
                    "palette": self.rng.choice(extra["palette"]),
                    "light": self.rng.choice(extra["light"]),
                    "look": self.rng.choice(extra["look"]),
                })
                for n, view in enumerate(views, 1)
            ]
        items = self.pick_many(extra["pool"], ctx, count)
        if style == "numbered":
            return [f"{n}. {item}" for n, item in enumerate(items, 1)]
        if style == "checklist":
            return [f"- [ ] {item}" for item in items]
        if style == "table":
            people = [self.me] + list(self.colleagues.values())
            rows = [
                self.fill(extra["row"], {"task": item, "who": people[n % len(people)], "due": self.spec.day + 1 + n // 2})
                for n, item in enumerate(items)
            ]
            return list(extra["header"]) + rows
        return ["- " + item for item in items]

    # -- MEETING -----------------------------------------------------------

    def previous_turn(self) -> Turn | None:
        for turn in reversed(self.req.transcript):
            if turn.speaker != self.agent.id and turn.says.strip():
                return turn
        return None

    def meeting(self) -> dict[str, Any]:
        lines = self.lines["meeting"]
        focus = self.scene_focus()
        focus.facts = self.facts(focus.tags, 1, focus.phrase)
        ctx = self.base_ctx(focus)
        prev = self.previous_turn()
        if prev is not None:
            ctx["prev"] = short_name(prev.name) or self.name_of(prev.speaker)
            ctx["term"] = self.term_from(prev.says, focus)
            other_tags = [t for t in focus.tags if t.lower() != ctx["term"].lower()]
            if ctx["tag"].lower() == ctx["term"].lower():
                if other_tags:
                    ctx["tag"] = self.display_tag(other_tags)
                else:
                    del ctx["tag"]
            if prev.speaker in self.colleagues:
                ctx["colleague"] = self.colleagues[prev.speaker]

        says = []
        if prev is None:
            bank = lines["openers_brief"] if "brief" in ctx else lines["openers"]
            says.append(self.pick(bank, ctx))
        else:
            stance = self.rng.choices(["agree", "object", "add"], weights=[0.45, 0.25, 0.30])[0]
            says.append(self.pick(lines[stance], ctx))
        if prev is None or self.rng.random() < 0.7:
            says.append(self.pick(lines["proposals"], ctx))
        if "fact" in ctx and self.rng.random() < 0.4:
            says.append(self.pick(lines["fact_refs"], ctx))

        reply: dict[str, Any] = {"action": self.pick(lines["actions"], ctx), "says": " ".join(says)}
        if self.rng.random() < 0.4:
            reply["memories"] = [self.note(self.pick(lines["memories"], ctx), self.rng.randint(3, 5), focus.tags)]
        if self.req.replan and not any(t.speaker == self.agent.id for t in self.req.transcript):
            own = self.plan_focus() or focus
            reply["plan"] = self.replan(own, self.since_highlight(), dict(ctx, topic=self.display_topic(own.phrase)))
        if self.req.final_turn:
            reply["conversation"] = self.conversation(focus, ctx)
        if prev is not None and prev.speaker in self.colleagues and self.rng.random() < 0.1:
            reply["talk_wishes"] = [{
                "with": [prev.speaker],
                "topic": self.pick(self.lines["arrival"]["wish_topics"], {"topic": focus.phrase}),
                "tags": focus.tags[:3],
            }]
        return reply

    def conversation(self, focus: _Focus, ctx: dict[str, Any]) -> dict[str, Any]:
        lines = self.lines["meeting"]
        participants = [self.name_of(p) for p in self.spec.participants]
        if self.agent.id not in self.spec.participants:
            participants.append(self.me)
        participants = _dedupe(participants)
        summary_ctx = dict(ctx, participants=self.join(participants))
        summary_ctx["others"] = self.join([n for n in participants if n != self.me]) or self.me
        summary_ctx["decision"] = self.pick(lines["decisions"], summary_ctx)
        importance = self.rng.randint(6, 7) if focus.brief else self.rng.randint(4, 6)
        return {"summary": self.pick(lines["summaries"], summary_ctx), "importance": importance, "tags": focus.tags[:5]}

    def template_words(self) -> set[str]:
        key = id(self.lines)
        if key not in _TEMPLATE_WORDS:
            _TEMPLATE_WORDS[key] = {w.lower() for text in _strings(self.lines) for w in _WORD_RE.findall(text)}
        return _TEMPLATE_WORDS[key]

    def term_from(self, said: str, focus: _Focus) -> str:
        """A term the previous speaker used, so the answer visibly picks it up."""
        names = {n.lower() for n in self.colleagues.values()} | {self.me.lower()}
        names |= {part.lower() for t in self.req.transcript for part in _WORD_RE.findall(t.name)}
        known = _dedupe(
            list(self.spec.topic_tags) + focus.tags
            + [t for i in self.interests for t in i.tags]
            + [t for m in self.req.memories[-12:] for t in m.tags]
        )
        kinds = set(FAMILIES) | {
            _slug(str(m.metadata["kind"])) for m in self.req.memories if isinstance(m.metadata.get("kind"), str)
        }
        known = [t for t in self.content_tags(known) if t not in self.stopwords and t not in kinds]
        tagged = [found for found in (_mention(said, tag) for tag in known) if found]
        quoted = [
            q.strip() for q in re.findall(r"[„“”\"»«]([^„“”\"»«]{3,40})[„“”\"»«]", said)
            if len(q.split()) <= 3 and q.strip().lower() not in names
        ]
        filler = self.template_words() | self.stopwords | names
        words = _WORD_RE.findall(said)
        topic_words = set(topic_terms(self.spec.topic)) - self.stopwords
        on_topic = [w for w in words if w.lower() in topic_words and w.lower() not in names]
        nouns = [
            w for i, w in enumerate(words)
            if i > 0 and w[:1].isupper() and len(w) >= 5 and w.lower() not in filler
        ]
        long_words = [w for w in words if len(w) >= 7 and w.lower() not in filler]
        for group in (tagged, quoted, on_topic, nouns, long_words):
            group = _dedupe(group)
            if group:
                return self.rng.choice(group)
        return self.display_tag(focus.tags)

    # -- REFLECTION --------------------------------------------------------

    def reflection(self) -> dict[str, Any]:
        lines = self.lines["reflection"]
        pool = [m for m in self.req.memories if m.description.strip()] or list(self.req.since)
        reply: dict[str, Any] = {"action": self.pick(lines["actions"], {"name": self.me}), "says": ""}
        if self.rng.random() < 0.5:
            reply["says"] = self.pick(lines["says"], {"name": self.me})
        reply["insights"] = self.insights(pool, lines)
        return reply

    def insights(self, pool: list[Memory], lines: dict) -> list[dict[str, Any]]:
        if not pool:
            # Nothing to cite: the reply then fails validation with a clear
            # message instead of citing ids that do not exist.
            return [{"description": self.me, "importance": 6, "tags": [], "evidence": []}] * 3
        total = len(pool)
        scores = {
            # Fresh experience first; earlier insights join in, they do not take over.
            m.id: m.importance + 3 * (index + 1) / total - (1.5 if m.type == "reflection" else 0) + self.rng.random() * 0.8
            for index, m in enumerate(pool)
        }
        ranked = sorted(_distinct(pool), key=lambda m: -scores[m.id])
        count = min(self.rng.randint(3, 5), max(3, len(ranked)))
        used = {m.id: 0 for m in ranked}
        frames_used: set[str] = set()
        insights = []
        for k in range(count):
            anchor = ranked[k % len(ranked)]
            anchor_tags = set(self.content_tags(anchor.tags))
            anchor_cite = self.cite(anchor, lines)
            others = [m for m in ranked if m.id != anchor.id and self.cite(m, lines) != anchor_cite]
            # Related first, but a different kind of memory beats a second
            # copy of the same work: an insight joins different experiences.
            others.sort(key=lambda m: (
                -min(2, len(anchor_tags & set(m.tags))),
                m.type == anchor.type and m.type in ("artifact", "reflection"),
                used[m.id],
                -scores[m.id],
            ))
            size = self.rng.choice([1, 1, 2])
            cited = [anchor]
            for other in others:
                if len(cited) > size:
                    break
                if other.type == "reflection" and any(m.type == "reflection" for m in cited):
                    continue
                cited.append(other)
            for memory in cited:
                used[memory.id] += 1
            insights.append(self.insight(cited, lines, frames_used))
        return insights

    def cite(self, memory: Memory, lines: dict) -> str:
        """How an insight refers to a memory it builds on."""
        if memory.type == "reflection":
            return lines["cite_insight"].format(tag=self.display_tag(memory.tags))
        title = memory.metadata.get("title")
        if memory.type == "artifact" and isinstance(title, str) and title.strip():
            return lines["cite_artifact"].format(title=_bare(title, 60))
        return lines["cite_memory"].format(text=_bare(memory.description, 60))

    def insight(self, cited: list[Memory], lines: dict, frames_used: set[str]) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for memory in cited:
            for tag in memory.tags:
                counts[tag] = counts.get(tag, 0) + 1
        order = sorted(counts, key=lambda t: (-counts[t], list(counts).index(t)))
        content = self.content_tags(order)
        ctx: dict[str, Any] = {"a": self.cite(cited[0], lines)}
        ctx["tag_a"] = content[0] if content else self.display_tag([t for i in self.interests for t in i.tags])
        if len(content) > 1:
            ctx["tag_b"] = content[1]
        if len(cited) > 1:
            ctx["b"] = self.cite(cited[1], lines)
        authors = [a for a in (self.author_of(m) for m in cited) if a]
        if authors:
            who = self.name_of(authors[0])
            ctx["who"] = who
            ctx["who_possessive"] = self.possessive(who)
        if len(cited) > 1:
            bank = lines["frames"] + (lines["frames_people"] if authors else [])
        else:
            bank = lines["frames_single"] + (lines["frames_people"] if authors else [])
        candidates = self.usable(bank, ctx)
        fresh = [t for t in candidates if t not in frames_used] or candidates
        template = self.rng.choice(fresh)
        frames_used.add(template)
        depth_bonus = 1 if any(m.type == "reflection" for m in cited) and self.rng.random() < 0.6 else 0
        importance = min(9, self.rng.randint(6, 8) + depth_bonus)
        tags = _dedupe([t for t in order if t not in _PLAIN_TAGS], 5)
        return {
            "description": self.fill(template, ctx),
            "importance": importance,
            "tags": tags,
            "evidence": [m.id for m in cited],
        }

    # -- shared ------------------------------------------------------------

    def note(self, text: str, importance: int, tags: Sequence[str]) -> dict[str, Any]:
        return {"type": "observation", "description": text, "importance": importance, "tags": list(tags[:5])}


# Words of the phrase banks themselves, per language table: a term picked up
# from a colleague's statement should be their content, not template filler.
_TEMPLATE_WORDS: dict[int, set[str]] = {}


def _strings(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _distinct(memories: Iterable[Memory]) -> list[Memory]:
    """One memory per id and per wording; a repeated notice is one experience, not two."""
    by_id: dict[str, Memory] = {}
    by_text: dict[str, str] = {}
    for memory in memories:
        text = " ".join(memory.description.split()).lower()
        if memory.id in by_id:
            continue
        if text in by_text:
            del by_id[by_text[text]]
        by_id[memory.id] = memory
        by_text[text] = memory.id
    return list(by_id.values())
