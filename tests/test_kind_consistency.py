"""A kind cannot be quietly inconsistent: what it allows and requires is what its prompts ask for,
what the contract says and what its replies are checked against, and the offline player's reply
to any registered kind satisfies that kind's own checks.

TEA allows a conversation and says nothing else about it (no contract word, no final-turn words,
no ``requires_last``); COFFEE requires a field of its own reply model (``mood``) and has no
composer in the offline player. Both are put into the registry of this process only.
"""

from __future__ import annotations

import pytest
from pydantic import Field

import gamemaster.kinds as kinds
import gamemaster.sections as sections
from gamemaster.backends.offline import OfflineBackend
from gamemaster.create import init_workspace
from gamemaster.events import schedule_event
from gamemaster.gm import GameMaster
from gamemaster.kinds import SceneKind, all_kinds
from gamemaster.problems import GamemasterError
from gamemaster.replies import Reply, ReplyError
from gamemaster.scene_spec import Force
from gamemaster.schedule import Gathering

TASK = "## Deine Aufgabe ($scene_ref)\n\nThema: $topic\n\n$transcript\n\n$final_turn\n"


class Tea(SceneKind):
    name = "TEA"
    in_sequence = True
    min_participants = 2
    allows = frozenset({"conversation"})


class CoffeeReply(Reply):
    mood: str = Field("", max_length=40, description="How the character feels.")


class Coffee(SceneKind):
    name = "COFFEE"
    reply_model = CoffeeReply
    requires = frozenset({"mood"})


class Insisting(SceneKind):
    name = "INSISTING"
    requires = frozenset({"insights"})  # a section it does not allow


class Broken(SceneKind):
    name = "BROKEN"
    requires = frozenset({"mood"})  # Reply has no such field


@pytest.fixture
def studio(tmp_path, monkeypatch):
    """The bundled studio, its registry holding TEA and COFFEE besides the built-in kinds."""
    registry = dict(all_kinds())
    registry.update({"TEA": Tea(), "COFFEE": Coffee()})
    monkeypatch.setattr(kinds, "_found", registry)
    sections.forget()
    workspace = init_workspace(tmp_path / "studio")
    for name in ("tea.md", "coffee.md"):
        (workspace.root / "prompts" / name).write_text(TASK, encoding="utf-8")
    gm = GameMaster(workspace)
    pending, _ = gm.open_next()  # the day's ARRIVAL, played and written back
    for turn, agent in enumerate(pending.turns):
        gm.submit_reply(agent, OfflineBackend().reply(gm.build_request(pending, turn)))
    gm.apply_pending()
    return gm


def force(gm: GameMaster, kind: str, participants: list[str] | None = None):
    pending, _ = gm.open_next(Force(type=kind, participants=participants or ["vera", "emre"]))
    assert pending.spec.type == kind
    return pending


def test_a_kind_that_allows_a_conversation_is_named_in_the_contract_and_asked_for_it(studio):
    pending = force(studio, "TEA")
    first, last = (studio.build_request(pending, turn).prompt for turn in (0, len(pending.turns) - 1))
    # The contract's rule names it with the kinds that have words of their own.
    assert "`conversation` (nur im letzten Beitrag eines MEETING, einer ENCOUNTER oder einer TEA-Szene)" in first
    # One turn each: every turn is the speaker's last, and asks for the summary its check demands.
    assert "Das ist dein letzter Beitrag in dieser Szene (TEA): fasse sie im Feld `conversation`" in last
    assert "Antwortfelder in dieser Szene (TEA): Pflicht: `agent`, `scene`, `action`, `conversation`." in last
    reply = {"agent": pending.turns[0], "scene": pending.spec.ref, "action": "Ich trinke Tee.", "says": "Schön hier."}
    with pytest.raises(ReplyError) as refused:
        studio.submit_reply(pending.turns[0], reply)
    assert "conversation: required in TEA scenes in the speaker's last turn" in str(refused.value)


def test_the_offline_reply_to_a_kind_without_a_composer_fills_what_it_requires(studio):
    pending = force(studio, "COFFEE")
    for turn, agent in enumerate(pending.turns):
        _, reply = studio.submit_reply(agent, OfflineBackend().reply(studio.build_request(pending, turn)))
        assert reply.mood  # the least its schema accepts that says something
    assert studio.apply_pending().result is not None


@pytest.mark.parametrize("kind", [*all_kinds(), "TEA", "COFFEE"])
def test_every_registered_kind_takes_the_offline_reply_it_is_given(studio, kind):
    workspace = studio.workspace
    if kind == "EVENT":  # played when one is due, as a GATHERING is when one is set
        schedule_event(workspace, "Der Publisher ruft an.", day=1)
    if kind == "GATHERING":
        world = workspace.load_world()
        world.gatherings_issued += 1
        world.gatherings.append(Gathering(id="gathering-001", host="vera", what="Quittenfest", day=1, slot="morning",
                                          place="Innenhof", invited=["emre", "nami"], created="day-001/scene-01",
                                          answers={"emre": "accepted", "nami": "accepted"}))
        workspace.save_world(world)
        studio = GameMaster(workspace)
    most = kinds._found[kind].max_participants or 3
    pending = force(studio, kind, ["vera", "emre", "nami"][: min(3, most)])
    for turn, agent in enumerate(pending.turns):
        studio.submit_reply(agent, OfflineBackend().reply(studio.build_request(pending, turn)))  # no ReplyError
    assert studio.apply_pending().result is not None


def test_a_kind_that_requires_a_field_no_reply_has_is_one_line_naming_it(monkeypatch):
    monkeypatch.setattr(kinds, "_found", {**all_kinds(), "BROKEN": Broken()})
    sections.forget()
    with pytest.raises(GamemasterError) as error:
        sections.reply_model_for(Broken())
    assert str(error.value) == "scene kind BROKEN: requires mood, which its reply model Reply has no field for"


def test_a_kind_that_requires_a_section_it_does_not_allow_is_one_line_naming_it():
    with pytest.raises(GamemasterError) as error:
        sections.reply_model_for(Insisting())
    assert str(error.value) == "scene kind INSISTING: requires insights, which it does not allow"
