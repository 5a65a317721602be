"""Work products: a reply's ``artifacts``, each a file under ``gallery/<kind>/`` with its
front matter, a memory of its author, and an observation for everyone in the room."""

from __future__ import annotations

import re

from ..lang import phrase
from .base import PromptSection


def observer_importance(artifact_importance: int) -> int:
    """Colleagues who watch an artifact being finished rate it a little lower than its author."""
    return max(1, min(10, artifact_importance - 2))


def name_parts(name: str) -> list[str]:
    """'Tobias „Tobi“ Richter' → Tobias, Tobi, Richter: any of them names the author."""
    return [part for part in re.split(r"[\s„“\"'”]+", name) if len(part) > 1]


def unique(items) -> list:
    return list(dict.fromkeys(items))


def _day_date(world, day: int):
    """The calendar date of ``day`` for a gallery file, none past the last date there is."""
    try:
        return world.date(day)
    except OverflowError:
        return None


class Artifacts(PromptSection):
    name = "artifacts"
    order = 150

    def write_back(self, scene, agent_id: str, reply) -> None:
        from ..gallery import artifact_file, slug  # YAML: only where an artifact is written

        agent, spec, language = scene.updated[agent_id], scene.spec, scene.language
        for draft in reply.artifacts:
            path = scene.gallery_path(draft.kind, spec.day, slug(draft.title))
            artifact = scene.remember(
                agent_id, type="artifact", importance=draft.importance,
                description=phrase(language, "artifact", title=draft.title, summary=draft.summary),
                tags=[*draft.tags, "own-work"] if "own-work" not in draft.tags else draft.tags,
                metadata={"artifact_path": path, "kind": draft.kind, "title": draft.title})
            front = {"title": draft.title, "kind": draft.kind, "agent": agent_id, "day": spec.day, "scene": spec.ref,
                     "task": agent.today_plan.text if agent.today_plan else (spec.topic or ""), "memory": artifact.id,
                     "memories_referenced": unique(re.findall(r"\b[a-z][a-z0-9_]*-\d{3,}\b", draft.content)),
                     "tags": draft.tags}
            scene.files[path] = artifact_file(front, draft.content, _day_date(scene.found, spec.day))
            scene.artifacts.append(path)
            for observer in spec.room_of(agent_id):
                if observer == agent_id:
                    continue
                summary = draft.summary
                if not any(part in summary for part in name_parts(agent.name)):
                    summary = phrase(language, "observed_artifact", name=agent.name, summary=summary)
                scene.remember(observer, type="observation", description=summary,
                               importance=observer_importance(draft.importance), tags=unique([agent_id, *draft.tags]),
                               metadata={"source": "artifact", "author": agent_id, "artifact_path": path})


SECTION = Artifacts()
