"""A third baseline for ``recall.py --conv``: plain reciprocal-rank fusion of BM25 and the dense model.

``rrf+nb``: BM25 (``recall_conv.BM25``) and the memories nearest the question in the ``dense`` extra's
embedding (the model ``hybrid`` uses, each memory's description embedded as a passage), fused by reciprocal
rank with the textbook k = 60, filled best first into the budget; the best three bring the memories before and
after them (same session) right after them. No constant here was chosen on either chat set.
"""

from __future__ import annotations

RRF_K = 60
WITH_NEIGHBOURS = 3
DENSE_DEPTH = 200  # nearest memories fused; BM25 brings every memory that shares a word

_VECTORS: dict[str, object] = {}  # description -> vector, across worlds and streams of one run


def _model():
    from gamemaster.retrieval.strategies.hybrid import STRATEGY

    return STRATEGY.model()


def embed(rows: list[dict]):
    import numpy as np

    model = _model()
    missing = [r["description"] for r in rows if r["description"] not in _VECTORS]
    for start in range(0, len(missing), 64):
        chunk = missing[start:start + 64]
        for text, vector in zip(chunk, model.passages(chunk)):
            _VECTORS[text] = vector / (np.linalg.norm(vector) or 1.0)
    return np.stack([_VECTORS[r["description"]] for r in rows])


def rrf_nb(rows: list[dict], matrix, index, chars: list[int], question: str, budgets: list[int]) -> dict[int, set]:
    """The ``rrf+nb`` selection of ``question`` at each budget (sets of memory ids)."""
    import numpy as np

    query = _model().query(question)
    similarity = matrix @ (query / (np.linalg.norm(query) or 1.0))
    dense = [int(d) for d in np.argsort(-similarity)[:DENSE_DEPTH]]
    fused: dict[int, float] = {}
    for ranking in (index.rank(question), dense):
        for rank, doc in enumerate(ranking, 1):
            fused[doc] = fused.get(doc, 0.0) + 1 / (RRF_K + rank)
    order = sorted(fused, key=lambda d: (-fused[d], d))
    scene = [r["created"] for r in rows]
    out = {}
    for budget in budgets:
        left, picked = budget, set()
        for place, doc in enumerate(order):
            if left < 60:
                break
            group = [doc] + ([d for d in (doc - 1, doc + 1) if 0 <= d < len(rows) and scene[d] == scene[doc]]
                             if place < WITH_NEIGHBOURS else [])
            for d in group:
                if d not in picked and chars[d] <= left:
                    picked.add(d)
                    left -= chars[d]
        out[budget] = {rows[d]["id"] for d in picked}
    return out
