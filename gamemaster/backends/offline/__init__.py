"""The offline player: plays a character without a language model.

It reads the structured half of a ``ReplyRequest`` (agent, memories, what
arrived since the last scene, colleagues, the meeting transcript), never the
prose prompt, and assembles a reply from the phrase banks in ``phrases/``.
The same request always gives the same text (see ``player``).

``player`` holds what every scene kind needs; ``arrival``, ``work``,
``meeting`` and ``reflection`` each play one kind; ``interview`` answers
``gamemaster ask``.
"""

from __future__ import annotations

import json
from typing import Any

from ..base import Capabilities, InterviewRequest, ReplyRequest
from .interview import answer
from .phrase_banks import (
    DEFAULT_LANGUAGE,
    FAMILIES,
    LANGUAGES,
    artifact_family,
    language_code,
    language_lines,
    phrase_bank,
    template_fields,
)
from .player import Player, derive_seed


class OfflineBackend:
    """Plays every character from the phrase banks; needs no network and no key."""

    name = "offline"
    # It does not read the validation error it would be asked again with, so asking again mends nothing.
    capabilities = Capabilities(interviews=True, local=True, retries=0)

    def reply(self, request: ReplyRequest) -> str:
        return json.dumps(play(request), ensure_ascii=False)

    def interview(self, request: InterviewRequest) -> str:
        return json.dumps(answer(request), ensure_ascii=False)


def play(request: ReplyRequest) -> dict[str, Any]:
    """The reply for ``request`` as a plain dict (what ``OfflineBackend.reply`` serialises)."""
    return Player(request).play()


__all__ = [
    "DEFAULT_LANGUAGE",
    "FAMILIES",
    "LANGUAGES",
    "OfflineBackend",
    "Player",
    "artifact_family",
    "derive_seed",
    "language_code",
    "language_lines",
    "phrase_bank",
    "play",
    "template_fields",
]
