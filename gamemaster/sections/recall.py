"""The memories a scene shows: the world's retrieval strategy over the character's own stream.

The budget is what ``memory_budget`` leaves after the other memory-made sections (what was said
lately, the day's memories); what those show already is not chosen again. A memory that happened
since the character's last scene is shown there, not again in the section it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..models import Agent, Brief, Memory, World, parse_scene_ref
from .base import PromptSection, TurnFacts
from .day_memories import Kept

if TYPE_CHECKING:
    from ..retrieval import Selection
    from ..streams import MemoryStream


def selection_for(stream: "MemoryStream", world: World, agent: Agent, spec, briefs: list[Brief], names: dict[str, str],
                  name_of, reserve: int = 0, elsewhere: tuple[Memory, ...] = ()) -> "Selection":
    """The memories of ``stream`` a scene shows; ``reserve`` characters of ``memory_budget`` are
    taken by other memory-made sections of the prompt, and the memories in ``elsewhere`` are
    shown there already; ``name_of`` names the speakers of the lines they keep."""
    from ..retrieval import get_strategy, scene_query, settings_for  # the index: only to build a prompt

    query = scene_query(agent, spec, briefs, names)
    settings = settings_for(world, budget=max(0, world.memory_budget - reserve), now=(spec.day, spec.scene),
                            name_of=name_of)
    settings = replace(settings, elsewhere=elsewhere, whole=world.memory_budget)
    return get_strategy(world.selection).select(stream, query, settings)


def since_last_scene(memories: list[Memory], agent: Agent) -> list[Memory]:
    """What happened since the agent's last scene. What others brought in during that scene counts
    too: the agent was answering in parallel and could not react to it yet."""
    last = parse_scene_ref(agent.last_scene) if agent.last_scene else (0, 0)
    return [m for m in memories
            if m.scene_key and (m.scene_key > last or (m.scene_key == last and m.metadata.get("source")))]


@dataclass
class Recalled:
    selection: "Selection"
    #: Every memory the prompt shows as one of its own, in stream order (the day's too).
    memories: list[Memory]
    since: list[Memory]
    replan: bool
    kept: Kept = field(default_factory=Kept)


class Recall(PromptSection):
    name = "recall"
    order = 40

    def gather(self, turn: TurnFacts) -> Recalled:
        from .. import day_memories

        world, agent, spec = turn.world, turn.agent, turn.spec
        kept = turn.gathered.get("day_memories") or Kept()
        heard = turn.gathered.get("news")
        both = kept.reflections + kept.days
        selection = selection_for(turn.stream, world, agent, spec, turn.gathered.get("briefs", []), turn.names,
                                  turn.name_of, reserve=(heard.chars if heard else 0) + day_memories.chars(both, world.language),
                                  elsewhere=tuple(memory for memory, _ in both))
        memories = selection.memories
        if kept.chosen:
            memories = day_memories.in_stream_order([memory for memory, _ in both] + memories)
        if turn.warnings is not None:
            turn.warnings += [p for p in selection.problems if p not in turn.warnings]
        since = since_last_scene(selection.memories, agent)
        replan = spec.kind.replans_on_news and any(m.metadata.get("source") in ("brief", "artifact") for m in since)
        return Recalled(selection, memories, since, replan, kept)

    def values(self, recalled: Recalled, turn: TurnFacts) -> dict[str, str]:
        from .. import day_memories
        from ..lang import phrase
        from ..prompts import EMPTY, bullet_list
        from ..retrieval.render import memory_text

        language = turn.language
        # A memory shown out of its section brings the heard lines the selection chose with it.
        heard = {p.memory.id: p.heard for p in recalled.selection.picked}
        since = {m.id for m in recalled.since}
        # Evidence is named where the prompt shows the memory cited: anywhere for this scene's
        # memories; for the reflections, which stay the same from scene to scene, among themselves.
        visible = frozenset(m.id for m in recalled.memories) | since

        def section(*names: str, stable: bool = False) -> str:
            picked = sorted((p for name in names for p in recalled.selection.section(name, exclude=since)),
                            key=lambda p: p.offset)
            shown = {p.memory.id for p in picked} if stable else visible
            return bullet_list([memory_text(p.memory, language, p.heard, shown) for p in picked])

        kept = recalled.kept
        # With the day's reflections above, one written since stands with this scene's memories.
        if kept.chosen:
            reflections = day_memories.render(kept.reflections, language, {m.id for m, _ in kept.reflections}) or EMPTY
            relevant = section("relevant", "reflections")
        else:
            reflections, relevant = section("reflections", stable=True), section("relevant")
        return {
            "since": bullet_list([memory_text(m, language, heard.get(m.id, ()), visible) for m in recalled.since]),
            "reflections": reflections,
            "relevant": relevant,
            # The name of the relevant section before strategies existed; older workspaces' templates use it.
            "focused": relevant,
            "recent": section("recent"),
            "replan": phrase(language, "replan") if recalled.replan else "",
        }

    def request(self, recalled: Recalled, turn: TurnFacts, prompt: str) -> dict:
        from ..retrieval.render import shown_ids

        return {"memories": recalled.memories, "since": recalled.since, "replan": recalled.replan,
                "shown": shown_ids(recalled.memories, prompt, turn.language)}


SECTION = Recall()
