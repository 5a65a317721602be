"""``lines.says_most_of`` is the near-duplicate rule as its docstring states it, however it counts."""

from __future__ import annotations

import random

from gamemaster.retrieval.lines import NEAR_MIN_TERMS, NEAR_SHARE, says_most_of


def _as_stated(bag: frozenset[str], other: frozenset[str]) -> bool:
    same_speaker = any(term[:1] == "\0" and term in other for term in bag)
    return same_speaker and len(bag) > NEAR_MIN_TERMS and len(bag & other) >= NEAR_SHARE * len(bag | other)


def test_near_duplicates_are_what_the_rule_says_on_random_lines():
    rng = random.Random(40)
    words = [f"w{n}" for n in range(14)]
    speakers = ["\0vera", "\0leo", "\0None"]
    for _ in range(20_000):
        bags = [frozenset(rng.sample(words, rng.randint(0, 10))) | {rng.choice(speakers)} for _ in range(2)]
        assert says_most_of(*bags) == _as_stated(*bags), bags
    line = frozenset({"turm", "alt", "müde", "ebene", "zwei", "\0vera"})
    assert says_most_of(line, line | {"neu"}) and not says_most_of(line, (line - {"\0vera"}) | {"\0leo"})
