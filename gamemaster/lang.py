"""The Game Master's own sentences, in the world's language.

Characters write their memories themselves; these are the few memories and
headings the Game Master writes for them (briefs, artifact records, the day summary)
that belong to the studio as a whole. What it writes for one kind's scenes (a meeting
notice, an event) the kind declares itself (``SceneKind.phrases``).
"""

from __future__ import annotations

import re

PHRASES: dict[str, dict[str, str]] = {
    "de": {
        "and": "und",
        "you": "du",
        "brief": "Der Creative Director gibt vor: „{text}“",
        "interview": "Der Creative Director hat mich gefragt: „{question}“ Ich habe geantwortet: „{answer}“",
        "ask_plan": "- Heute hast du dir vorgenommen: {plan}",
        "ask_no_plan": "- Für heute hast du dir noch nichts vorgenommen.",
        "ask_wish": "- Du willst mit {people} über „{topic}“ sprechen.",
        "ask_partners": "In deinen letzten Erinnerungen hast du mit diesen Kolleginnen und Kollegen gesprochen, "
                        "die häufigsten zuerst: {people}.",
        "ask_no_partners": "In deinen letzten Erinnerungen hattest du mit niemandem hier ein Gespräch.",
        "roster_team": "Team {team}",
        "roster_works_on": "arbeitet an: {topics}",
        "artifact": "Erstellt: {title}. {summary}",
        "observed_artifact": "{name}: {summary}",
        "heard_line": "{name} hat erzählt: „{says}“",
        "cut_mark": "[gekürzt]",
        "heard": "Gehört: {lines}",
        "heard_said": "{name}: „{says}“",
        "heard_recently": (
            "**Was zuletzt gesagt wurde** – von anderen zu dir und von dir, mit wem du da warst. Was davon "
            "die angeht, die dich hören, und sie noch nicht wissen, gib weiter; was dir im Vertrauen gesagt "
            "wurde, behältst du für dich.\n{lines}{weigh}"
        ),
        "heard_recently_alone": (
            "**Was zuletzt gesagt wurde** – von anderen zu dir und von dir, mit wem du da warst. Hier hört "
            "dich niemand; weitergeben kannst du es erst in einer späteren Szene.\n{lines}{weigh}"
        ),
        "heard_recently_weigh": (
            "\n\nWas nimmst du aus dem mit, was mit *neu* markiert ist? "
            "Sag es in `takeaways`: von wem, was, und wie wichtig es dir ist (`importance` 1–10)."
        ),
        "heard_recently_versions": (
            "\n\nWo eine neuere Zeile eine ältere zur selben Sache berichtigt, gilt die neuere: Gib sie weiter, "
            "auch denen, denen du die ältere erzählt hast, und die ältere nicht mehr."
        ),
        "heard_recently_line": "{name} ({scene}): „{says}“",
        "heard_recently_new": "*neu* – {name} ({scene}): „{says}“",
        "said_recently_line": "Du ({scene}, zu {people}): „{says}“",
        "said": "Gesagt zu {people}: „{says}“",
        "takeaway": "Von {name} mitgenommen: {what}",
        "library": "Aus der Referenzbibliothek, passend zu deiner Arbeit:\n\n{excerpts}",
        "library_read": "In der Bibliothek nachgelesen: {title} ({sections})",
        "library_above": "steht oben in der Studio-Bibel",
        "bible_sections": "zu lang für hier; die Abschnitte: {headings}",
        "bible_named": "hier nur seine Abschnitte: {headings}",
        "bible_empty": "(keine Dokumente in library/)",
        "slot_morning": "Vormittag",
        "slot_lunch": "Mittag",
        "slot_afternoon": "Nachmittag",
        "slot_evening": "Abend",
        "gathering_when": "Tag {day} ({date}), {slot}",
        "invitation": "{host} lädt ein: {what} – {when}, Ort: {place}.",
        "hosting": "Ich lade ein ({count} Gäste): {what} – {when}, Ort: {place}.",
        "invitation_accepted": "Ich habe {host} zugesagt: {what} – {when}, Ort: {place}.",
        "invitation_declined": "Ich habe {host} abgesagt: {what} – {when}, Ort: {place}.",
        "heard_of_accepted": "Ich gehe ohne Einladung hin, {host} lädt ein: {what} – {when}, Ort: {place}.",
        "heard_of_declined": "Ich gehe nicht hin, eingeladen bin ich nicht ({host} lädt ein): {what} – {when}, Ort: {place}.",
        "invitation_because": "Warum: {why}",
        "invited_who": "Eingeladen: {names}.",
        "invited_many": "Eingeladen: {you}{count} weitere.",
        "invitations_open": (
            "**Einladungen an dich** – sag zu oder ab, im Feld `invitations` "
            "(`{{\"gathering\": \"…\", \"answer\": \"accept\" | \"decline\", \"because\": \"…\"}}`):"
        ),
        "invitations_more": ("Dazu kommen {count} weitere Einladungen: sie erscheinen hier, wenn von diesen welche "
                             "beantwortet oder vorbei sind."),
        "invitations_heard": (
            "**Wovon du gehört hast** – eingeladen bist du nicht, aber wer davon weiß, kann kommen; "
            "sag im Feld `invitations` zu oder ab wie auf eine Einladung:"
        ),
        "heard_of_from": "Gehört von: {names}.",
        "lookup_tool": (
            "Schlag in deinem eigenen Gedächtnis nach, wenn dein Prompt nicht enthält, was du für diese Szene "
            "brauchst – etwas aus der Vergangenheit, einen Namen, den du nicht einordnen kannst, ein Versprechen. "
            "Du bekommst ganze Erinnerungen, die dein Prompt nicht zeigt, die passendsten zuerst. Höchstens "
            "{max}-mal in dieser Szene; danach antwortest du mit deinem JSON-Objekt."
        ),
        "lookup_query": "Wonach du suchst: eine Frage oder ein paar Wörter, in deinen Worten.",
        "lookup_nothing": "Nichts gefunden, was nicht schon in deinem Prompt steht.",
        "lookup_empty": "Leere Anfrage: schreib, wonach du suchst.",
        "lookup_spent": "Kein Nachschlagen mehr in dieser Szene: antworte jetzt mit deinem JSON-Objekt.",
        "invitations_taken": (
            "**Wozu du zugesagt hast oder selbst einlädst** – eine Zusage nimmst du im Feld "
            "`invitations` zurück (`\"answer\": \"decline\"`):"
        ),
        "hosting_listed": "Du lädst ein: {what} – {when}, Ort: {place}.",
        "invitations_declined": "**Wozu du abgesagt hast** – umentscheiden kannst du im Feld `invitations`:",
        "weekday_mon": "Montag",
        "weekday_tue": "Dienstag",
        "weekday_wed": "Mittwoch",
        "weekday_thu": "Donnerstag",
        "weekday_fri": "Freitag",
        "weekday_sat": "Samstag",
        "weekday_sun": "Sonntag",
        "date": "{weekday}, {day}. {month} {year}",
        **{f"month_{n}": name for n, name in enumerate(("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
                                                        "September", "Oktober", "November", "Dezember"), 1)},
        "date_day": "Tag {day}, {date}",
        "date_before_start": "{date}, {days} Tage vor Tag 001",
        "date_before_start_one": "{date}, einen Tag vor Tag 001",
        "summary_title": "Tag {day} – Zusammenfassung",
        "summary_scenes": "Szenen",
        "summary_highlights": "Höhepunkte",
        "summary_artifacts": "Artefakte",
        "summary_reflections": "Reflexionen",
        "summary_threads": "Offene Fäden für morgen",
        "summary_none": "keine",
        "thread_talk": "{name} möchte mit {names} über „{topic}“ sprechen",
        "thread_brief": "Brief {id} noch nicht gesehen von: {names}",
        "thread_plan": "{name}: {plan}",
        "importance": "Wichtigkeit",
        "depth": "Tiefe",
        "evidence_of": "von {author}",
        "evidence_more": "weitere: {count}",
        "round": "Runde",
        "transcript_shortened": "(Das Gespräch ist lang: frühere Beiträge sind gekürzt, nur ihr erster Satz steht hier.)",
        "transcript_omitted": "({count} noch frühere Beiträge sind ausgelassen.)",
        "replan": (
            "Seit deiner letzten Szene ist etwas Unerwartetes passiert (siehe oben). "
            "Ändert das deinen Plan für heute? Wenn ja, gib ein neues `plan`-Objekt an."
        ),
        "invalid_reply": "Deine letzte Antwort war ungültig: {error}\nBitte korrigiere sie.",
        "handoff": (
            "Dein Zug {turn} in Szene {scene}. Dein Prompt steht in `{path}`: lies ihn (Read) und "
            "antworte genau so, wie er es verlangt."
        ),
        "prompt_continued": (
            "Dein Prompt für diesen Zug ist bis einschließlich der Zeile „{line}“ derselbe wie oben. "
            "Ab dort lautet er jetzt so:"
        ),
    },
    "en": {
        "and": "and",
        "you": "you",
        "brief": "The Creative Director says: “{text}”",
        "interview": "The Creative Director asked me: “{question}” I answered: “{answer}”",
        "ask_plan": "- Today you mean to: {plan}",
        "ask_no_plan": "- You have not set yourself anything for today yet.",
        "ask_wish": "- You want to talk with {people} about “{topic}”.",
        "ask_partners": "In your latest memories you talked with these colleagues, most often first: {people}.",
        "ask_no_partners": "In your latest memories you had no conversation with anyone here.",
        "roster_team": "team {team}",
        "roster_works_on": "works on: {topics}",
        "artifact": "Created: {title}. {summary}",
        "observed_artifact": "{name}: {summary}",
        "heard_line": "{name} said: “{says}”",
        "cut_mark": "[shortened]",
        "heard": "Heard: {lines}",
        "heard_said": "{name}: “{says}”",
        "heard_recently": (
            "**What was said lately** – by others to you and by you, with who was there. Pass on what "
            "concerns those who hear you and they do not know yet; keep what you were told in "
            "confidence.\n{lines}{weigh}"
        ),
        "heard_recently_alone": (
            "**What was said lately** – by others to you and by you, with who was there. Nobody hears you "
            "here; you can pass it on in a later scene.\n{lines}{weigh}"
        ),
        "heard_recently_weigh": (
            "\n\nWhat do you take from what is marked *new*? Say it in "
            "`takeaways`: from whom, what, and how much it matters to you (`importance` 1–10)."
        ),
        "heard_recently_versions": (
            "\n\nWhere a newer line corrects an older one on the same matter, the newer holds: pass it on, "
            "also to those you told the older one, and the older one no more."
        ),
        "heard_recently_line": "{name} ({scene}): “{says}”",
        "heard_recently_new": "*new* – {name} ({scene}): “{says}”",
        "said_recently_line": "You ({scene}, to {people}): “{says}”",
        "said": "Said to {people}: “{says}”",
        "takeaway": "Taken from {name}: {what}",
        "library": "From the reference library, matching your work:\n\n{excerpts}",
        "library_read": "Looked up in the library: {title} ({sections})",
        "library_above": "in the studio bible above",
        "bible_sections": "too long for here; its sections: {headings}",
        "bible_named": "only its sections here: {headings}",
        "bible_empty": "(no documents in library/)",
        "slot_morning": "morning",
        "slot_lunch": "lunch",
        "slot_afternoon": "afternoon",
        "slot_evening": "evening",
        "gathering_when": "day {day} ({date}), {slot}",
        "invitation": "{host} invites: {what} – {when}, place: {place}.",
        "hosting": "I am inviting ({count} guests): {what} – {when}, place: {place}.",
        "invitation_accepted": "I accepted {host}'s invitation: {what} – {when}, place: {place}.",
        "invitation_declined": "I declined {host}'s invitation: {what} – {when}, place: {place}.",
        "heard_of_accepted": "I am going uninvited, {host} invites: {what} – {when}, place: {place}.",
        "heard_of_declined": "I am not going, I am not invited ({host} invites): {what} – {when}, place: {place}.",
        "invitation_because": "Why: {why}",
        "invited_who": "Invited: {names}.",
        "invited_many": "Invited: {you}{count} others.",
        "invitations_open": (
            "**Invitations to you** – accept or decline in `invitations` "
            "(`{{\"gathering\": \"…\", \"answer\": \"accept\" | \"decline\", \"because\": \"…\"}}`):"
        ),
        "invitations_more": ("There are {count} more invitations: they appear here once some of these are "
                             "answered or over."),
        "invitations_heard": (
            "**What you heard of** – you are not invited, but whoever knows of it may come; "
            "accept or decline in `invitations` as you would an invitation:"
        ),
        "heard_of_from": "Heard from: {names}.",
        "lookup_tool": (
            "Look into your own memory when your prompt does not hold what you need for this scene – something "
            "from the past, a name you cannot place, a promise. You get whole memories your prompt does not show, "
            "the best matches first. At most {max} times in this scene; then answer with your JSON object."
        ),
        "lookup_query": "What you are looking for: a question or a few words, in your own words.",
        "lookup_nothing": "Nothing found that your prompt does not already show.",
        "lookup_empty": "An empty query: write what you are looking for.",
        "lookup_spent": "No more looking up in this scene: answer with your JSON object now.",
        "invitations_taken": (
            "**What you have accepted or are hosting** – take an acceptance back in "
            "`invitations` (`\"answer\": \"decline\"`):"
        ),
        "hosting_listed": "You are inviting: {what} – {when}, place: {place}.",
        "invitations_declined": "**What you have declined** – change your mind in `invitations`:",
        "weekday_mon": "Monday",
        "weekday_tue": "Tuesday",
        "weekday_wed": "Wednesday",
        "weekday_thu": "Thursday",
        "weekday_fri": "Friday",
        "weekday_sat": "Saturday",
        "weekday_sun": "Sunday",
        "date": "{weekday}, {day} {month} {year}",
        **{f"month_{n}": name for n, name in enumerate(("January", "February", "March", "April", "May", "June", "July", "August",
                                                        "September", "October", "November", "December"), 1)},
        "date_day": "day {day}, {date}",
        "date_before_start": "{date}, {days} days before day 001",
        "date_before_start_one": "{date}, the day before day 001",
        "summary_title": "Day {day} – summary",
        "summary_scenes": "Scenes",
        "summary_highlights": "Highlights",
        "summary_artifacts": "Artifacts",
        "summary_reflections": "Reflections",
        "summary_threads": "Open threads for tomorrow",
        "summary_none": "none",
        "thread_talk": "{name} wants to talk with {names} about “{topic}”",
        "thread_brief": "brief {id} not yet seen by: {names}",
        "thread_plan": "{name}: {plan}",
        "importance": "importance",
        "depth": "depth",
        "evidence_of": "by {author}",
        "evidence_more": "more: {count}",
        "round": "round",
        "transcript_shortened": "(The conversation is long: earlier turns are shortened to their first sentence.)",
        "transcript_omitted": "({count} still earlier turns are left out.)",
        "replan": (
            "Something unexpected happened since your last scene (see above). "
            "Does it change your plan for today? If so, give a new `plan` object."
        ),
        "invalid_reply": "Your last reply was invalid: {error}\nPlease correct it.",
        "handoff": "Your turn {turn} in scene {scene}. Your prompt is in `{path}`: read it (Read) and answer exactly as it asks.",
        "prompt_continued": (
            "Your prompt for this turn is the same as above up to and including the line “{line}”. "
            "From there on it now reads:"
        ),
    },
}


def phrase(language: str, key: str, **values: object) -> str:
    table = PHRASES.get(language, PHRASES["en"])
    return table[key].format(**values)


def join_names(language: str, names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {phrase(language, 'and')} {names[-1]}"


def short_name(display: str) -> str:
    """How colleagues address someone: the nickname in quotes, else the first name."""
    match = re.search(r"[\"“„»«](.+?)[\"”“«»]", display or "")
    if match and match.group(1).strip():
        return match.group(1).strip()
    words = (display or "").split()
    return words[0] if words else ""


#: The Game Master's reasons for a scene that are the toolkit's own, not a kind's: a scene kind
#: declares its reasons in its ``reasons`` table (``kinds/base.py``). Scene records and the CLI keep
#: them in English (the first template); the report and the prompts show them in the studio's
#: language, read back through these templates (``reasons.py``).
REASONS: list[tuple[str, dict[str, str]]] = [
    ("brief_more", {"en": "brief {brief} from the Creative Director awaits {who} (announced to {count} more)",
                    "de": "Vorgabe {brief} des Creative Director wartet auf {who} (weiteren {count} angekündigt)"}),
    ("brief", {"en": "brief {brief} from the Creative Director awaits {who}",
               "de": "Vorgabe {brief} des Creative Director wartet auf {who}"}),
    ("forced_day", {"en": "forced by the Creative Director: a new day begins",
                    "de": "vom Creative Director angesetzt: ein neuer Tag beginnt"}),
    ("forced", {"en": "forced by the Creative Director: {kind} with {who}",
                "de": "vom Creative Director angesetzt: {kind} mit {who}"}),
    ("deferred", {"en": "REFLECTION deferred, today's {count} held: {who} wait",
                  "de": "Reflexion aufgeschoben, heute schon {count} gehalten: {who} warten"}),
    ("host_present", {"en": "host present, {came} of {invited} invited came",
                      "de": "Gastgeber:in da, {came} von {invited} Eingeladenen gekommen"}),
    ("host_absent", {"en": "host absent, {came} of {invited} invited came",
                     "de": "Gastgeber:in fehlt, {came} von {invited} Eingeladenen gekommen"}),
    ("declined", {"en": "{count} declined", "de": "{count} abgesagt"}),
    ("no_answer", {"en": "{count} did not answer", "de": "{count} ohne Antwort"}),
    ("absent", {"en": "accepted but absent: {who}", "de": "zugesagt, aber nicht da: {who}"}),
    ("uninvited", {"en": "came uninvited: {who}", "de": "ungeladen gekommen: {who}"}),
]
