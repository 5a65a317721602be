"""What a backend is asked: the prompt for one turn of a pending scene, and the facts behind it.

The memories come from the world's retrieval strategy, the library excerpts from
``library.py``, the words from the templates in ``prompts/``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from . import claims, colleagues, day_memories, news
from .turns import ReplyRequest, Turn
from .kinds.heard import listeners
from .gatherings import declined, engagements, open_invitations, render_invitations, soonest
from .lang import phrase
from .kinds import all_kinds
from .library import bible, consult, documents, render as render_library, wants_library
from .models import Agent, Brief, Memory, World, parse_scene_ref
from .pending import Pending, require_participants
from .problems import Problem
from .reply_models import INVITATION_ANSWERS_MAX
from .prompts import PromptContext, build_prompt, uses_placeholder
from .retrieval import Selection, get_strategy, prepare, scene_query, settings_for, speaker_names
from .retrieval.heard import heard_lines, written_by
from .retrieval.render import shown_ids
from .scenes import SceneSpec
from .word_of_mouth import told_by
from .workspace import Workspace
from .writeback import brief_reaches


def selection_for(workspace: Workspace, world: World, agent: Agent, spec: SceneSpec, briefs: list[Brief], names: dict[str, str],
                  reserve: int = 0, elsewhere: tuple[Memory, ...] = ()) -> Selection:
    """The memories a scene shows; ``reserve`` characters of ``memory_budget`` are taken by other
    memory-made sections of the prompt (what the character heard lately, the day's memories),
    and the memories in ``elsewhere`` are shown there already."""
    query = scene_query(agent, spec, briefs, names)
    settings = settings_for(world, budget=max(0, world.memory_budget - reserve), now=(spec.day, spec.scene),
                            name_of=speaker_names(workspace, names))
    settings = replace(settings, elsewhere=elsewhere, whole=world.memory_budget)
    return get_strategy(world.selection).select(workspace.stream(agent.id), query, settings)


def library_for(workspace: Workspace, world: World, agent: Agent, spec: SceneSpec) -> list:
    """The library excerpts this agent's prompt shows in this scene (WORK only)."""
    if not spec.kind.consults_library or not world.library_budget:
        return []
    plan = agent.today_plan
    query = spec.topic or " ".join([plan.text, *plan.tags] if plan else [])
    return consult(workspace.root, query, world.language, world.library_budget,
                   asked=wants_library(plan.text if plan else None), warn=workspace.warn)


def said_lately(exchanges, agent: Agent, listened: bool, name_of, world: World, first_turn: bool) -> str:
    """The prompt's paragraph of what was said lately (``news``): the new lines within a quarter of
    the memory budget, and asked to be weighed in the character's first turn of a scene only."""
    lines, fresh = news.heard_recently(exchanges, agent.id, name_of, world.language, agent.last_scene,
                                       fresh_budget=world.memory_budget // 4, weigh=first_turn)
    return news.recent_section(lines, fresh, listened, world.language)


def _said_and_room(said, first_turn: bool) -> tuple[str, int]:
    """This turn's paragraph of what was said lately, and the room it takes from the memories: the
    first turn's, so every turn of a scene shows the same memories (its memory segment stays
    cached, and a claude kept for the character's next turn keeps serving it)."""
    text = said(first_turn=first_turn)
    return text, news.memory_chars(text if first_turn else said(first_turn=True))


def since_last_scene(memories: list[Memory], agent: Agent) -> list[Memory]:
    """What happened since the agent's last scene. What others brought in during that scene counts
    too: the agent was answering in parallel and could not react to it yet."""
    last = parse_scene_ref(agent.last_scene) if agent.last_scene else (0, 0)
    return [m for m in memories
            if m.scene_key and (m.scene_key > last or (m.scene_key == last and m.metadata.get("source")))]


def heard_from(exchanges, memories: list[Memory], agent_id: str, invitations: list = ()) -> list[str]:
    """Whose words the prompt shows: the lines said lately, those its memories keep or are
    (``heard.written_by``), and the hosts of the gatherings it lists."""
    kept = {speaker for m in memories for speaker, _ in heard_lines(m.metadata, m.id)}
    written = {written_by(m.metadata, m.id) for m in memories} - {None}
    hosts = {g.host for g in invitations}
    return sorted((set(news.heard_from(exchanges, agent_id)) | kept | written | hosts) - {agent_id})


def library_note(workspace: Workspace, world: World, whole: frozenset[str]) -> str:
    """What the ARRIVAL says of the library: whole in the bible above, or excerpts when asked for."""
    documents_shown = len(documents(workspace.root)) if world.library_budget else 0
    return claims.library_note(world.language, documents_shown, len(whole),
                               any(k.consults_library for k in all_kinds().values()))


def build_request(
    workspace: Workspace,
    pending: Pending,
    turn: int,
    world: World,
    agents: dict[str, Agent],
    *,
    previous_error: str | None = None,
    warnings: list[Problem] | None = None,
) -> ReplyRequest:
    """Everything a backend needs to play ``pending``'s ``turn``: the prompt and the same facts typed.

    Bad memory lines met on the way are added to ``warnings``."""
    spec = pending.spec
    agent_id = pending.turns[turn]
    require_participants(spec, agents)
    if turn == 0:  # the scene's first prompt: what every speaker's selection needs is made at once
        prepare(workspace, world, list(dict.fromkeys(pending.turns)))
    agent = agents[agent_id]
    names = {a: agents[a].name for a in agents}
    briefs = [b for b in world.briefs if brief_reaches(b, agent_id, spec)]
    newest = news.newest(workspace.stream(agent_id))
    recent = news.recent_memories(newest, spec.day)
    exchanges = news.exchanges(recent, agent_id)
    hears_me = listeners(spec, agents, world, agent_id)
    heard_recently, heard_chars = _said_and_room(partial(
        said_lately, exchanges, agent, bool(hears_me), speaker_names(workspace, names), world),
        first_turn=agent_id not in pending.turns[:turn])
    # The day's memories only where the template shows them; else each scene chooses from the whole budget.
    chosen = day_memories.shown(workspace, world, agent) if uses_placeholder(workspace.template_path, "character.md",
                                                                             day_memories.PLACEHOLDER) else None
    reflections, day = chosen or ([], [])
    selection = selection_for(workspace, world, agent, spec, briefs, names,
                              reserve=heard_chars + day_memories.chars(reflections + day, world.language),
                              elsewhere=tuple(memory for memory, _ in reflections + day))
    memories = selection.memories
    if chosen:
        memories = day_memories.in_stream_order([memory for memory, _ in reflections + day] + memories)
    if warnings is not None:
        warnings += [p for p in selection.problems if p not in warnings]
    since = since_last_scene(selection.memories, agent)
    transcript = [
        Turn(pending.turns[i], agents[pending.turns[i]].name, pending.replies[i].says)
        for i in range(turn)
        if spec.kind.in_sequence and i in pending.replies
    ]
    replan = spec.kind.replans_on_news and any(
        m.metadata.get("source") in ("brief", "artifact") for m in since
    )
    excerpts = library_for(workspace, world, agent, spec)
    # library_budget 0 is "no library": no bible either.
    shelf_text, whole = bible(workspace.root, world.language, workspace.warn) if world.library_budget else ("", frozenset())
    # A reply answers at most INVITATION_ANSWERS_MAX invitations: the prompt lists the soonest.
    waiting = open_invitations(world, agent_id, spec.day)
    invitations = soonest(waiting, INVITATION_ANSWERS_MAX)
    engaged = soonest(engagements(world, agent_id, spec.day), INVITATION_ANSWERS_MAX)
    readings = render_library(excerpts, world.language, whole)
    ctx = PromptContext(
        visible=frozenset(m.id for m in memories),
        hearing=claims.hearing(spec, agent_id, hears_me, names, world.language),
        library_note=library_note(workspace, world, whole),
        invitations=render_invitations(world.language, world, invitations, names, engaged,
                                       soonest(declined(world, agent_id, spec.day), INVITATION_ANSWERS_MAX),
                                       agent_id, {g.id: told_by(world.language, g, exchanges, agent_id, names)
                                                  for g in invitations if agent_id not in g.invited},
                                       len(waiting) - len(invitations)),
        library=readings,
        roster=colleagues.render_roster(agents, world.language),
        bible=shelf_text,
        world=world,
        agent=agent,
        spec=spec,
        selection=selection,
        names=names,
        since=since,
        briefs=briefs,
        transcript=transcript,
        turn=turn,
        final_turn=pending.is_final_turn(turn),
        replan=replan,
        heard_recently=heard_recently,
        earlier=day_memories.render(day, world.language, {m.id for m, _ in reflections + day}),
        day_reflections=day_memories.render(reflections, world.language, {m.id for m, _ in reflections}) if chosen else None,
    )
    prompt, segments = build_prompt(workspace.template_path, ctx)
    if whole and shelf_text not in prompt:
        # A workspace's own character.md from before the bible has no place for it: its excerpts
        # are shown as they are, not as pointers to a bible the prompt does not hold.
        whole = frozenset()
        readings = render_library(excerpts, world.language, whole)
        ctx = replace(ctx, library=readings, library_note=library_note(workspace, world, whole))
        prompt, segments = build_prompt(workspace.template_path, ctx)
    if previous_error:
        prompt += "\n\n" + phrase(world.language, "invalid_reply", error=previous_error) + "\n"
    return ReplyRequest(
        agent=agent,
        spec=spec,
        prompt=prompt,
        shared_prompt=segments[0],
        stable_prompt=segments[1],
        day_prompt=segments[2],
        memory_prompt=segments[3],
        default_model=world.model,
        language=world.language,
        seed=world.seed,
        memories=memories,
        since=since,
        colleagues={p: names[p] for p in spec.room_of(agent_id) if p != agent_id},
        briefs=briefs,
        transcript=transcript,
        turn=turn,
        final_turn=pending.is_final_turn(turn),
        replan=replan,
        previous_error=previous_error,
        # An excerpt of a document the bible holds whole counts as read where the prompt points to it.
        library=[e for e in excerpts if (readings in prompt if e.path in whole else e.text in prompt)],
        shown=shown_ids(memories, prompt, world.language),
        exchanges=exchanges,
        news=news.held(recent),
        remembered=frozenset(m.description for m in newest),
        listeners=hears_me,
        heard_from=heard_from(exchanges, memories, agent_id, invitations + engaged),
        invitations=invitations,
        engagements=engaged,
        roster=names,
        weekday=world.weekday(spec.day),
        profiles=colleagues.profiles(agents, world.language),
        partners=news.partners(newest, agent_id),
        common=colleagues.common_ground(newest),
    )
