"""One search over the whole studio — memories, replies, artifacts and scenes of every
character — analysed exactly as recall analyses (``retrieval.text``: folding, stopwords,
the studio language's stemmer), offline, in the static site.

The build writes ``search/index.js``: the documents, each analysed term's postings, and a
vocabulary that maps every folded word of the studio (and every term itself) to its terms —
one per language it was written in, as recall analyses each text by its language (``tower``
in an English line, ``towers`` → ``tow`` nowhere) — so the page's script looks a query's
words up instead of stemming them again; a word matches a document holding any of its terms. A word the
studio never wrote is matched by the script against the terms it starts with (at most
three letters more): a form the studio did not use still finds the forms it did.
"""

from __future__ import annotations

import json
import math

from ..retrieval.text import STOPWORDS, analyzer, words as folded_words
from .html import Frame, character_file, day_file, gallery_file, labels, scene_file
from .shown import turn_anchor
from .studio import Studio, Turn, artifact_body
from .templating import render

SNIPPET = 280


class Index:
    def __init__(self, language: str):
        self.analyzer = analyzer(language)
        self.docs: list[list] = []
        self.postings: dict[str, list[list[int]]] = {}
        self.vocabulary: dict[str, list[str]] = {}

    def add(self, kind: str, title: str, url: str, text: str) -> None:
        """One document; ``text`` is analysed whole, a snippet of it is kept for the result."""
        number = len(self.docs)
        counts: dict[str, int] = {}
        whole = f"{title} {text}"
        # Each word as the document's own language turns it into a term (the document is
        # analysed whole, by its language, below).
        own = self.analyzer.words_for(self.analyzer.language_of(whole))
        for word in set(folded_words(whole)):
            terms = own.terms([word])
            known = self.vocabulary.setdefault(word, [])
            if terms and terms[0] not in known:
                known.append(terms[0])
        for term in self.analyzer.terms(whole):
            counts[term] = counts.get(term, 0) + 1
        for term, count in counts.items():
            self.postings.setdefault(term, []).append([number, count])
        snippet = " ".join(text.split())
        self.docs.append([kind, title, url, snippet[:SNIPPET] + ("…" if len(snippet) > SNIPPET else "")])

    def script(self) -> str:
        """``search/index.js``: plain JSON (the json module's) assigned to one global."""
        for term in list(self.postings):  # "knochenturm" typed as the term itself is known too
            if term not in self.vocabulary:
                self.vocabulary[term] = list(dict.fromkeys([term, *self.analyzer.terms(term)[:1]]))
        for word in [w for w, terms in self.vocabulary.items() if not terms]:
            del self.vocabulary[word]
        total = max(len(self.docs), 1)
        data = {"docs": self.docs, "vocabulary": self.vocabulary, "stopwords": sorted(STOPWORDS),
                "postings": self.postings,
                "idf": {t: round(math.log(1 + total / len(p)), 4) for t, p in self.postings.items()}}
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
        return f"window.GM_SEARCH = {text};\n"


def build_index(studio: Studio, turns: dict[str, list[Turn]]) -> Index:
    """``turns``: scene ref → its turns with their replies."""
    words = labels(studio.language)
    index = Index(studio.language)
    for agent_id, stream in studio.memories.items():
        for memory in stream:
            index.add("memory", f"{studio.name(agent_id)} · {memory.id}", f"{character_file(agent_id)}#{memory.id}",
                      " ".join([memory.description, *memory.tags]))
    for day in studio.days:
        for record in studio.records[day]:
            said = " ".join(line.says for line in record.transcript or [])
            index.add("scene", f'{words["day"]} {day} · {record.scene:02d} {record.type} {record.topic or ""}'.strip(),
                      f"{day_file(day)}#scene-{record.scene:02d}", f"{studio.reason(record)} {said}")
            for turn in turns.get(record.ref, []):
                if turn.reply is None:
                    continue
                index.add("reply", f"{studio.name(turn.agent)} · {record.ref}",
                          f"{scene_file(record.ref)}#{turn_anchor(turn.label)}",
                          " ".join(filter(None, [turn.reply.action, turn.reply.says])))
    for path, artifact in studio.artifacts.items():
        index.add("artifact", artifact.title, gallery_file(path), artifact_body(studio.workspace, artifact) or "")
    return index


def render_search(studio: Studio, frame: Frame) -> str:
    words = labels(studio.language)
    kinds = {k: words["kind_" + k] for k in ("memory", "reply", "scene", "artifact")}
    return render("search.html", frame, kinds=json.dumps(kinds, ensure_ascii=False))
