"""Agent files as studios write them, repaired into ``state/agents/{id}.json``.

Fields the toolkit has no place for (``position``, ``current_task``, ``mood``,
``last_reflection``…) stay where they are: the model keeps them. What is missing and
cannot be derived for certain (a role, a persona) is drafted from what the file and the
character's memories say, listed in the file's ``drafted`` field and marked in the report.
"""

from __future__ import annotations

from collections import Counter

from pydantic import ValidationError

from ..fsio import dump_json
from ..ids import ARTIFACT_KIND_RE, is_agent_id
from ..models import Agent, DayMemories, Memory
from ..problems import describe_validation_error
from .drift import Finding, canonical_ref, is_scene_ref, keep_under, shorten

#: An item of a list plan that is finished: ``DONE: …``, ``[x] …``, ``✓ …``.
DONE_PREFIXES = ("done:", "erledigt:", "[x]", "✓", "✔")
#: Tags too general to say what someone does.
_GENERIC_TAGS = {"kickoff", "own-work", "creative-director", "plan", "feierabend"}

_TEXTS = {
    "de": {
        "role": "Entwurf: Rolle noch offen; Arbeitsschwerpunkte laut Erinnerungen: {topics}",
        "role_unknown": "Entwurf: Rolle noch offen",
        "persona_role": "{name} arbeitet im Studio als {role}.",
        "persona_name": "{name} arbeitet im Studio.",
        "task": "Zuletzt beschäftigt mit: {task}.",
        "mood": "Stimmung: {mood}.",
        "memories": "Aus den ersten Erinnerungen: {items}",
    },
    "en": {
        "role": "Draft: role still open; focus according to the memories: {topics}",
        "role_unknown": "Draft: role still open",
        "persona_role": "{name} works at the studio as {role}.",
        "persona_name": "{name} works at the studio.",
        "task": "Lately busy with: {task}.",
        "mood": "Mood: {mood}.",
        "memories": "From the first memories: {items}",
    },
}


def repair_agent(data: dict, stem: str, memories: list[Memory], language: str, finding: Finding) -> Agent | None:
    """The agent this file means, or None (errors in ``finding``) if it cannot be read as one."""
    texts = _TEXTS.get(language, _TEXTS["en"])
    data = dict(data)
    if "id" not in data:
        if not is_agent_id(stem):
            finding.error(f"no id, and the file name {stem!r} is not an agent id",
                          "left as it is; rename the file to an id (lower-case letters, digits, _)")
            return None
        data["id"] = stem
        finding.drift("no id", f"id {stem!r} from the file name")
    elif data["id"] != stem:
        finding.error(f"id {data['id']!r} does not match the file name {stem!r}",
                      "left as it is (memory ids and evidence name the character); rename the file or the id by hand")
        return None
    drafted = list(data.get("drafted") or [])
    if not isinstance(data.get("name"), str) or not data["name"].strip():
        _keep_original(data, "name")
        data["name"] = stem.replace("_", " ").title()
        drafted.append("name")
        finding.drift("no name", f"name {data['name']!r} from the file name", draft=True)
    if not isinstance(data.get("role"), str) or not data["role"].strip():
        _keep_original(data, "role")
        data["role"] = _draft_role(memories, texts)
        drafted.append("role")
        finding.drift("no role", f"role drafted: {shorten(data['role'], 90)!r}", draft=True)
    if not isinstance(data.get("persona"), str) or not data["persona"].strip():
        _keep_original(data, "persona")
        data["persona"] = _draft_persona(data, memories, texts, role_known="role" not in drafted)
        drafted.append("persona")
        finding.drift("no persona", f"persona drafted from the file and the first memories: {shorten(data['persona'], 90)!r}",
                      draft=True)
    if drafted:
        data["drafted"] = list(dict.fromkeys(drafted))
    _plan(data, finding)
    _shapes(data, finding)
    try:
        return Agent.model_validate(data)
    except ValidationError as exc:
        finding.error(describe_validation_error(exc))
        return None


def agent_file(agent: Agent) -> str:
    return dump_json(agent.dump())


def _keep_original(data: dict, name: str) -> None:
    if name in data:
        keep_under(data, f"original_{name}", data.pop(name))


def _plan(data: dict, finding: Finding) -> None:
    plan = data.get("today_plan")
    if isinstance(plan, str):
        if plan.strip():
            data["today_plan"] = {"text": plan.strip()}
            finding.drift("today_plan is a string", "today_plan {text: …} with that text")
        else:
            data["today_plan"] = None
            finding.drift("today_plan is empty text", "today_plan null")
        return
    if not isinstance(plan, list):
        return
    items = [item if isinstance(item, str) else str(item) for item in plan]
    open_items = [item.strip() for item in items if item.strip() and not _done(item)]
    if not items:
        data["today_plan"] = None
        finding.drift("today_plan is an empty list", "today_plan null")
        return
    text = "; ".join(open_items) or "; ".join(_without_done(item) for item in items if item.strip())
    data["today_plan"] = {"text": text, "items": items}
    done = len(items) - len(open_items)
    source = "the open items" if open_items else "the items, all done"
    finding.drift(f"today_plan is a list of {len(items)} item(s), {done} done",
                  f"today_plan.text from {source}; the whole list kept as today_plan.items")


def _done(item: str) -> bool:
    return item.strip().lower().startswith(DONE_PREFIXES)


def _without_done(item: str) -> str:
    text = item.strip()
    for prefix in DONE_PREFIXES:
        if text.lower().startswith(prefix):
            return text[len(prefix):].strip()
    return text


def _shapes(data: dict, finding: Finding) -> None:
    accumulator = data.get("importance_accumulator")
    if isinstance(accumulator, float) or isinstance(accumulator, str) and accumulator.strip().lstrip("-").isdigit():
        data["importance_accumulator"] = max(int(float(accumulator)), 0)
        finding.drift(f"importance_accumulator {accumulator!r}", f"importance_accumulator {data['importance_accumulator']}")
    elif isinstance(accumulator, int) and not isinstance(accumulator, bool) and accumulator < 0:
        data["importance_accumulator"] = 0
        finding.drift(f"importance_accumulator {accumulator}", "importance_accumulator 0")
    elif accumulator is None and "importance_accumulator" in data:
        del data["importance_accumulator"]
        finding.drift("importance_accumulator null", "importance_accumulator 0")
    for name in ("last_scene", "last_acted"):
        value = data.get(name)
        if value is not None and not is_scene_ref(value):
            key = keep_under(data, f"original_{name}", value)
            data[name] = canonical_ref(value)
            finding.drift(f"{name} {value!r}", f"{name} {data[name]}; the original kept as {key}")
    if data.get("day_memories") is not None:
        try:
            DayMemories.model_validate(data["day_memories"])
        except ValidationError as exc:
            # Derived: the memories a day's prompts keep in view, chosen again at the next plan.
            del data["day_memories"]
            finding.drift(f"day_memories: {describe_validation_error(exc)}",
                          "day_memories dropped (chosen again at the character's next plan)")
    kind = data.get("artifact_kind")
    if kind is not None and not (isinstance(kind, str) and ARTIFACT_KIND_RE.match(kind)):
        key = keep_under(data, "original_artifact_kind", data.pop("artifact_kind"))
        finding.drift(f"artifact_kind {kind!r} is no folder name", f"artifact_kind notes; the original kept as {key}")


def _draft_role(memories: list[Memory], texts: dict) -> str:
    counts = Counter(tag for memory in memories for tag in memory.tags if tag not in _GENERIC_TAGS)
    topics = [tag for tag, _ in counts.most_common(3)]
    return texts["role"].format(topics=", ".join(topics)) if topics else texts["role_unknown"]


def _draft_persona(data: dict, memories: list[Memory], texts: dict, role_known: bool) -> str:
    parts = [texts["persona_role" if role_known else "persona_name"].format(name=data["name"], role=data["role"])]
    if isinstance(data.get("current_task"), str) and data["current_task"].strip():
        parts.append(texts["task"].format(task=data["current_task"].strip()))
    if isinstance(data.get("mood"), str) and data["mood"].strip():
        parts.append(texts["mood"].format(mood=data["mood"].strip()))
    first = [memory.description for memory in memories if memory.type != "reflection"][:3]
    if first:
        parts.append(texts["memories"].format(items=" ".join(f"„{shorten(text, 200)}“" for text in first)))
    return " ".join(parts)
