"""A reply is parsed and validated into its reply model exactly once; the typed reply flows to write-back."""

from __future__ import annotations

from collections import Counter

import pytest

from gamemaster.backends.offline import OfflineBackend
from gamemaster.loop import run_scene
from gamemaster.reply_models import Reply
from replies import valid_reply


@pytest.fixture
def validations(monkeypatch) -> Counter:
    """(agent, scene) → how often a reply of that agent for that scene was validated into a reply model."""
    counts: Counter = Counter()
    original = Reply.model_validate.__func__

    def counting(cls, obj, *args, **kwargs):
        if isinstance(obj, dict):
            counts[(obj.get("agent"), obj.get("scene"))] += 1
        return original(cls, obj, *args, **kwargs)

    monkeypatch.setattr(Reply, "model_validate", classmethod(counting))
    return counts


def test_each_reply_of_a_played_scene_is_validated_once(gm, validations):
    outcome = run_scene(gm, OfflineBackend())

    assert len(outcome.spec.turns) > 1 and outcome.result.written
    assert validations == Counter({(agent, outcome.spec.ref): 1 for agent in outcome.spec.turns})


def test_each_reply_handed_in_at_once_is_validated_once(gm, validations):
    pending, _ = gm.open_next()
    given = {agent: valid_reply(gm.build_request(pending, turn)) for turn, agent in enumerate(pending.turns)}

    outcome = gm.apply_pending(given)

    assert outcome.result is not None and gm.world().scene == 1
    assert validations == Counter({(agent, pending.spec.ref): 1 for agent in pending.turns})
