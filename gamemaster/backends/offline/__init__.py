"""The offline player: plays a character without a language model.

It reads the structured half of a ``ReplyRequest`` (agent, memories, what
arrived since the last scene, colleagues, the meeting transcript), never the
prose prompt, and assembles a reply from the phrase banks in ``phrases/``.
The same request always gives the same text (see ``player``).

``player`` holds what every scene kind needs; ``composers`` says which of
``arrival``, ``work``, ``meeting``, ``event`` and ``reflection`` plays which kind; ``interview`` answers ``gamemaster ask``.
"""

from __future__ import annotations

import json
from ..base import Capabilities, InterviewRequest, ReplyRequest
from .composers import COMPOSERS, play, register
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


__all__ = [
    "COMPOSERS",
    "DEFAULT_LANGUAGE",
    "FAMILIES",
    "LANGUAGES",
    "OfflineBackend",
    "Player",
    "artifact_family",
    "derive_seed",
    "register",
    "language_code",
    "language_lines",
    "phrase_bank",
    "play",
    "template_fields",
]
