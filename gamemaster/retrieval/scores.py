"""Park et al.'s combined score of a ranked selection's candidates: relevance, importance and
recency, each min-max normalised over the candidates and weighted by ``retrieval_weights`` in
``state/world.json``; recency halves every ``recency_half_life`` days of story time."""

from __future__ import annotations

from .base import Settings
from .index import Doc

#: Scenes in a day of story time: a scene is a tenth of a day older than the next.
SCENES_PER_DAY_SCALE = 10


def combined(docs: list[Doc], matches: dict[int, float], settings: Settings) -> dict[int, float]:
    """seq → the combined score of each of ``docs``; ``matches``: their relevance (BM25 and tags)."""
    weights = settings.weights
    now = settings.now or max((d.scene_key for d in docs), default=(0, 0))
    half_life = max(settings.recency_half_life, 1e-6)

    def age(doc: Doc) -> float:
        days = (now[0] - doc.day) + (now[1] - doc.scene) / SCENES_PER_DAY_SCALE
        return max(days, 0.0) if doc.dated else float("inf")

    # Lists in the order of ``docs``, one pass each: a selection scores every candidate.
    relevance = _normalised([matches.get(d.seq, 0.0) for d in docs])
    importance = _normalised([float(d.importance) for d in docs])
    recency = _normalised([0.5 ** (age(d) / half_life) for d in docs])
    by_relevance, by_importance, by_recency = (weights.get(k, 0) for k in ("relevance", "importance", "recency"))
    return {d.seq: by_relevance * r + by_importance * i + by_recency * c
            for d, r, i, c in zip(docs, relevance, importance, recency)}


def _normalised(values: list[float]) -> list[float]:
    low, high = min(values), max(values)
    if high <= low:
        return [0.0] * len(values)
    return [(value - low) / (high - low) for value in values]
