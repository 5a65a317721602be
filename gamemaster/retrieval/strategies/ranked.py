"""Ranked recall under a budget (the default).

Candidates come from the derived index: the best BM25 matches of the query's
words (stemmed, stopwords and names left out), every memory carrying a topic
tag, and the newest memories and reflections. A memory's relevance is its BM25
score plus, for each topic tag it carries, the weight of a word as rare as that
tag (a tag on more than a fifth of the stream is broad and adds nothing). Memories
that share words or a tag with the query come first, by relevance; Park et al.'s
combined score (relevance, importance and recency, each min-max normalised over
the candidates and weighted by ``retrieval_weights`` in ``state/world.json``;
recency halves every ``recency_half_life`` days of story time) only reorders hits
of about equal relevance, and orders the rest.

Within the budget: the newest reflections first (at most 5 % of it, the newest
always), the newest memories for continuity (at most 15 %), then the ranked
ones. Every hit brings the memory before and after it from the same scene, and
the same speaker's lines two turns away (a question, its reply, the follow-up).
A memory that says most of what one already chosen says (a new version of an
artifact) and answers no more of the query is left out, and memories carrying a
broad topic tag never fill more than a third of the section. The shares and
weights were chosen with ``bench/recall.py --conv``.
"""

from __future__ import annotations

import math
import os
from dataclasses import replace
from pathlib import Path

from ...linesize import MAX_LINE_BYTES
from ...models import Memory
from ...problems import Problem
from ...streams import MemoryStream
from ..base import Budget, Picked, Query, Selection, Settings
from ..heard import heard_lines, shown_lines
from ..index import Doc, SearchIndex, open_index
from ..parallel import build_side_by_side
from ..render import memory_line
from ..scores import combined
from ..lines import Said, addressed, speaker_of as _speaker, term_bag
from ..text import analyzer, phrase_tags, tag_key, words

CANDIDATES = 200
FILLERS = 100
#: How many index entries (postings) one query may score. Terms are taken rarest first, so
#: only the most common words of a query go, and they carry almost no BM25 weight anyway.
POSTINGS = 20_000
REFLECTION_SHARE = 0.05
RECENT_SHARE = 0.15
RECENT_MAX = 40
#: A tag on more than this share of the stream is broad: it adds no weight, and the memories
#: carrying it never fill more than a third of the relevant section.
BROAD_TAG = 0.2
#: A question to someone by name brings their answer: their lines within this many turns after
#: it in the same scene, others talking in between (``bench/recall.py --conv --sets late``).
REPLY_WITHIN = 4
#: How far the combined score (relevance, importance, recency) may move a hit, as a share of the best relevance.
NUDGE = 0.3

#: A query tag a memory carries counts like a word of the same rarity, times this.
TAG_WEIGHT = 1.5
#: Consecutive candidates that did not fit or added nothing before the section counts as full.
MISSES = 40
#: Bytes of a stream a run reads whole rather than line by line.
WHOLE = 1 << 20


class RankedStrategy:
    name = "ranked"

    def prepare(self, root: Path, agents: list[str], settings: Settings) -> None:
        """Build the search indexes of those about to be asked, side by side where that pays."""
        build_side_by_side(root, agents, settings.language)

    def select(self, stream: MemoryStream, query: Query, settings: Settings) -> Selection:
        selection = Selection(self.name, settings.budget, settings.language)
        index = open_index(stream.root, stream.agent, settings.language).refresh()
        try:
            _Run(stream, index, query, settings, selection).run()
        finally:
            index.close()
        return selection


class _Run:
    def __init__(self, stream: MemoryStream, index: SearchIndex, query: Query, settings: Settings, selection: Selection):
        self.stream, self.index, self.query, self.settings, self.selection = stream, index, query, settings, selection
        self.budget = Budget(settings.budget, settings.language)
        self.taken: set[int] = set()  # byte offsets of memories already in
        self.said = Said()  # what the memories chosen so far say, for near-duplicates
        self._docs: dict[int, Doc | None] = {}  # the index's lines looked up this run, by seq
        self.analyzer = analyzer(settings.language)
        self._handle = None
        self._whole: bytes | None = None  # the stream's bytes, where it is small (``_read``)
        self._parsed: dict[int, Memory | None] = {}
        self.excluded = settings.excluded
        for memory in settings.elsewhere:
            self._said(memory)

    def run(self) -> None:
        self.terms, self.shown = self._query_terms()
        self.asked = frozenset(self.shown)
        self._newest_reflections()
        self._recent()
        self._relevant()
        if self._handle:
            self._handle.close()

    # -- reading lines --------------------------------------------------------

    def _memory(self, doc: Doc) -> Memory | None:
        # A line is asked for again as a hit, a neighbour and an answer: parsed once a run.
        if doc.offset not in self._parsed:
            self._parsed[doc.offset] = self._read(doc)
        return self._parsed[doc.offset]

    def _read(self, doc: Doc) -> Memory | None:
        if self._handle is None:
            self._handle = open(self.stream.path, "rb")
            # A stream of up to WHOLE bytes is read at once: a run reads a line of most of them.
            size = os.fstat(self._handle.fileno()).st_size
            self._whole = self._handle.read() if size <= WHOLE else None
        # An index older than the line limit may still list a longer line: one byte past it is enough to refuse it.
        length = min(doc.length, MAX_LINE_BYTES + 1)
        if self._whole is not None:
            raw = self._whole[doc.offset:doc.offset + length]
        else:
            self._handle.seek(doc.offset)
            raw = self._handle.read(length)
        parsed = self.stream.parse_at(raw, doc.line, doc.offset)
        if isinstance(parsed, Problem):
            if parsed not in self.selection.problems:
                self.selection.problems.append(parsed)
            return None
        return parsed

    def _lookup(self, seqs) -> dict[int, Doc]:
        """``index.docs(seqs)``: the candidates' lines are looked up once, and a hit's neighbours
        are mostly among them (the index does not change during a run)."""
        missing = [seq for seq in seqs if seq not in self._docs]
        if missing:
            found = self.index.docs(missing)
            self._docs.update({seq: found.get(seq) for seq in missing})
        return {seq: doc for seq in sorted(set(seqs)) if (doc := self._docs[seq]) is not None}

    def _heard(self, memory: Memory) -> tuple[str, ...]:
        """The heard lines this memory brings for the query (``heard.py``)."""
        return shown_lines(memory.metadata, memory.id, self.shown, self.analyzer.terms, self.settings.speaker,
                           self.settings.language, memory.description)

    def _add(self, memory: Memory, doc_or_offset, section: str, line: int = 0, **extra) -> None:
        offset = doc_or_offset.offset if isinstance(doc_or_offset, Doc) else doc_or_offset
        line = doc_or_offset.line if isinstance(doc_or_offset, Doc) else line
        self.taken.add(offset)
        self.selection.picked.append(Picked(memory, section, offset, line, **extra))

    # -- sections -------------------------------------------------------------

    def _newest_reflections(self) -> None:
        """The character's latest conclusions: the newest always, more within their share."""
        whole = self.settings.whole or self.settings.budget
        share = Budget(max(int(whole * REFLECTION_SHARE), 1), self.settings.language)
        for position, doc in enumerate(self.index.newest(8, reflections=True)):
            memory = self._memory(doc)
            if memory is None or memory.depth < 1 or memory.id in self.excluded:
                continue
            if not (share.take(memory) or position == 0) or not self.budget.take(memory):
                break
            self._add(memory, doc, "reflections")

    def _recent(self) -> None:
        share = Budget(int(self.settings.budget * RECENT_SHARE), self.settings.language)
        recent, problems = self.stream.tail(min(self.settings.memory_window, RECENT_MAX))
        self.selection.problems += [p for p in problems if p not in self.selection.problems]
        for item in reversed(recent):
            if item.offset in self.taken or item.memory.id in self.excluded:
                continue
            heard = self._heard(item.memory)
            if not share.take(item.memory, heard) or not self.budget.take(item.memory, heard):
                break
            self._add(item.memory, item.offset, "recent", item.line, heard=heard)
            self._said(item.memory)

    def _relevant(self) -> None:
        terms, shown = self.terms, self.shown
        matches = self.index.search(terms, CANDIDATES) if terms else {}
        tag_keys = self._tag_keys()
        weights, broad = self._tag_weights(tag_keys)
        tagged: dict[int, float] = {}  # seq → the weight of the query tags it carries
        for key in tag_keys:
            for seq in self.index.tagged([key], CANDIDATES):
                tagged[seq] = tagged.get(seq, 0.0) + weights.get(key, 0.0)
        fillers = self.index.newest(FILLERS, seqs=True) + self.index.newest(FILLERS, reflections=True, seqs=True)
        docs = self._lookup(set(matches) | set(tagged) | set(fillers))
        if not docs:
            return
        # A tag counts like a word of its rarity; a broad tag (``BROAD_TAG``) adds nothing.
        relevance = {seq: matches.get(seq, 0.0) + tagged.get(seq, 0.0) for seq in docs}
        scores = combined(list(docs.values()), relevance, self.settings)
        hits = {seq for seq, value in relevance.items() if value > 0}
        self._explain_taken(docs, scores, hits, shown, tag_keys)
        candidates = [d for d in docs.values() if d.offset not in self.taken]
        # Memories that share words or a tag with the query first, by relevance: importance and recency
        # (the combined score, at most ``NUDGE`` of the best relevance) only reorder hits of about equal
        # relevance, so the middle ranks stay as good as BM25's. Then the rest, by the combined score.
        top = max((relevance[seq] for seq in hits), default=0.0)
        total_weight = max(sum(self.settings.weights.values()), 1e-9)
        ranked = sorted(candidates, key=lambda d: (d.seq in hits, relevance[d.seq] + NUDGE * top * scores[d.seq]
                                                   / total_weight, d.seq), reverse=True)
        self.broad_keys = set(broad)
        self._fill(ranked, hits, scores, tag_keys)

    def _fill(self, ranked: list[Doc], hits: set[int], scores: dict[int, float], tag_keys: list[str]) -> None:
        """Take ``ranked`` in order while the budget lasts; every hit brings its neighbours."""
        self.broad_count, self.relevant_count = 0, 0
        misses = 0
        for doc in ranked:
            if self.budget.left <= 0 or misses >= MISSES:
                break
            if doc.offset in self.taken:
                continue
            hit = doc.seq in hits
            memory = self._take(doc, tag_keys if hit else None, score=scores.get(doc.seq, 0.0))
            if memory is None:
                elsewhere = self._memory(doc) if self.excluded else None
                if elsewhere is not None and elsewhere.id in self.excluded:
                    if hit:  # shown in another part of the prompt: what stands around it still belongs here
                        self._neighbours(doc, elsewhere, scores)
                    continue
                misses += 1  # did not fit, or added nothing: past many in a row, the rest is more of the same
                continue
            misses = 0
            if hit:
                self._neighbours(doc, memory, scores)

    def _take(self, doc: Doc, tag_keys: list[str] | None, score: float, neighbour_of: str | None = None) -> Memory | None:
        """Add ``doc`` to the relevant section if it fits and adds something; None if not."""
        memory = self._memory(doc)
        if memory is None or memory.id in self.excluded or self._longer_than_left(memory) or self._repeats(memory):
            return None
        carries_broad = bool(self.broad_keys & {tag_key(t) for t in memory.tags})
        if carries_broad and self.broad_count + 1 > max(1, (self.relevant_count + 1) / 3):
            return None  # a broad tag never fills more than a third of the section
        heard = self._heard(memory)
        if not self.budget.take(memory, heard):
            return None
        self.broad_count += carries_broad
        self.relevant_count += 1
        self._said(memory)
        matched = self._matched(memory, self.shown, tag_keys) if tag_keys is not None else ()
        self._add(memory, doc, "relevant", score=round(score, 4), matched=matched, neighbour_of=neighbour_of,
                  heard=heard)
        return memory

    def _longer_than_left(self, memory: Memory) -> bool:
        """Its line alone does not fit what is left (heard lines only add to it, and the line holds
        the description): once the budget is nearly full most candidates are such, and this says
        so before the heard lines and the near-duplicates are worked out for them."""
        left = self.budget.left
        return len(memory.description) + 1 > left or len(memory_line(memory, self.settings.language)) + 1 > left

    def _explain_taken(self, docs, scores, hits, shown, tag_keys) -> None:
        """Memories already in (newest, reflections) get their score and matched terms too."""
        by_offset = {d.offset: d for d in docs.values()}
        for position, picked in enumerate(self.selection.picked):
            doc = by_offset.get(picked.offset)
            if doc is None:
                continue
            matched = self._matched(picked.memory, shown, tag_keys) if doc.seq in hits else ()
            self.selection.picked[position] = replace(picked, score=round(scores[doc.seq], 4), matched=matched)

    def _neighbours(self, doc: Doc, memory: Memory, scores: dict[int, float]) -> None:
        """The memories before and after a hit in the same scene, and the same speaker's lines two
        turns away: an answer is often the reply, or the speaker's follow-up after the reply."""
        around = self._lookup([doc.seq - 2, doc.seq - 1, doc.seq + 1, doc.seq + 2])
        speaker = _speaker(memory.description)
        for seq in (doc.seq - 1, doc.seq + 1, doc.seq + 2, doc.seq - 2):
            other = around.get(seq)
            if other is None or other.offset in self.taken or other.scene_key != doc.scene_key:
                continue
            if abs(seq - doc.seq) == 2:
                line = self._memory(other) if speaker else None
                if line is None or _speaker(line.description) != speaker:
                    continue
            self._take(other, None, scores.get(seq, 0.0), neighbour_of=memory.id)
        if speaker and "?" in memory.description:
            self._answer(doc, memory, speaker, scores)

    def _answer(self, doc: Doc, memory: Memory, speaker: str, scores: dict[int, float]) -> None:
        """A hit that asks someone by name brings their answer, which may come a few turns later
        and share no word with the question („Ines, did you get the car fixed?“ … „Ines: Sold it.“)."""
        later = self._lookup(range(doc.seq + 1, doc.seq + 1 + REPLY_WITHIN))
        for seq in range(doc.seq + 1, doc.seq + 1 + REPLY_WITHIN):
            other = later.get(seq)
            if other is None or other.scene_key != doc.scene_key:
                return
            line = self._memory(other)
            who = _speaker(line.description) if line is not None else None
            if who and who != speaker and addressed(memory.description, who) and other.offset not in self.taken:
                self._take(other, None, scores.get(seq, 0.0), neighbour_of=memory.id)

    # -- near-duplicates ------------------------------------------------------

    def _repeats(self, memory: Memory) -> bool:
        """Says what a memory already chosen says: the same words, or most of them (a new version
        of one artifact, the same note again) while answering no more of the query. Short lines
        are never near-duplicates."""
        speaker = _speaker(memory.description) if memory.type == "conversation" else None
        return self.said.repeats(memory.description, lambda: term_bag(self.analyzer, memory.description, speaker),
                                 speaker, self.asked)

    def _said(self, memory: Memory) -> None:
        speaker = _speaker(memory.description) if memory.type == "conversation" else None
        self.said.add(memory.description, term_bag(self.analyzer, memory.description, speaker), speaker)

    # -- the query ------------------------------------------------------------

    def _query_terms(self) -> tuple[list[str], dict[str, str]]:
        """Index terms of the query, each mapped to the word it came from (for `matched`)."""
        names = set(self.analyzer.query_terms(" ".join(self.query.names)))
        shown: dict[str, str] = {}
        text = " ".join([self.query.text, self.query.context])
        for word in words(text) + [w for tag in self.query.tags for w in words(tag)]:
            for term in self._variants(word):
                if term not in names:
                    shown.setdefault(term, word)
        total = self.index.count()
        freqs = self.index.doc_freqs(shown)
        # A term in more than half the stream has no weight in BM25 at all.
        usable = sorted((freqs[t], t) for t in shown if 0 < freqs.get(t, 0) and (total < 20 or freqs[t] <= total / 2))
        terms, postings = [], 0
        for freq, term in usable:
            if terms and postings + freq > POSTINGS:
                break
            terms.append(term)
            postings += freq
        return terms, shown

    def _variants(self, word: str) -> list[str]:
        """The word's term, and for a word ending in -s the term without it: a genitive
        (``Gretas Katze``) that the stemmer keeps finds ``Greta`` too. A variant no memory
        uses is dropped with the other unknown terms."""
        found = []
        for language in self.analyzer.languages:  # the query's language may not be the memory's
            stem = self.analyzer.words_for(language).stem
            found.append(stem(word))
            if len(word) > 3 and word.endswith("s"):
                found.append(stem(word[:-1]))
        return list(dict.fromkeys(found))

    def _tag_weights(self, keys: list[str]) -> tuple[dict[str, float], list[str]]:
        """Each query tag's weight by its rarity (BM25's idf, like a word), and the broad ones."""
        total = max(self.index.count(), 1)
        freqs = self.index.tag_freqs(keys)
        weights, broad = {}, []
        for key in keys:
            freq = freqs.get(key, 0)
            if total >= 20 and freq > total * BROAD_TAG:
                broad.append(key)
                continue
            weights[key] = TAG_WEIGHT * math.log(1 + (total - freq + 0.5) / (freq + 0.5))
        return weights, broad

    def _tag_keys(self) -> list[str]:
        names = {tag_key(n) for n in self.query.names}
        keys = [tag_key(t) for t in self.query.tags] + phrase_tags(self.query.text)
        return [k for k in dict.fromkeys(keys) if k and k not in names]

    def _matched(self, memory: Memory, shown: dict[str, str], tag_keys: list[str]) -> tuple[str, ...]:
        own = set(self.analyzer.terms(memory.description)) | set(self.analyzer.tag_terms(memory.tags))
        for key in ("title", "summary"):
            if isinstance(memory.metadata.get(key), str):
                own |= set(self.analyzer.terms(memory.metadata[key]))
        for _, says in heard_lines(memory.metadata, memory.id):
            own |= set(self.analyzer.terms(says))
        tags = {tag_key(t) for t in memory.tags}
        found = [f"#{k}" for k in tag_keys if k in tags]
        found += [word for term, word in shown.items() if term in own]
        return tuple(dict.fromkeys(found))


STRATEGY = RankedStrategy()
