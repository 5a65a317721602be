"""The day summary (logbook): scenes, highlights, artifacts, reflections, open threads."""

from __future__ import annotations

from pathlib import Path

from . import jsontext
from .fsio import atomic_write_json, atomic_write_text
from .lang import join_names, phrase, short_name
from .models import Agent, World
from .records import DaySummary, SceneLine, SceneRecord, read_record
from .scene_files import glob
from .workspace import Workspace

HIGHLIGHTS = 5


def day_records(workspace: Workspace, day: int) -> list[SceneRecord]:
    """The day's scenes that were written back, in order."""
    paths = glob(workspace.scenes, f"{workspace.day_dir(day).name}/scene-*/scene.json")
    records = [read_record(workspace, path, SceneRecord) for path in paths]
    return [r for r in records if r.applied]


def summarize_day(workspace: Workspace, world: World, agents: dict[str, Agent]) -> DaySummary:
    records = day_records(workspace, world.day)
    written = [w for r in records for w in r.written or []]
    own = [w for w in written if w.type != "reflection"]
    highlights = sorted(own, key=lambda w: -w.importance)[:HIGHLIGHTS]
    threads = []
    for agent in agents.values():
        for wish in agent.talk_wishes:
            names = join_names(world.language, [short_name(agents[a].name) for a in wish.with_ if a in agents])
            threads.append(phrase(world.language, "thread_talk", name=short_name(agent.name), names=names, topic=wish.topic))
    for brief in world.briefs:
        waiting = [a for a in (brief.to or sorted(agents)) if a not in brief.seen_by]
        threads.append(phrase(world.language, "thread_brief", id=brief.id, names=", ".join(waiting)))
    return DaySummary(
        day=world.day,
        scenes=[SceneLine(ref=r.ref, type=r.type, participants=r.participants, topic=r.topic, reason=r.reason)
                for r in records],
        highlights=highlights,
        artifacts=[a for r in records for a in r.artifacts or []],
        reflections=[w for w in written if w.type == "reflection"],
        open_threads=threads,
        memories_written=len(written),
    )


def render_summary(summary: DaySummary, world: World, agents: dict[str, Agent]) -> str:
    lang = world.language
    none = f"- {phrase(lang, 'summary_none')}"

    def name(agent_id: str) -> str:
        return agents[agent_id].name if agent_id in agents else agent_id

    day = f"{summary.day:03d}"
    lines = [f"# {phrase(lang, 'summary_title', day=day)}", ""]
    lines += [f"## {phrase(lang, 'summary_scenes')}", ""]
    for scene in summary.scenes:
        people = ", ".join(name(p) for p in scene.participants)
        topic = f" – {scene.topic}" if scene.topic else ""
        lines.append(f"- `{scene.ref}` **{scene.type}**{topic}: {people}")
    lines += ["", f"## {phrase(lang, 'summary_highlights')}", ""]
    lines += [f"- {name(h.agent)} ({h.importance}): {h.description}" for h in summary.highlights] or [none]
    lines += ["", f"## {phrase(lang, 'summary_artifacts')}", ""]
    lines += [f"- [{Path(a).name}](../../{a})" for a in summary.artifacts] or [none]
    lines += ["", f"## {phrase(lang, 'summary_reflections')}", ""]
    lines += [f"- {name(r.agent)}: {r.description} (`{r.id}`)" for r in summary.reflections] or [none]
    lines += ["", f"## {phrase(lang, 'summary_threads')}", ""]
    lines += [f"- {t}" for t in summary.open_threads] or [none]
    return "\n".join(lines) + "\n"


def write_day_summary(workspace: Workspace, world: World, agents: dict[str, Agent]) -> Path | None:
    """Write ``scenes/day-XXX/summary.md`` (and ``.json``); its path when the day had none before.

    A summary written already is brought up to date (a brief given since the day ended is an
    open thread for tomorrow) but returns None: the day did not end again, and ``day advance``
    counts the days that end in its run by this."""
    directory = workspace.day_dir(world.day)
    json_path = directory / "summary.json"
    summary = summarize_day(workspace, world, agents)
    first = not json_path.exists()
    if not first and _written(json_path) == summary.dump():
        return None
    atomic_write_text(directory / "summary.md", render_summary(summary, world, agents))
    atomic_write_json(json_path, summary.dump())
    return directory / "summary.md" if first else None


def _written(path: Path) -> object:
    """The summary as written before; one that is no longer JSON is simply written again."""
    try:
        return jsontext.loads(path.read_text(encoding="utf-8"))
    except (jsontext.JSONDecodeError, UnicodeDecodeError):
        return None
