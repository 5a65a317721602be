"""Ranked recall under a budget (the default).

Candidates come from the derived index: the best BM25 matches of the query's
words (stemmed, stopwords and names left out), every memory carrying a topic
tag, and the newest memories and reflections. Each candidate gets Park et al.'s
combined score: relevance, importance and recency, each min-max normalised over
the candidates and weighted (``retrieval_weights`` in ``state/world.json``);
recency halves every ``recency_half_life`` days of story time. A tag hit ranks
above any memory that only shares words, and one that shares words above one
that does not.

Within the budget: the newest reflections first (at most 5 % of it, the newest
always), the newest memories for continuity (at most 15 %), then the ranked
ones; each of the best three hits brings the memory before and after it from
the same scene when they fit. The shares and weights were chosen with
``bench/recall.py``.
"""

from __future__ import annotations

from dataclasses import replace

from ...linesize import MAX_LINE_BYTES
from ...models import Memory
from ...problems import Problem
from ...streams import MemoryStream
from ..base import Budget, Picked, Query, Selection, Settings
from ..heard import heard_lines, shown_lines
from ..index import Doc, SearchIndex, open_index
from ..text import analyzer, phrase_tags, tag_key, words

CANDIDATES = 200
FILLERS = 100
#: How many index entries (postings) one query may score. Terms are taken rarest first, so
#: only the most common words of a query go, and they carry almost no BM25 weight anyway.
POSTINGS = 20_000
REFLECTION_SHARE = 0.05
RECENT_SHARE = 0.15
RECENT_MAX = 40
#: How many of the best hits bring their neighbours; past them a neighbour would crowd out another hit.
NEIGHBOURED_HITS = 3
#: Consecutive candidates that did not fit before the budget counts as full.
MISSES = 40
SCENES_PER_DAY_SCALE = 10


class RankedStrategy:
    name = "ranked"

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
        self.said: set[str] = set()  # what the relevant memories chosen so far say
        self.analyzer = analyzer(settings.language)
        self._handle = None

    def run(self) -> None:
        self.terms, self.shown = self._query_terms()
        self._newest_reflections()
        self._recent()
        self._relevant()
        if self._handle:
            self._handle.close()

    # -- reading lines --------------------------------------------------------

    def _memory(self, doc: Doc) -> Memory | None:
        if self._handle is None:
            self._handle = open(self.stream.path, "rb")
        self._handle.seek(doc.offset)
        # An index older than the line limit may still list a longer line: one byte past it is enough to refuse it.
        parsed = self.stream.parse_line(self._handle.read(min(doc.length, MAX_LINE_BYTES + 1)), doc.line)
        if isinstance(parsed, Problem):
            if parsed not in self.selection.problems:
                self.selection.problems.append(parsed)
            return None
        return parsed

    def _heard(self, memory: Memory) -> tuple[str, ...]:
        """The heard lines this memory brings for the query (``heard.py``)."""
        return shown_lines(memory.metadata, memory.id, self.shown, self.analyzer.terms, self.settings.speaker,
                           self.settings.language)

    def _add(self, memory: Memory, doc_or_offset, section: str, line: int = 0, **extra) -> None:
        offset = doc_or_offset.offset if isinstance(doc_or_offset, Doc) else doc_or_offset
        line = doc_or_offset.line if isinstance(doc_or_offset, Doc) else line
        self.taken.add(offset)
        self.selection.picked.append(Picked(memory, section, offset, line, **extra))

    # -- sections -------------------------------------------------------------

    def _newest_reflections(self) -> None:
        """The character's latest conclusions: the newest always, more within their share."""
        share = Budget(max(int(self.settings.budget * REFLECTION_SHARE), 1), self.settings.language)
        for position, doc in enumerate(self.index.newest(8, reflections=True)):
            memory = self._memory(doc)
            if memory is None or memory.depth < 1:
                continue
            if not (share.take(memory) or position == 0) or not self.budget.take(memory):
                break
            self._add(memory, doc, "reflections")

    def _recent(self) -> None:
        share = Budget(int(self.settings.budget * RECENT_SHARE), self.settings.language)
        recent, problems = self.stream.tail(min(self.settings.memory_window, RECENT_MAX))
        self.selection.problems += [p for p in problems if p not in self.selection.problems]
        for item in reversed(recent):
            if item.offset in self.taken:
                continue
            heard = self._heard(item.memory)
            if not share.take(item.memory, heard) or not self.budget.take(item.memory, heard):
                break
            self._add(item.memory, item.offset, "recent", item.line, heard=heard)

    def _relevant(self) -> None:
        terms, shown = self.terms, self.shown
        matches = self.index.search(terms, CANDIDATES) if terms else {}
        tag_keys = self._tag_keys()
        tagged = set(self.index.tagged(tag_keys, CANDIDATES))
        fillers = [d.seq for d in self.index.newest(FILLERS)] + [d.seq for d in self.index.newest(FILLERS, reflections=True)]
        docs = self.index.docs(set(matches) | tagged | set(fillers))
        if not docs:
            return
        scores = self._scores(list(docs.values()), matches)
        self._explain_taken(docs, scores, matches, tagged, shown, tag_keys)
        candidates = [d for d in docs.values() if d.offset not in self.taken]
        # Tag hits first, then memories that share words with the query, then the rest;
        # inside each tier the combined score decides.
        ranked = sorted(
            candidates, key=lambda d: (d.seq in tagged, d.seq in matches, scores[d.seq], d.seq), reverse=True
        )
        misses = hits_taken = 0
        for doc in ranked:
            if self.budget.left <= 0 or misses >= MISSES:
                break
            if doc.offset in self.taken:
                continue
            memory = self._memory(doc)
            if memory is None:
                continue
            said = " ".join(memory.description.split()).casefold()
            if said in self.said:
                continue  # the same words stored again add nothing but length
            heard = self._heard(memory)
            if not self.budget.take(memory, heard):
                misses += 1
                continue
            misses = 0
            self.said.add(said)
            hit = doc.seq in matches or doc.seq in tagged
            matched = self._matched(memory, shown, tag_keys) if hit else ()
            self._add(memory, doc, "relevant", score=round(scores[doc.seq], 4), matched=matched, heard=heard)
            if hit and hits_taken < NEIGHBOURED_HITS:
                self._neighbours(doc, memory.id, scores)
            hits_taken += hit

    def _explain_taken(self, docs, scores, matches, tagged, shown, tag_keys) -> None:
        """Memories already in (newest, reflections) get their score and matched terms too."""
        by_offset = {d.offset: d for d in docs.values()}
        for position, picked in enumerate(self.selection.picked):
            doc = by_offset.get(picked.offset)
            if doc is None:
                continue
            hit = doc.seq in matches or doc.seq in tagged
            matched = self._matched(picked.memory, shown, tag_keys) if hit else ()
            self.selection.picked[position] = replace(picked, score=round(scores[doc.seq], 4), matched=matched)

    def _neighbours(self, doc: Doc, hit_id: str, scores: dict[int, float]) -> None:
        """The memory before and after a hit in the same scene: an answer is often the next line."""
        around = self.index.docs([doc.seq - 1, doc.seq + 1])
        for seq in (doc.seq - 1, doc.seq + 1):
            other = around.get(seq)
            if other is None or other.offset in self.taken or other.scene_key != doc.scene_key:
                continue
            memory = self._memory(other)
            heard = self._heard(memory) if memory is not None else ()
            if memory is not None and self.budget.take(memory, heard):
                self._add(memory, other, "relevant", score=round(scores.get(seq, 0.0), 4), neighbour_of=hit_id,
                          heard=heard)

    # -- the query ------------------------------------------------------------

    def _query_terms(self) -> tuple[list[str], dict[str, str]]:
        """Index terms of the query, each mapped to the word it came from (for `matched`)."""
        names = set(self.analyzer.terms(" ".join(self.query.names)))
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
        term = self.analyzer.stem(word)
        if len(word) > 3 and word.endswith("s"):
            bare = self.analyzer.stem(word[:-1])
            if bare != term:
                return [term, bare]
        return [term]

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

    # -- scoring --------------------------------------------------------------

    def _scores(self, docs: list[Doc], matches: dict[int, float]) -> dict[int, float]:
        weights = self.settings.weights
        now = self.settings.now or max((d.scene_key for d in docs), default=(0, 0))
        half_life = max(self.settings.recency_half_life, 1e-6)

        def age(doc: Doc) -> float:
            days = (now[0] - doc.day) + (now[1] - doc.scene) / SCENES_PER_DAY_SCALE
            return max(days, 0.0) if doc.dated else float("inf")

        relevance = _normalised({d.seq: matches.get(d.seq, 0.0) for d in docs})
        importance = _normalised({d.seq: float(d.importance) for d in docs})
        recency = _normalised({d.seq: 0.5 ** (age(d) / half_life) for d in docs})
        return {
            d.seq: weights.get("relevance", 0) * relevance[d.seq]
            + weights.get("importance", 0) * importance[d.seq]
            + weights.get("recency", 0) * recency[d.seq]
            for d in docs
        }


def _normalised(values: dict[int, float]) -> dict[int, float]:
    low, high = min(values.values()), max(values.values())
    if high <= low:
        return {key: 0.0 for key in values}
    return {key: (value - low) / (high - low) for key, value in values.items()}


STRATEGY = RankedStrategy()
