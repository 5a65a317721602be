"""The pieces every page is made of: labels in the studio's language, the page frame's
values, the file name of each page and the links between them.

The markup is in the templates (``templates/``, rendered by ``templating.py`` with
autoescaping); what a page shows is gathered here and in the page modules as plain values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from markupsafe import Markup

from .. import jsontext

if TYPE_CHECKING:
    from .studio import Studio

LABELS: dict[str, dict[str, str]] = {
    "de": {
        "overview": "Übersicht", "days": "Tage", "day": "Tag", "characters": "Figuren", "gallery": "Galerie",
        "days_played": "Gespielte Tage", "scenes": "Szenen", "memories": "Erinnerungen", "artifacts": "Artefakte",
        "reflections": "Reflexionen", "scenes_per_type": "Szenen pro Typ und Tag", "activity": "Wer war wo dabei",
        "activity_hint": "Zahl der Szenen pro Figur und Tag", "cost": "Kosten pro Tag (API)",
        "calls": "Aufrufe", "total": "Summe", "why": "Warum", "who": "Wer", "topic": "Thema",
        "dialogue": "Gespräch", "actions": "Was sie taten", "says": "sagt", "wrote": "Was sie sich merkten",
        "others_got": "Was andere mitbekamen", "brief": "Vorgabe des Creative Director", "event": "Ereignis",
        "summary": "Zusammenfassung des Tages", "highlights": "Höhepunkte", "open_threads": "Offene Fäden",
        "none": "keine", "persona": "Persona", "role": "Rolle", "team": "Team", "plans": "Was sich pro Tag änderte", "learned": "Gelernt",
        "stream": "Erinnerungsstrom", "filter_type": "Typ", "filter_tag": "Schlagwort", "filter_day": "Tag",
        "filter_importance": "Wichtigkeit ab", "search": "Volltextsuche", "all": "alle", "shown": "angezeigt",
        "reset": "Filter zurücksetzen", "evidence": "Belege", "depth": "Tiefe", "accumulator": "Wichtigkeits-Akkumulator",
        "accumulator_hint": "Ein Punkt pro Szene mit dieser Figur; rote Punkte lösten eine Reflexion aus, die den Zähler auf 0 setzt.",
        "threshold": "Schwelle", "library": "Gelesen in der Bibliothek",
        "looked_up": "Im eigenen Gedächtnis nachgeschlagen", "lookup_none": "nichts Neues gefunden", "author": "Von", "mentioned_by": "Erwähnt in Erinnerungen",
        "pending": "offen", "importance": "Wichtigkeit", "no_reply": "keine Antwort gespeichert",
        "studio_report": "Logbuch", "scene": "Szene", "previous_day": "Vorheriger Tag", "no_days": "Noch kein Tag gespielt.",
        "no_artifacts": "Noch keine Artefakte.", "file_missing": "Datei fehlt", "plan": "Plan", "room": "Raum",
        "what_shown": "Was im Prompt stand", "shown_link": "Was {name} sah", "full_prompt": "Ganzer Prompt",
        "no_prompt": "Kein Prompt in diesem Szenenordner gespeichert.", "previous_scene": "Vorherige Szene",
        "next_scene": "Nächste Szene", "search_all": "Suche im Studio", "hits": "Treffer", "no_hits": "keine Treffer",
        "search_hint": "Erinnerungen, Antworten, Artefakte und Szenen aller Figuren; Wörter wie beim Erinnern zerlegt "
                       "(Groß/klein, Umlaute, Wortformen: „Knochentürme“ findet auch „Knochenturm“).",
        "kind_memory": "Erinnerung", "kind_reply": "Antwort", "kind_scene": "Szene", "kind_artifact": "Artefakt",
        "timeline": "Ablauf aller Tage", "next_day": "Nächster Tag", "open_scene": "Szene im Detail",
        "knows": "Wer weiß was", "knows_chain": "Wer es wem erzählt hat", "knows_days": "Wer es an welchem Tag wusste",
        "knows_hint": "Für jede verfolgte Suche (report --track): wer sich daran erinnern würde, seit welcher Szene und von wem.",
        "from": "von", "own": "selbst erlebt",
        "subtree": "↑ Belege dort", "versions": "Versionen", "diff": "Änderungen", "no_change": "Text unverändert", "talks": "Wer mit wem spricht", "talks_overall": "Alle Tage",
        "talks_hint": "Gespräche mit Inhalt (beide haben etwas gesagt), nicht Notizen über Treffen; jede Zelle führt zu den Szenen.",
    },
    "en": {
        "overview": "Overview", "days": "Days", "day": "Day", "characters": "Characters", "gallery": "Gallery",
        "days_played": "Days played", "scenes": "Scenes", "memories": "Memories", "artifacts": "Artifacts",
        "reflections": "Reflections", "scenes_per_type": "Scenes per type and day", "activity": "Who was where",
        "activity_hint": "Scenes per character and day", "cost": "Cost per day (API)",
        "calls": "Calls", "total": "Total", "why": "Why", "who": "Who", "topic": "Topic",
        "dialogue": "Dialogue", "actions": "What they did", "says": "says", "wrote": "What they remembered",
        "others_got": "What others noticed", "brief": "Creative Director brief", "event": "Event",
        "summary": "Day summary", "highlights": "Highlights", "open_threads": "Open threads",
        "none": "none", "persona": "Persona", "role": "Role", "team": "Team", "plans": "What changed per day", "learned": "Learned",
        "stream": "Memory stream", "filter_type": "Type", "filter_tag": "Tag", "filter_day": "Day",
        "filter_importance": "Importance from", "search": "Full-text search", "all": "all", "shown": "shown",
        "reset": "Reset filters", "evidence": "Evidence", "depth": "Depth", "accumulator": "Importance accumulator",
        "accumulator_hint": "One point per scene with this character; red points triggered a reflection, which resets the count to 0.",
        "threshold": "Threshold", "library": "Read in the library",
        "looked_up": "Looked up in its own memory", "lookup_none": "nothing new found", "author": "By", "mentioned_by": "Mentioned in memories",
        "pending": "pending", "importance": "Importance", "no_reply": "no reply stored",
        "studio_report": "Logbook", "scene": "Scene", "previous_day": "Previous day", "no_days": "No day played yet.",
        "no_artifacts": "No artifacts yet.", "file_missing": "file missing", "plan": "Plan", "room": "Room",
        "what_shown": "What the prompt showed", "shown_link": "What {name} was shown", "full_prompt": "Full prompt",
        "no_prompt": "No prompt kept in this scene folder.", "previous_scene": "Previous scene",
        "next_scene": "Next scene", "search_all": "Search the studio", "hits": "results", "no_hits": "no results",
        "search_hint": "Memories, replies, artifacts and scenes of every character; words analysed as recall does "
                       "(case, umlauts, word forms).",
        "kind_memory": "Memory", "kind_reply": "Reply", "kind_scene": "Scene", "kind_artifact": "Artifact",
        "timeline": "Run timeline", "next_day": "Next day", "open_scene": "Scene in detail",
        "knows": "Who knows what", "knows_chain": "Who told whom", "knows_days": "Who knew it on which day",
        "knows_hint": "For each tracked query (report --track): who would recall it, since which scene and from whom.",
        "from": "from", "own": "first-hand",
        "subtree": "↑ evidence there", "versions": "Versions", "diff": "Changes", "no_change": "Text unchanged", "talks": "Who talks with whom", "talks_overall": "All days",
        "talks_hint": "Conversations with content (both said something), not notices of meetings; each cell leads to its scenes.",
    },
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


@dataclass(frozen=True)
class Frame:
    """What the frame around a page shows; ``prefix`` leads from the page's folder back to the report's root."""

    title: str
    studio: str
    language: str
    prefix: str
    current: str
    script: bool = False

    @property
    def words(self) -> dict[str, str]:
        return labels(self.language)


@dataclass(frozen=True)
class Link:
    """A link a page shows; ``href`` None: the text alone, where what it names has no page."""

    text: str
    href: str | None = None


@dataclass(frozen=True)
class Cell:
    """A cell of a grid of characters (who was where, who talks with whom): how many scenes, each
    named in ``title``, and where a click leads."""

    href: str
    title: str
    count: int


def script_json(data: object) -> Markup:
    """JSON inside ``<script type="application/json">``: no ``</script>`` or comment can close it early.

    Markup, so the template writes it as it is: HTML escaping would turn its quotes into
    references a script element's text does not resolve (JSON.parse would fail); ``<``, ``>``
    and ``&`` are written as JSON escapes instead, which is what keeps it inert."""
    text = jsontext.dumps(data, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def day_file(day: int) -> str:
    return f"days/day-{day:03d}.html"


def scene_file(ref: str) -> str:
    """``day-001/scene-02`` → ``scenes/day-001-scene-02.html``."""
    return "scenes/" + ref.replace("/", "-") + ".html"


def character_file(agent_id: str) -> str:
    return f"characters/{agent_id}.html"


def gallery_file(artifact_path: str) -> str:
    """``gallery/lore/day-001_x_v1.md`` → ``gallery/lore__day-001_x_v1.html`` (one folder level for every page)."""
    parts = artifact_path.split("/")
    stem = parts[-1][:-3] if parts[-1].endswith(".md") else parts[-1]
    return "gallery/" + "__".join([*parts[1:-1], stem]) + ".html"


def person(studio: Studio, agent_id: str, prefix: str = "../") -> Link:
    """A character by name, linked to their page; an id the studio has no character for, as it is."""
    if agent_id not in studio.agents:
        return Link(agent_id)
    return Link(studio.name(agent_id), f"{prefix}{character_file(agent_id)}")


def memory_link(studio: Studio, agent_id: str, memory_id: str) -> Link:
    """A memory's id, linked to it on its character's page where the stream still has it."""
    if memory_id not in studio.known_ids or agent_id not in studio.agents:
        return Link(memory_id)
    return Link(memory_id, f"../{character_file(agent_id)}#{memory_id}")
