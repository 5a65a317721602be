"""The studio bible is shown whole where the studio's model caches it, and named by its sections
where the model's shortest cacheable prefix is longer than the start a character's prompts share
(every call would pay it in full): Claude Opus 4.7 and Haiku 4.5 cache from 4,096 tokens, Sonnet 5
from 1,024 (``pricing.MIN_CACHEABLE``)."""

from __future__ import annotations

import json

import pytest

from gamemaster.gm import GameMaster
from gamemaster.pricing import CHARS_PER_TOKEN, minimum_cacheable

LORE = "### Lore-Bibel „Titanenasche“ (`library/lore-bibel.md`)"


def first_prompt(workspace, model: str | None, agent_model: str | None = None):
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    world["model"] = model
    workspace.world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    if agent_model:
        path = workspace.agent_path("vera")
        agent = json.loads(path.read_text(encoding="utf-8"))
        agent["model"] = agent_model
        path.write_text(json.dumps(agent, ensure_ascii=False), encoding="utf-8")
    gm = GameMaster(workspace)
    pending, _ = gm.open_next()
    return gm.build_request(pending, pending.turns.index("vera"))


def lore_whole(request) -> bool:
    lore = request.shared_prompt.split(LORE)[1].split("\n### ")[0]
    return "hier nur seine Abschnitte:" not in lore


@pytest.mark.parametrize("model", [None, "claude-sonnet-5-5", "claude-opus-5-5", "sonnet", "opus"])
def test_where_the_model_caches_the_shared_start_the_bible_is_whole(workspace, model):
    # An alias names no model id: the backend decides which model it means, so nothing is decided here.
    request = first_prompt(workspace, model)
    assert lore_whole(request)
    assert "Die Referenzbibliothek steht oben ganz in der Studio-Bibel" in request.prompt


@pytest.mark.parametrize("model", ["claude-opus-4-7", "claude-haiku-4-5"])
def test_where_the_model_would_not_cache_it_the_bible_names_its_sections(workspace, model):
    whole = first_prompt(workspace, None)
    # What makes the choice: with the bible whole, the start every call of vera's day shares is short of the minimum.
    day_start = whole.shared_prompt + whole.stable_prompt + whole.day_prompt
    assert len(day_start) // CHARS_PER_TOKEN < minimum_cacheable(model) == 4096
    request = first_prompt(workspace, model)
    assert not lore_whole(request)
    # Not "too long for here": it is left out for what it costs with this model, not for its length.
    assert LORE + "\n\nhier nur seine Abschnitte: Der Sturz des Titanen · " in request.shared_prompt
    # The prompt says so where it speaks of the library, and stays shorter by the bible.
    assert "Die Referenzbibliothek steht oben ganz" not in request.prompt
    assert len(request.prompt) < len(whole.prompt) - 3_000


def test_the_agents_own_model_counts_before_the_worlds(workspace):
    assert not lore_whole(first_prompt(workspace, "claude-sonnet-5-5", agent_model="claude-opus-4-7"))
