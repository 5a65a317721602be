"""A talk wish its maker still holds the next morning keeps its age: wishes are served oldest first,
and one made again every morning would never be old enough to be served in a busy studio."""

from __future__ import annotations

import json

from replies import valid_reply
from test_news import plant
from gamemaster.backends.offline import OfflineBackend
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.kinds import get_kind
from gamemaster.loop import run_scene
from gamemaster.models import TalkWish
from gamemaster.scenes import Force

NEWS = "Leo soll ab Montag die Playtests für den Publisher leiten."


def wish(with_: list[str], topic: str, created: str) -> TalkWish:
    return TalkWish.model_validate({"with": with_, "topic": topic, "created": created})


def test_a_new_mornings_wishes_replace_yesterdays_and_one_made_again_keeps_its_age():
    yesterday = [wish(["leo"], "Orientierung", "day-001/scene-01"), wish(["emre"], "Lore", "day-001/scene-01")]
    today = [wish(["leo"], "Orientierung", "day-002/scene-01"), wish(["nami"], "Ilka", "day-002/scene-01"),
             wish(["emre", "leo"], "Lore", "day-002/scene-01")]
    merged = get_kind("ARRIVAL").merge_talk_wishes(yesterday, today)
    assert [(w.with_, w.topic, w.created) for w in merged] == [
        (["leo"], "Orientierung", "day-001/scene-01"),  # the same wish: as old as when first made
        (["nami"], "Ilka", "day-002/scene-01"),
        (["emre", "leo"], "Lore", "day-002/scene-01"),  # other people: a new wish
    ]


def test_the_offline_player_still_wanting_to_tell_someone_the_same_keeps_the_wish_it_made(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))  # day 1's ARRIVAL
    plant(workspace, "vera", NEWS, "day-001/scene-01")
    path = workspace.agent_path("vera")
    vera = json.loads(path.read_text(encoding="utf-8"))
    # The wish Vera made for it on day 1 and did not get to that day.
    vera["talk_wishes"] = [{"with": ["leo"], "topic": "Neues: Leo soll ab Montag die Playtests für den…",
                            "tags": ["news"], "created": "day-001/scene-02"}]
    path.write_text(json.dumps(vera, ensure_ascii=False), encoding="utf-8")

    run_scene(gm, OfflineBackend(), Force(type="ARRIVAL"))  # day 2

    wishes = json.loads(path.read_text(encoding="utf-8"))["talk_wishes"]
    assert wishes[0] == {"with": ["leo"], "topic": "Neues: Leo soll ab Montag die Playtests für den…",
                         "tags": ["news"], "created": "day-001/scene-02"}
