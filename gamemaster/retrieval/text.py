"""Words for lexical retrieval: the same pipeline for memories and queries.

Unicode-aware lowercasing, then each text by its own language: a studio writes
English tags and imports English lines into a German world, so a text whose
function words are English is stemmed with the English Snowball stemmer and one
whose function words are German with the German one (which also maps ASCII
spellings onto umlauts: ``tuerme`` and ``türme`` both become ``turm``,
``strasse`` and ``straße`` both ``strass``); a text that shows neither takes
the studio's language. Stopwords of German and English are left out of both.
A query may be in another language than the memory it asks for, so it is
analysed both ways (``Analyzer.query_terms``).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache
from itertools import repeat
from typing import Iterable

from ..stems import STORE as STEMS
from ..topics import STOPWORDS as FILLER

#: Bumped whenever the pipeline changes, so indexes built with an older one are rebuilt.
#: 2: each text stemmed by its own language, more English function words left out.
PIPELINE_VERSION = 2

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STEMMERS = {"de": "german", "en": "english"}

#: Function words, left out of every analysed text: the topic filler words (``topics.py``,
#: the words that would match nearly every memory) and the rest of both languages' function words.
STOPWORDS = FILLER | frozenset(
    """
    allem allen aller alles als am an ander andere anderem anderen anderer anderes auf aus bei
    beim bin bis bist da dabei damit dann das dem den der des dessen deshalb dich die diesem
    diesen dir dort du durch ein er es etwas euch euer eure gab gar gegen gewesen hab hat hatte
    hatten hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in ins ist ja jede
    jedem jeden jeder jedes jetzt kann kein keine keinem keinen keiner konnte können könnte man
    manche meinem meinen meiner mir mit muss musste nichts nun nur ob ohne schon seinem seinen
    seiner sie so solche soll sollte sondern sonst um und uns unter vom von vor war waren warum
    was weg weil welche welchem welchen welcher welches wer werde wie wir wo woher wohin zu zum
    zur zwar zwischen gestern morgen gerade wurde wurden worden a above after again against all
    am an and any are as at be because been before being below between both but by can could did
    do does doing done down during each few for further had has having he her here hers herself
    him himself his how i if in is it its itself me most my myself no nor not now of off on once
    only or other our ours ourselves out own same she should so such than the theirs themselves
    these those through to too under until up very was we were where which while who whom why
    would you your yours yourself yourselves get got really said say says tell told thing things
    yeah oh well
    """.split()
)
#: Function words that tell a text's language; the German ones are stopwords above, and so
#: are the English ones but for the few added here: common verbs and adverbs of chat, which
#: otherwise win ranks on their own ("go", "since", "long", "first"). They are stopwords in
#: every text, as the others are: a short English line with no function word is analysed in
#: the studio's language. Not among them: English words that are German words too (``kind``,
#: ``still``).
_GERMAN = frozenset("der die das und ist nicht ich ein eine mit auf für dass den dem sich es war hat wir sie".split())
_ENGLISH = frozenset("the and is not a an with on for that it was has we they you of to in i my".split())
#: A function word → +1 German, -1 English (the two sets share no word).
_VOTES = {**{word: -1 for word in _ENGLISH}, **{word: 1 for word in _GERMAN}}
STOPWORDS = STOPWORDS | frozenset(
    """
    go goes going went gone come came bring brought since long first lot lots like also even
    much many maybe sure okay ok hey hi wow yes know think thought feel felt make made want
    wanted way time times day days back good great
    """.split()
)


def fold(text: str) -> str:
    """Lowercase, compatibility-normalised text (``ﬁ`` → ``fi``, ``Ä`` → ``ä``)."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.casefold()


#: A Latin-1 byte → itself if its character is a word character (as ``_WORD`` has it), else a space.
_LATIN1_WORD_BYTES = bytes(i if chr(i).isalnum() else 0x20 for i in range(256))
#: Punctuation outside Latin-1 that common text has: taken out first, so that the text fits in Latin-1.
_WIDE_PUNCTUATION = ("\u2013", "\u2014", "\u201e", "\u201c", "\u201d", "\u201a", "\u2018", "\u2019", "\u2026")


def tokens(text: str) -> list[str]:
    """``_WORD.findall(fold(text))``: the text's words, lowercased.

    Every memory of a cold index build goes through this (``tokens_many``). A text that fits in
    Latin-1 (German, English, most of Western Europe, once dashes and typographic quotes are
    spaces) is split by a byte table in C, some twice as fast as the regular expression; the
    words are the same (tests/test_index_build.py checks every character of Latin-1)."""
    return _split_folded(_unpunctuated(fold(text)))


def _unpunctuated(text: str) -> str:
    for mark in _WIDE_PUNCTUATION:
        if mark in text:
            text = text.replace(mark, " ")
    return text


def _split_folded(text: str) -> list[str]:
    """The words of a folded text without wide punctuation."""
    try:
        latin1 = text.encode("latin-1")
    except UnicodeEncodeError:
        return _WORD.findall(text)
    return latin1.translate(_LATIN1_WORD_BYTES).decode("latin-1").split()


#: Between the texts ``tokens_many`` splits at once: a control character, which folding neither
#: makes nor takes away and normalisation composes with nothing; every table below keeps it.
_SEPARATOR = "\x01"


def _latin1_folded() -> tuple[bytes, dict[str, str]]:
    """What folding and splitting into words make of each Latin-1 character: a byte table (the
    folded character if it is a word character, else a space), and the few characters that
    fold into more than one character (``ß`` → ``ss``, ``½`` → ``1 2``), with their words."""
    table, apart = bytearray(256), {}
    for code in range(256):
        words = "".join(c if c.isalnum() else " " for c in fold(chr(code)))
        if not words.strip():
            table[code] = 0x20
        elif len(words) == 1 and ord(words) < 256:
            table[code] = ord(words)
        else:
            apart[chr(code)] = words
    table[ord(_SEPARATOR)] = ord(_SEPARATOR)
    return bytes(table), apart


_LATIN1_FOLDED_WORD_BYTES, _LATIN1_FOLDED_APART = _latin1_folded()
_LATIN1_WORD_BYTES_KEEPING_SEPARATOR = bytes(0x01 if i == 0x01 else byte for i, byte in enumerate(_LATIN1_WORD_BYTES))


#: Texts ``joined_terms_many`` splits into words at once: enough to save the calls per text, few
#: enough that their words are still in the processor's cache when they are looked up.
_AT_ONCE = 256


def tokens_many(texts: list[str]) -> list[list[str]]:
    """``[tokens(text) for text in texts]``, all texts folded and split at once: a cold index
    build passes the memories of a stream a few hundred at a time.

    Folding goes character by character, and normalisation does not reach across the separator:
    joined and split again, each text is what it is alone. A Latin-1 character folds on its own
    too (none of them is a combining mark), so texts in Latin-1 are folded by a byte table; the
    others are folded as ``fold`` does. If a text holds the separator, each is analysed alone."""
    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) != len(texts) - 1:
        return [tokens(text) for text in texts]
    # Wide punctuation folds into punctuation: a space before folding or after is the same.
    plain = _unpunctuated(joined)
    for mark, words in _LATIN1_FOLDED_APART.items():
        if mark in plain:
            plain = plain.replace(mark, words)
    try:
        latin1 = plain.encode("latin-1")
    except UnicodeEncodeError:
        return _tokens_folded_at_once(joined)
    return [part.split() for part in latin1.translate(_LATIN1_FOLDED_WORD_BYTES).decode("latin-1").split(_SEPARATOR)]


def _tokens_folded_at_once(joined: str) -> list[list[str]]:
    """``tokens_many`` of texts joined by the separator, some of which are not in Latin-1."""
    joined = _unpunctuated(fold(joined))
    try:
        latin1 = joined.encode("latin-1")
    except UnicodeEncodeError:
        return [_split_folded(part) for part in joined.split(_SEPARATOR)]
    parts = latin1.translate(_LATIN1_WORD_BYTES_KEEPING_SEPARATOR).decode("latin-1").split(_SEPARATOR)
    return [part.split() for part in parts]


def words(text: str) -> list[str]:
    """Lowercased words, without stopwords and single characters."""
    return [w for w in tokens(text) if len(w) > 1 and w not in STOPWORDS]


def detect(found: list[str], default: str) -> str:
    """``de`` or ``en`` by the text's function words; ``default`` when they do not tell."""
    # German words minus English ones, counted in C in one pass: this runs for every memory of a cold build.
    balance = sum(map(_VOTES.get, found, repeat(0)))
    if balance < 0:
        return "en"
    if balance > 0:
        return "de"
    return default


class Analyzer:
    """Turns text into index terms, each text by its language; each distinct word is analysed once."""

    def __init__(self, language: str):
        self.language = language
        base = (language or "").split("-")[0].lower()
        #: Only German and English are told apart (the stemmers there are); another studio language stays as it is.
        self._detects = base in _STEMMERS
        self._by_language = {base: _Words(base)}
        if self._detects:
            for other in _STEMMERS:
                self._by_language.setdefault(other, _Words(other))
        self._base = base

    def stem(self, word: str) -> str:
        return self._by_language[self._base].stem(word)

    @property
    def languages(self) -> list[str]:
        """The languages a text may be analysed in, the studio's first."""
        return [self._base, *(lang for lang in self._by_language if lang != self._base)]

    def words_for(self, language: str) -> "_Words":
        return self._by_language.get(language) or self._by_language[self._base]

    def language_of(self, text: str) -> str:
        """The language ``terms`` analyses ``text`` in."""
        return detect(tokens(text), self._base) if self._detects else self._base

    def terms(self, text: str) -> list[str]:
        found = tokens(text)
        language = detect(found, self._base) if self._detects else self._base
        return self._by_language[language].terms(found)

    def joined_terms(self, text: str) -> str:
        """``" ".join(self.terms(text))``, as the index stores a memory's terms."""
        found = tokens(text)
        language = detect(found, self._base) if self._detects else self._base
        return self._by_language[language].joined(found)

    def joined_terms_many(self, texts: list[str]) -> list[str]:
        """``[self.joined_terms(text) for text in texts]``, the texts split into words at once."""
        words, base, detects, joined = self._by_language, self._base, self._detects, []
        for start in range(0, len(texts), _AT_ONCE):
            joined += [words[detect(found, base) if detects else base].joined(found)
                       for found in tokens_many(texts[start : start + _AT_ONCE])]
        return joined

    def query_terms(self, text: str) -> list[str]:
        """The text's terms in every language a memory may be analysed in: the query's
        language may differ from the memory's."""
        found = tokens(text)
        return list(dict.fromkeys(t for words in self._by_language.values() for t in words.terms(found)))

    def tag_terms(self, tags: Iterable[str]) -> list[str]:
        """Tags are compound keywords (``bone-towers``): each part is a term."""
        return self.terms(" ".join(tags))


class _Words:
    """Words → terms for one language."""

    def __init__(self, language: str):
        self._language = language
        #: Stems of earlier runs and of this one (``stems.py``); None: no stemmer for the language.
        self._stems: dict[str, str] | None = {} if language in _STEMMERS else None
        self._stems_read = False
        #: lowercased word → its term, or "" for a word that is no term (stopword, one letter)
        self._terms: dict[str, str] = {}

    def stem(self, word: str) -> str:
        stems = self._stems
        if stems is None:
            return word
        if not self._stems_read:  # the stems file is read when the first word is stemmed
            self._stems = stems = STEMS.table(self._language)
            self._stems_read = True
        found = stems.get(word)
        if found is None:
            found = stems[word] = _stemmer(self._language)(word)
            STEMS.added += 1
        return found

    def _term(self, word: str) -> str:
        term = "" if len(word) < 2 or word in STOPWORDS else self.stem(word)
        self._terms[word] = term
        return term

    def terms(self, found: list[str]) -> list[str]:
        known = self._terms
        try:
            return [t for t in map(known.__getitem__, found) if t]
        except KeyError:  # a word not met before: analyse the new ones, then look up again
            for word in found:
                if word not in known:
                    self._term(word)
            return [t for t in map(known.__getitem__, found) if t]

    def joined(self, found: list[str]) -> str:
        """``" ".join(self.terms(found))``, joined in C."""
        known = self._terms
        try:
            return " ".join(filter(None, map(known.__getitem__, found)))
        except KeyError:
            self.terms(found)  # analyses the words not met before
            return " ".join(filter(None, map(known.__getitem__, found)))


@lru_cache(maxsize=16384)  # a selection compares the tags of every memory it takes
def tag_key(tag: str) -> str:
    """How tags are compared: folded, with spaces and underscores as hyphens."""
    return re.sub(r"[\s_]+", "-", fold(tag).strip()).strip("-")


def phrase_tags(text: str) -> list[str]:
    """Tags a query can name in words: ``bone towers`` asks for ``bone-towers`` too.

    Only phrases of two or three words: one word that happens to be a tag (often a
    person's name) is an ordinary word match, not the topic.
    """
    parts = tokens(text)
    found = []
    for size in (2, 3):
        for start in range(len(parts) - size + 1):
            found.append("-".join(parts[start : start + size]))
    return found


@lru_cache(maxsize=None)
def _stemmer(language: str):
    name = _STEMMERS.get((language or "").split("-")[0].lower())
    if name is None:
        return None
    import snowballstemmer

    # A Snowball stemmer keeps the word it is stemming in the object, and a scene asks its
    # characters from threads: each thread stems with its own.
    own = threading.local()

    def stem(word: str) -> str:
        stem_word = getattr(own, "stem_word", None)
        if stem_word is None:
            stem_word = own.stem_word = snowballstemmer.stemmer(name).stemWord
        return stem_word(word)

    return stem


@lru_cache(maxsize=8)
def analyzer(language: str) -> Analyzer:
    return Analyzer(language)
