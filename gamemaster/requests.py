"""What a backend is asked: the prompt for one turn of a pending scene, and the facts behind it.

What a turn shows beyond who and where is its sections' (``sections/``): the briefs, what was
said lately, the day's memories, the scene's memories, the library, the invitations. Each
gathers its facts, fills its placeholders of the templates in ``prompts/`` and hands its facts
typed to the backends; this module runs them in order and puts the prompt together.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from . import colleagues
from .lang import phrase
from .pending import Pending, require_participants
from .problems import Problem
from .prompts import PromptContext, build_prompt
from .retrieval import prepare, speaker_names
from .sections import TurnFacts, sections_for
from .turns import ReplyRequest, Turn
from .models import Agent, World
from .statefiles import open_stream


def build_request(
    pending: Pending,
    turn: int,
    world: World,
    agents: dict[str, Agent],
    *,
    find: Callable[[str], Path],
    load_agent: Callable[[str], Agent],
    warn: Callable[[Problem], None],
    previous_error: str | None = None,
    warnings: list[Problem] | None = None,
) -> ReplyRequest:
    """Everything a backend needs to play ``pending``'s ``turn``: the prompt and the same facts typed.

    ``find(name)``: where template ``name`` is read from (``Workspace.template_path``);
    ``load_agent(id)``: an agent ``agents`` lacks, to name a speaker (one that is gone is named by
    its id); ``warn``: where a file read past is reported. Bad memory lines met on the way are
    added to ``warnings``."""
    spec = pending.spec
    root = pending.folder.root
    require_participants(spec, agents)
    if turn == 0:  # the scene's first prompt: what every speaker's selection needs is made at once
        prepare(root, world, list(dict.fromkeys(pending.turns)))
    names = {a: agents[a].name for a in agents}
    facts = TurnFacts(pending, turn, world, agents, names, stream=open_stream(root, pending.turns[turn]),
                      name_of=speaker_names(load_agent, names), root=root, find=_once(find),
                      warn=warn, warnings=warnings)
    used = sections_for(spec.kind)
    for section in used:
        facts.gathered[section.name] = section.gather(facts)
    agent = facts.agent
    transcript = [Turn(pending.turns[i], agents[pending.turns[i]].name, pending.replies[i].says)
                  for i in range(turn) if spec.kind.in_sequence and i in pending.replies]
    ctx = PromptContext(world=world, agent=agent, spec=spec, names=facts.names, transcript=transcript, turn=turn,
                        final_turn=facts.final_turn, roster=colleagues.render_roster(agents, world.language),
                        fragments=[s.template for s in used if s.template])
    prompt, segments = _built(ctx, used, facts)
    settled = {s.name: new for s in used
               if (new := s.settle(facts.gathered[s.name], facts, prompt, segments)) is not None}
    if settled:
        facts.gathered.update(settled)
        prompt, segments = _built(ctx, used, facts)
    if previous_error:
        prompt += "\n\n" + phrase(world.language, "invalid_reply", error=previous_error) + "\n"
    fields: dict = {}
    for section in used:
        fields.update(section.request(facts.gathered[section.name], facts, prompt))
    return ReplyRequest(
        agent=agent, spec=spec, prompt=prompt, language=world.language, seed=world.seed, default_model=world.model,
        shared_prompt=segments[0], stable_prompt=segments[1], day_prompt=segments[2], memory_prompt=segments[3],
        colleagues={p: facts.names[p] for p in spec.room_of(agent.id) if p != agent.id},
        transcript=transcript, turn=turn, final_turn=facts.final_turn, previous_error=previous_error,
        roster=facts.names, weekday=world.weekday(spec.day), profiles=colleagues.profiles(agents, world.language),
        sections=dict(facts.gathered),
        **fields,
    )


def _once(find: Callable[[str], Path]) -> Callable[[str], Path]:
    """``find``, asked once per template name while one prompt is built (its fragments are looked
    for again when the prompt is built a second time, and by the sections)."""
    found: dict[str, Path] = {}

    def once(name: str) -> Path:
        if name not in found:
            found[name] = find(name)
        return found[name]

    return once


def _built(ctx: PromptContext, used: list, facts: TurnFacts) -> tuple[str, list[str]]:
    """The prompt and its cacheable segments, with what each section gathered filled in."""
    ctx.values = {key: text for s in used for key, text in s.values(facts.gathered[s.name], facts).items()}
    return build_prompt(facts.find, ctx)
