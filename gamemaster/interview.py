"""An interview: a character answers a question in character from what it recalls.

The question is the query: the character sees exactly what ``gamemaster recall``
shows for it. The answer names the memories it rests on; ids that were not in
the prompt are dropped, since the character could not have seen them. Nothing
is written unless the exchange is to be remembered, which goes through the
usual transaction as a conversation memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, Field, ValidationError

from .defaults import empty_list
from .backends.base import Answer, InterviewRequest
from .fsio import dump_json
from .briefs import received_ref
from .lang import join_names, phrase
from .linesize import text_too_long
from .models import Agent, Memory, World
from .problems import GamemasterError
from .prompts import bullet_list, render_template
from .replies import extract_json
from .news import newest
from .news import partners as news_partners
from .retrieval import Selection, recall, speaker_names
from .retrieval.heard import heard_lines
from .retrieval.render import memory_text
from .transaction import Transaction, commit, recover
from .workspace import Workspace

INTERVIEW_IMPORTANCE = 5


class InterviewAnswer(BaseModel):
    answer: str = Field(min_length=1)
    memories: list[str] = Field(default_factory=empty_list)


@dataclass
class Built:
    workspace: Workspace
    world: World
    agent: Agent
    question: str
    selection: Selection
    prompt: str
    #: The ids of the colleagues the character talked with lately (``partners``).
    partners: list[str] = field(default_factory=list)


@dataclass
class Result:
    answer: str
    memories: list[str]
    usage: dict | None = None
    model: str | None = None

    def to_json(self) -> dict:
        return {"answer": self.answer, "memories": self.memories}


def build(workspace: Workspace, agent_id: str, question: str) -> Built:
    if not question.strip():
        raise GamemasterError("ask: the question is empty")
    world = workspace.load_world()
    agent = workspace.load_agent(agent_id)
    selection = recall(workspace, agent_id, question, world=world)

    def section(name: str) -> str:
        picked = sorted(selection.section(name), key=lambda p: p.offset)
        return bullet_list([memory_text(p.memory, world.language, p.heard) for p in picked])

    values = {
        "studio": world.studio,
        "name": agent.name,
        "agent_id": agent.id,
        "role": agent.role,
        "persona": agent.persona,
        "question": question.strip(),
        "reflections": section("reflections"),
        "relevant": section("relevant"),
        "recent": section("recent"),
    }
    talked = partners(workspace, agent_id)
    name_of = speaker_names(workspace.load_agent)
    values.update(plans=plans_text(agent, name_of, world.language),
                  partners=partners_text([name_of(p) for p in talked], world.language))
    prompt = render_template(workspace.template_path, "ask.md", values).strip() + "\n"
    return Built(workspace, world, agent, question.strip(), selection, prompt, talked)


def plans_text(agent: Agent, name_of, language: str) -> str:
    """Today's plan and whom the character wants to talk to about what, as the prompt's lines."""
    plan = agent.today_plan
    found = [phrase(language, "ask_plan", plan=plan.text) if plan else phrase(language, "ask_no_plan")]
    for wish in agent.talk_wishes:
        people = join_names(language, [name_of(p) for p in wish.with_])
        found.append(phrase(language, "ask_wish", people=people, topic=wish.topic))
    return "\n".join(found)


def partners_text(names: list[str], language: str) -> str:
    if not names:
        return phrase(language, "ask_no_partners")
    return phrase(language, "ask_partners", people=", ".join(names))  # a ranking, not a group


def run(built: Built, backend) -> Result:
    if not backend.capabilities.interviews:
        raise GamemasterError(f"backend {backend.name} cannot answer interviews")
    # Hits best first, each followed by the neighbours it brought (an answer is often the next line).
    hits = sorted((p for p in built.selection.picked if p.matched), key=lambda p: -(p.score or 0))
    relevant: list[str] = []
    for hit in hits:
        relevant.append(hit.memory.id)
        relevant += [p.memory.id for p in built.selection.picked if p.neighbour_of == hit.memory.id]
    request = InterviewRequest(
        agent=built.agent,
        question=built.question,
        prompt=built.prompt,
        language=built.world.language,
        seed=built.world.seed,
        memories=[p.memory for p in built.selection.in_prompt_order()],
        relevant=relevant,
        default_model=built.world.model,
        heard={p.memory.id: shown_heard(built.workspace, p) for p in built.selection.picked if p.heard},
        studio=built.world.studio,
        partners=built.partners,
        names=_names(built),
    )
    answer = backend.interview(request)
    if isinstance(answer, Answer):
        result = from_text(built, answer.text)
        result.usage, result.model = answer.usage, answer.model
        return result
    return from_text(built, answer)


def _names(built: Built) -> dict[str, str]:
    name_of = speaker_names(built.workspace.load_agent)
    wished = [p for wish in built.agent.talk_wishes for p in wish.with_]
    return {person: name_of(person) for person in [*built.partners, *wished]}


def shown_heard(workspace: Workspace, picked) -> tuple[tuple[str, str], ...]:
    """The lines the prompt shows under a picked memory, whole: (the speaker's name, what they said)."""
    name_of = speaker_names(workspace.load_agent)
    return tuple((name_of(speaker), says) for speaker, says in heard_lines(picked.memory.metadata, picked.memory.id)
                 if any(" ".join(says.split())[:80] in shown for shown in picked.heard))


def partners(workspace: Workspace, agent_id: str) -> list[str]:
    """Whom the character talked with in its newest memories (``news.partners``)."""
    return news_partners(newest(workspace.stream(agent_id)), agent_id)


def from_text(built: Built, text: str) -> Result:
    """The answer in ``text``: the JSON object asked for, or failing that the prose itself."""
    shown = [p.memory.id for p in built.selection.in_prompt_order()]
    try:
        data = extract_json(text)
        parsed = InterviewAnswer.model_validate(data)
    except (ValueError, ValidationError):
        prose = text.strip()
        if not prose:
            raise GamemasterError(f"{built.agent.id}: the answer is empty") from None
        cited = [i for i in dict.fromkeys(re.findall(r"\b[a-z][a-z0-9_]*-\d{3,}\b", prose)) if i in shown]
        return Result(prose, cited)
    return Result(parsed.answer.strip(), [i for i in dict.fromkeys(parsed.memories) if i in shown])


def remember(workspace: Workspace, built: Built, result: Result) -> str:
    """Keep the exchange as the character's conversation memory; returns its id."""
    for name, text in (("question", built.question), ("answer", result.answer)):
        too_long = text_too_long(text)
        if too_long:
            raise GamemasterError(f"{built.agent.id}: {name}: {too_long}; nothing was remembered")

    with workspace.lock:
        recover(workspace)
        world = workspace.load_world()
        agent = workspace.load_agent(built.agent.id)
        stream = workspace.stream(agent.id)
        memory = Memory(
            id=f"{agent.id}-{stream.next_number():03d}",
            created=received_ref(workspace, world),
            type="conversation",
            description=phrase(world.language, "interview", question=built.question, answer=result.answer),
            importance=INTERVIEW_IMPORTANCE,
            tags=["creative-director", "interview"],
            metadata={"source": "interview", "question": built.question, "answer": result.answer, "rests_on": result.memories},
        )
        agent.importance_accumulator += memory.importance
        transaction = Transaction(label=f"interview {agent.id}")
        transaction.add_memory(agent.id, memory)
        transaction.files[workspace.rel(workspace.agent_path(agent.id))] = dump_json(agent.dump())
        commit(workspace, transaction)
        return memory.id
