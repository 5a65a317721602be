"""MEETING: one turn; it answers the previous speaker by picking up a word they used."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...lang import short_name
from ...topics import topic_terms
from ..base import Turn
from . import news
from .focus import Focus, plan_focus, scene_focus
from .phrase_banks import FAMILIES, template_words
from .text import WORD_RE, dedupe, mention, slug
from .work import replan

if TYPE_CHECKING:
    from .player import Player


def play(player: Player) -> dict[str, Any]:
    lines = player.lines["meeting"]
    focus = scene_focus(player)
    focus.facts = player.facts(focus.tags, 1, focus.phrase)
    ctx = player.base_ctx(focus)
    prev = previous_turn(player)
    sought = "news" in player.spec.topic_tags  # a talk someone sought out to tell something
    if prev is None and sought:
        # A talk one sought out to tell something opens with it, not with a stance on a work topic.
        told = news.tell(player)
        if told:
            reply = {"action": player.pick(lines["actions"], ctx), "says": told}
            if player.req.final_turn and "conversation" in player.spec.kind.allows:
                reply["conversation"] = conversation(player, focus, ctx, told)
            return reply
    if prev is not None:
        answering(player, ctx, prev, focus)

    # Each part in words nobody at the table has used yet (``Player.said``).
    says = []
    if prev is not None and sought and player.spec.participants[0] != player.agent.id:
        # Sought out to be told something: one thanks for it, and takes no stance on it as a work topic.
        says.append(player.pick_fresh(lines["thanks"], ctx, spoken=True))
    elif prev is None:
        bank = lines["openers_brief"] if "brief" in ctx else lines["openers"]
        says.append(player.pick_fresh(bank, ctx, spoken=True))
    else:
        stance = player.rng.choices(["agree", "object", "add"], weights=[0.45, 0.25, 0.30])[0]
        says.append(player.pick_fresh(lines[stance], ctx, spoken=True))
    if not sought and (prev is None or player.rng.random() < 0.7):
        says.append(player.pick_fresh(lines["proposals"], ctx, spoken=True))
    if not sought and "fact" in ctx and player.rng.random() < 0.4:
        ref = player.pick_fresh(lines["fact_refs"], ctx, spoken=True)
        if not player.said(ref):  # else the fact is out at this table already, in every framing
            says.append(ref)

    reply: dict[str, Any] = {"action": player.pick(lines["actions"], ctx), "says": " ".join(says)}
    if player.rng.random() < 0.4:
        reply["memories"] = [player.note(player.pick_fresh(lines["memories"], ctx), player.rng.randint(3, 5), focus.tags)]
    if player.req.replan and not any(t.speaker == player.agent.id for t in player.req.transcript):
        own = plan_focus(player) or focus
        reply["plan"] = replan(player, own, player.since_highlight(),
                               dict(ctx, topic=player.display_topic(own.phrase), tag=player.display_tag(own.tags)))
    if player.req.final_turn and "conversation" in player.spec.kind.allows:
        reply["conversation"] = conversation(player, focus, ctx, reply["says"])
    if prev is not None and prev.speaker in player.colleagues and player.rng.random() < 0.1:
        reply["talk_wishes"] = [{
            "with": [prev.speaker],
            "topic": player.pick(player.lines["arrival"]["wish_topics"], {"topic": focus.phrase}),
            "tags": focus.tags[:3],
        }]
    # News comes last in drawing order, so a character without any plays as before.
    taken = news.takeaways(player)
    if taken:
        reply["takeaways"] = taken
    if not any(t.speaker == player.agent.id for t in player.req.transcript):
        told = news.tell(player)
        if told:
            reply["says"] = f"{reply['says']} {told}"
    return reply


def answering(player: Player, ctx: dict[str, Any], prev: Turn, focus: Focus) -> None:
    """``ctx`` for answering ``prev``: who said it, the term one takes up, another tag than that."""
    ctx["prev"] = short_name(prev.name) or player.name_of(prev.speaker)
    ctx["term"] = term_from(player, prev.says, focus)
    other_tags = [t for t in focus.tags if t.lower() != ctx["term"].lower()]
    if ctx["tag"].lower() == ctx["term"].lower():
        if other_tags:
            ctx["tag"] = player.display_tag(other_tags)
        else:
            del ctx["tag"]
    if prev.speaker in player.colleagues:
        ctx["colleague"] = player.colleagues[prev.speaker]


def previous_turn(player: Player) -> Turn | None:
    for turn in reversed(player.req.transcript):
        if turn.speaker != player.agent.id and turn.says.strip():
            return turn
    return None


def conversation(player: Player, focus: Focus, ctx: dict[str, Any], says: str) -> dict[str, Any]:
    """The meeting's summary, written by whoever speaks last."""
    lines = player.lines["meeting"]
    participants = [player.name_of(p) for p in player.spec.participants]
    if player.agent.id not in player.spec.participants:
        participants.append(player.me)
    participants = dedupe(participants)
    summary_ctx = dict(ctx, participants=player.join(participants))
    summary_ctx["others"] = player.join([n for n in participants if n != player.me]) or player.me
    summary_ctx["decision"] = shared_outcome(player, says)
    importance = player.rng.randint(6, 7) if focus.brief else player.rng.randint(4, 6)
    return {"summary": player.pick(lines["summaries"], summary_ctx), "importance": importance, "tags": focus.tags[:5]}


def shared_outcome(player: Player, says: str) -> str:
    """The meeting's one outcome, the same in every participant's summary: what the first speaker
    of the last round proposed (the deliverable its line named), the others adopt it; when that
    speaker proposed nothing, a decision that names no proposal. Drawn from the scene, not the
    speaker, so every participant's summary says the same (``says``: this reply's own line, which
    is the owner's when the one writing is the owner)."""
    spec = player.spec
    turns = spec.kind.turns(spec)
    owner = turns[max(0, len(turns) - len(spec.participants))] if turns else player.agent.id
    ctx = {"owner": player.grammar["self_object"] if owner == player.agent.id else player.name_of(owner)}
    if spec.topic:
        ctx["topic"] = player.as_topic(spec.topic)
    lines = [says] if owner == player.agent.id else []
    lines += [t.says for t in reversed(player.req.transcript) if t.speaker == owner]
    deliverable = next((found for found in (proposed(player.lines, line) for line in lines) if found), None)
    bank = "outcomes"
    if deliverable:
        ctx["deliverable"], bank = deliverable, "outcomes_proposed"
    shared = player.scene_rng("outcome")
    return player.fill(shared.choice(player.usable(player.lines["meeting"][bank], ctx)), ctx)


def proposed(bank: dict, said: str) -> str | None:
    """The deliverable a line proposes, as a proposal frame of the phrase ``bank`` put it
    („Ich übernehme {deliverable}.“)."""
    for frame in bank["meeting"]["proposals"]:
        pattern = re.escape(frame).replace(re.escape("{deliverable}"), "(?P<deliverable>.+?)", 1)
        pattern = re.sub(r"\\\{\w+\\\}", ".+?", pattern)
        found = re.search(pattern, said)
        if found:
            return found.group("deliverable")
    return None


def term_from(player: Player, said: str, focus: Focus) -> str:
    """A term the previous speaker used, so the answer visibly picks it up."""
    names = {n.lower() for n in player.colleagues.values()} | {player.me.lower()}
    names |= {part.lower() for t in player.req.transcript for part in WORD_RE.findall(t.name)}
    known = dedupe(
        list(player.spec.topic_tags) + focus.tags
        + [t for i in player.interests for t in i.tags]
        + [t for m in player.req.memories[-12:] for t in m.tags]
    )
    kinds = set(FAMILIES) | {
        slug(str(m.metadata["kind"])) for m in player.req.memories if isinstance(m.metadata.get("kind"), str)
    }
    known = [t for t in player.content_tags(known) if t not in player.stopwords and t not in kinds]
    tagged = [found for found in (mention(said, tag) for tag in known) if found]
    quoted = [
        q.strip() for q in re.findall(r"[„“”\"»«]([^„“”\"»«]{3,40})[„“”\"»«]", said)
        if len(q.split()) <= 3 and q.strip().lower() not in names
    ]
    # The phrase bank's own words are filler: picking one up would echo a template, not the speaker.
    filler = template_words(player.code) | player.stopwords | names
    words = WORD_RE.findall(said)
    topic_words = set(topic_terms(player.spec.topic)) - player.stopwords
    on_topic = [w for w in words if w.lower() in topic_words and w.lower() not in names]
    nouns = [
        w for i, w in enumerate(words)
        if i > 0 and w[:1].isupper() and len(w) >= 5 and w.lower() not in filler
    ]
    long_words = [w for w in words if len(w) >= 7 and w.lower() not in filler]
    for group in (tagged, quoted, on_topic, nouns, long_words):
        group = dedupe(group)
        if group:
            return player.rng.choice(group)
    return player.display_tag(focus.tags)
