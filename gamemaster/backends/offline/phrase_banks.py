"""Phrase banks for the offline player, one table per language.

Plain data only: ``offline.py`` fills the ``{placeholders}`` and picks among
the templates whose placeholders it can fill, so a template that needs a
colleague or a remembered fact is simply skipped when there is none. Both
languages carry exactly the same keys.

Topics arrive as bare noun phrases without an article, so German templates
put them after "Thema" (or behind a colon) where no case ending is needed.
Third-person lines about a character avoid gendered pronouns.
"""

from __future__ import annotations

import functools
import string
from typing import Any, Iterable

from .text import WORD_RE

DEFAULT_LANGUAGE = "en"

#: Which phrase bank an artifact kind (or, failing that, a role) draws on.
#: Checked in order: "technical artist" must land on technical before "art"
#: sends it to concept, "narrative designer" on narrative before design.
FAMILY_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("qa", ("qa", "quality", "qualität", "test", "bug", "community")),
    ("technical", ("tech", "shader", "pipeline", "engine", "tool")),
    ("narrative", ("narrat", "story", "writer", "script", "dialog", "quest", "erzähl", "autor")),
    ("lore", ("lore", "world", "welt", "chronic", "chronik")),
    ("concept", ("concept", "konzept", "art", "image", "illustr", "environment")),
    ("production", ("produc", "produz", "produktion", "schedule", "roadmap", "project", "projekt", "manag")),
    ("design", ("design", "director", "mechanic", "gdd", "regel")),
)
FAMILIES = tuple(name for name, _ in FAMILY_KEYWORDS) + ("notes",)

_FORMATTER = string.Formatter()


def phrase_bank(code: str) -> dict[str, Any]:
    """The phrase bank of one language code (``de``, ``en``)."""
    return LINES[code]


def language_code(language: str | None) -> str:
    """``de-DE`` → ``de``; a language without phrase banks plays in English."""
    code = (language or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LINES else DEFAULT_LANGUAGE


def language_lines(language: str | None) -> dict[str, Any]:
    return phrase_bank(language_code(language))


def artifact_family(kind: str, role: str = "") -> str:
    """The phrase-bank family for an artifact kind; the role decides when the kind says nothing."""
    for text in (kind if kind != "notes" else "", role):
        lowered = (text or "").lower()
        for family, keywords in FAMILY_KEYWORDS:
            if any(word in lowered for word in keywords):
                return family
    return "notes"


def template_fields(template: str) -> set[str]:
    return {name for _, name, _, _ in _FORMATTER.parse(template) if name}


@functools.cache
def template_words(code: str) -> frozenset[str]:
    """Words of the phrase bank itself: a term picked up from a colleague's
    statement should be their content, not template filler."""
    return frozenset(word.lower() for text in bank_strings(phrase_bank(code)) for word in WORD_RE.findall(text))


def bank_strings(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from bank_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from bank_strings(value)


LINES: dict[str, dict] = {
    "de": {
        "grammar": {
            "possessive": "s",
            "possessive_sibilant": "'",
            "quote_open": "„",
            "quote_close": "“",
            "team": "das Team",
            # "das Thema Die Fährfrau" reads wrong; such topics go in quotes.
            "quote_topics_starting_with": "der die das den dem des ein eine einen",
            # Never worth a tag or a quoted term, on top of the scene module's stopwords.
            "function_words": (
                "unter ohne gegen zwischen durch wegen weil damit dann denn also etwas "
                "ganz ganze kann könnte sollte sollten müssen muss wäre würde wurde "
                "bitte genau vielleicht eigentlich wirklich schon gerade direkt dort "
                "hier jetzt etwa beim zum zur vom"
            ),
        },
        "fallback_topics": [
            "Offene Punkte von gestern",
            "Projektstand",
            "Grundstimmung der Spielwelt",
            "Nächste Schritte",
            "Roter Faden des Projekts",
        ],
        "arrival": {
            "actions": [
                "{name} kommt {way} ins Studio, {mood}.",
                "{name} schließt die Tür auf, hängt die Jacke an den Haken und setzt sich {mood} an den Schreibtisch.",
                "{name} trifft {way} ein und fährt den Rechner hoch – {mood}.",
                "{name} bleibt kurz an der Kaffeemaschine stehen und geht dann {mood} an den Platz.",
                "{name} erscheint {way}, {mood}, und stellt die Tasche neben den Monitor.",
                "{name} kommt {way} herein und wirft einen langen Blick auf das Whiteboard, {mood}.",
                "{name} schiebt die Tür mit der Schulter auf, {way} und {mood}.",
            ],
            "ways": [
                "pünktlich",
                "etwas später als sonst",
                "mit dem Fahrrad",
                "mit einem Becher Tee in der Hand",
                "mit nassen Schuhen vom Regen",
                "früher als geplant",
                "mit Kopfhörern auf den Ohren",
            ],
            "moods": [
                "gut gelaunt",
                "noch etwas verschlafen",
                "hellwach",
                "nachdenklich",
                "voller Tatendrang",
                "ruhig und konzentriert",
                "leicht angespannt",
                "neugierig auf den Tag",
                "bester Laune",
            ],
            "greetings": [
                "Morgen zusammen!",
                "Guten Morgen!",
                "Hallo, alle miteinander.",
                "Moin!",
                "Morgen! Ist der Kaffee schon durch?",
                "Guten Morgen – schön, dass alle da sind.",
            ],
            "greetings_named": [
                "Morgen, {colleague}!",
                "Hey {colleague}, guten Morgen.",
                "Guten Morgen, {colleague} – gut geschlafen?",
                "Morgen zusammen! {colleague}, du warst ja schon fleißig.",
            ],
            "plan_says": [
                "Heute will ich mich um das Thema {topic} kümmern.",
                "Ich nehme mir heute das Thema {topic} vor.",
                "Mein Plan für heute: beim Thema {topic} ein gutes Stück weiterkommen.",
                "Ich bleibe heute beim Thema {topic} – da steckt noch viel drin.",
                "Heute steht bei mir das Thema {topic} im Mittelpunkt, vor allem das Stichwort {tag}.",
                "Ich möchte heute am Thema {topic} arbeiten und mir das Stichwort {tag} genauer ansehen.",
            ],
            "plan_says_brief": [
                "Den neuen Brief vom Creative Director habe ich gelesen – {brief}. Darauf stelle ich heute meinen Tag ein.",
                "Ich richte mich heute nach dem Brief {brief} und knöpfe mir dafür das Thema {topic} vor.",
                "Der Brief ist angekommen: {brief}. Das hat heute Vorrang, zusammen mit dem Thema {topic}.",
            ],
            "plan_texts": [
                "Am Thema {topic} weiterarbeiten, Schwerpunkt Stichwort {tag}.",
                "Das Thema {topic} ausarbeiten und einen ersten Entwurf zeigen.",
                "Offene Fragen zum Thema {topic} klären und die Notizen zum Stichwort {tag} sortieren.",
                "Einen belastbaren Stand zum Thema {topic} erarbeiten.",
                "Das Thema {topic} mit frischem Blick angehen und festhalten, was trägt.",
            ],
            "plan_texts_brief": [
                "Auf den Brief des Creative Directors reagieren ({brief}) und dafür am Thema {topic} arbeiten.",
                "Den Brief {brief} umsetzen – Einstieg über das Thema {topic}.",
                "Den Brief {brief} ernst nehmen und das Thema {topic} daraufhin neu prüfen.",
            ],
            "memories": [
                "Am Morgen gemerkt, wie viel Lust ich auf das Thema {topic} habe.",
                "Auf dem Weg ins Studio über das Thema {topic} nachgedacht; das Stichwort {tag} lässt mich nicht los.",
                "{colleague} war heute früh gut gelaunt – die Stimmung im Studio ist gut.",
                "Noch im Kopf von gestern: {fact}.",
                "Beim ersten Kaffee noch einmal an das hier gedacht: {fact}.",
            ],
            "wish_says": [
                "{colleague}, hast du später kurz Zeit? Ich würde gern über das Thema {wish} reden.",
                "{colleague}, lass uns nachher mal zum Thema {wish} zusammensetzen.",
                "Mit {colleague} würde ich heute gern über das Thema {wish} sprechen.",
            ],
            "wish_topics": [
                "{topic}",
                "{topic} und {other_topic}",
            ],
        },
        "work": {
            "actions": [
                "{name} vertieft sich in das Thema {topic} und sortiert die Notizen neu.",
                "{name} arbeitet konzentriert am Thema {topic}, die Kopfhörer auf.",
                "{name} skizziert, verwirft und skizziert wieder – das Thema {topic} nimmt langsam Form an.",
                "{name} breitet die Unterlagen zum Thema {topic} auf dem Tisch aus und geht sie Punkt für Punkt durch.",
                "{name} schreibt an einer ersten Fassung zum Thema {topic} und prüft sie gegen die eigenen Notizen.",
                "{name} dreht das Thema {topic} noch einmal um und findet beim Stichwort {tag} einen neuen Ansatz.",
                "{name} wirft einen kurzen Blick zu {colleague} hinüber und arbeitet dann weiter am Thema {topic}.",
            ],
            "actions_brief": [
                "{name} liest den Brief {brief} noch einmal und macht sich direkt an die Umsetzung.",
                "{name} legt den Brief {brief} neben die Tastatur und arbeitet ihn Punkt für Punkt ab.",
                "{name} überlegt, was der Brief {brief} für das Thema {topic} bedeutet, und beginnt zu arbeiten.",
            ],
            "says": [
                "Ich glaube, ich hab's gleich.",
                "Moment, das muss ich kurz festhalten.",
                "{colleague}, schau mal – das Thema {topic} wird langsam richtig gut.",
                "Hm. Im Kopf war das einfacher.",
                "Noch zwei Absätze, dann zeige ich es euch.",
                "Das Stichwort {tag} war der Schlüssel.",
            ],
            "memories": [
                "Beim Thema {topic} gemerkt: Das Stichwort {tag} trägt mehr, als ich dachte.",
                "Beim Arbeiten am Thema {topic} hängen geblieben; der Knoten ist noch nicht gelöst.",
                "Eine erste Struktur für das Thema {topic} steht, die Details fehlen noch.",
                "Beim Thema {topic} an das hier gedacht: {fact}.",
                "Verbindung entdeckt: {fact} – das passt zum Thema {topic}.",
                "Zum Thema {topic} sollte ich {colleague} noch fragen, wie das zum Stichwort {tag} passt.",
                "Beim Thema {topic} zu lange an einem Detail gehangen; morgen mit frischem Kopf weiter.",
                "Kleiner Durchbruch beim Thema {topic}: Das Stichwort {tag} verbindet endlich die losen Enden.",
            ],
            "replan_texts": [
                "Nach {source} den Plan anpassen: das Thema {topic} mit Blick auf das Stichwort {tag} neu denken.",
                "Plan angepasst wegen {source}: Das Thema {topic} bleibt, aber das Stichwort {tag} bekommt Vorrang.",
                "Wegen {source} neue Prioritäten: erst das Stichwort {tag}, dann weiter am Thema {topic}.",
                "Neu im Blick: {since_fact}. Deshalb das Thema {topic} mit dem Stichwort {tag} neu gewichten.",
            ],
            "source_brief": "dem neuen Brief des Creative Directors",
            "source_artifact": "{owner} neuem Artefakt",
            "source_other": "dem, was heute reingekommen ist",
        },
        "meeting": {
            "actions": [
                "{name} beugt sich vor und tippt mit dem Stift auf den Tisch.",
                "{name} hört {prev} zu und nickt langsam.",
                "{name} blättert kurz in den Notizen und meldet sich dann zu Wort.",
                "{name} lehnt sich zurück und verschränkt die Arme.",
                "{name} steht auf und schreibt ein Stichwort ans Whiteboard.",
                "{name} schiebt den Laptop zur Seite und schaut in die Runde.",
            ],
            "openers": [
                "Danke, dass ihr da seid. Ich wollte mit euch über das Thema {topic} sprechen.",
                "Also, zum Thema {topic}: Ich habe ein paar Gedanken und will hören, was ihr davon haltet.",
                "Lasst uns direkt einsteigen – das Thema {topic}. Wo steht ihr gerade?",
                "{colleagues}, ich fange einfach mal an: Beim Thema {topic} hakt es für mich beim Stichwort {tag}.",
                "Kurz zum Hintergrund: Das Thema {topic} beschäftigt mich seit gestern, vor allem das Stichwort {tag}.",
            ],
            "openers_brief": [
                "Ihr habt den Brief gesehen: {brief}. Was heißt das konkret für uns?",
                "Der Creative Director schreibt {brief}. Ich würde gern gemeinsam festlegen, wie wir das angehen.",
                "Zum neuen Brief – {brief}: Ich sehe da eine Chance, aber wir müssen uns abstimmen.",
            ],
            "agree": [
                "{prev}, da bin ich ganz bei dir – „{term}“ ist genau der richtige Punkt.",
                "Stimmt, {prev}. Mit „{term}“ triffst du es.",
                "Ja, {prev}, „{term}“ – das unterschreibe ich sofort.",
                "{prev} hat recht: „{term}“ ist der Kern der Sache.",
                "Genau das, {prev}. „{term}“ sollten wir festhalten.",
            ],
            "object": [
                "{prev}, bei „{term}“ bin ich skeptisch – das könnte uns später auf die Füße fallen.",
                "Da muss ich widersprechen, {prev}: „{term}“ allein reicht mir nicht.",
                "Hm, {prev}, ich sehe „{term}“ etwas anders.",
                "{prev}, ich verstehe den Gedanken, aber „{term}“ beißt sich mit dem, was wir schon haben.",
                "Vorsicht, {prev} – wenn wir „{term}“ so umsetzen, verlieren wir den roten Faden.",
            ],
            "add": [
                "{prev}, ich würde bei „{term}“ noch einen Schritt weitergehen.",
                "Anknüpfend an {prev}: „{term}“ lässt sich gut mit dem Stichwort {tag} verbinden.",
                "{prev}, „{term}“ bringt mich auf eine Idee.",
                "Wenn ich {prev} richtig verstehe, ist „{term}“ der Hebel – und da kann ich helfen.",
                "Guter Punkt, {prev}. Zu „{term}“ habe ich noch etwas.",
            ],
            "proposals": [
                "Mein Vorschlag: Ich bereite bis morgen {deliverable} zum Thema {topic} vor.",
                "Ich könnte {deliverable} beisteuern, dann haben wir etwas Konkretes in der Hand.",
                "Machen wir es konkret: Ich übernehme {deliverable}.",
                "Vorschlag: {colleague} und ich setzen uns danach zusammen und machen daraus {deliverable}.",
                "Konkret schlage ich vor, dass wir zuerst das Stichwort {tag} klären und ich dann {deliverable} liefere.",
            ],
            "fact_refs": [
                "Ich habe mir dazu notiert: {fact}.",
                "Erinnert ihr euch? {fact}.",
                "Dazu passt übrigens: {fact}.",
            ],
            "memories": [
                "{prev} hat beim Thema {topic} „{term}“ eingebracht – das sollte ich mir merken.",
                "Im Meeting zum Thema {topic} gemerkt, dass wir unterschiedliche Vorstellungen haben.",
                "Gute Energie im Meeting zum Thema {topic}; das Stichwort {tag} kam immer wieder.",
                "Wichtiger Punkt von {prev}: „{term}“.",
            ],
            "summaries": [
                "{participants} haben über das Thema {topic} gesprochen. {decision}",
                "Meeting zum Thema {topic} mit {others}: {prev} brachte „{term}“ ein, {name} machte einen konkreten Vorschlag. {decision}",
                "Gespräch mit {others} zum Thema {topic}. {decision}",
                "{participants} sind das Thema {topic} durchgegangen, mit Fokus auf das Stichwort {tag}. {decision}",
            ],
            "decisions": [
                "Ergebnis: {name} liefert {deliverable}, danach schauen alle gemeinsam drauf.",
                "Beschlossen: Das Stichwort {tag} hat Vorrang.",
                "Noch nicht ganz einig, aber die Richtung steht.",
                "Einigung: Zuerst wird das Stichwort {tag} geklärt.",
                "Vereinbart: {colleague} und {name} stimmen die Details ab.",
            ],
        },
        "reflection": {
            "actions": [
                "{name} zieht sich mit einem Notizbuch in die Sofaecke zurück und geht die letzten Tage durch.",
                "{name} schaut eine Weile aus dem Fenster und beginnt dann, Zusammenhänge aufzuschreiben.",
                "{name} legt die Notizen der letzten Tage nebeneinander und sucht nach dem roten Faden.",
                "{name} dreht eine Runde um den Block und denkt nach.",
                "{name} klebt Haftnotizen an die Wand und ordnet sie so lange um, bis ein Muster entsteht.",
            ],
            "says": [
                "Ich glaube, ich sehe langsam, worauf das alles hinausläuft.",
                "Interessant – das hängt alles zusammen.",
                "Ah. Jetzt ergibt das Sinn.",
                "Das hätte ich früher sehen können.",
            ],
            "frames": [
                "{a} und {b} gehören zusammen: Beim Stichwort {tag_a} geht es eigentlich um {tag_b}.",
                "Wenn ich {a} neben {b} lege, wird klar: {tag_a} und {tag_b} sollten wir als ein Thema denken.",
                "{a} und {b} lehren mich, dass {tag_a} erst durch {tag_b} Gewicht bekommt.",
                "Muster erkannt: Immer wenn es um {tag_a} geht, taucht auch {tag_b} auf – siehe {a}.",
                "{a} und {b} zeigen in dieselbe Richtung: {tag_a} ist kein Nebenthema mehr.",
                "{a} und {b} zusammen sagen mir: Beim Stichwort {tag_a} sind wir weiter, als wir glauben.",
            ],
            "frames_people": [
                "{who_possessive} Arbeit rund um {tag_a} prägt meine eigene mehr, als ich dachte – {a} war der Anfang.",
                "Mit {who} zusammen entsteht beim Stichwort {tag_a} etwas, das keiner allein geschafft hätte; {b} zeigt es.",
                "Ich sollte {who} öfter früh einbeziehen: {a} zeigt, wie viel das beim Stichwort {tag_a} bringt.",
            ],
            # How an insight refers to what it cites: a remark is quoted, an
            # earlier insight or an own artifact is named instead.
            "cite_memory": "„{text}“",
            "cite_insight": "meine frühere Einsicht zum Stichwort {tag}",
            "cite_artifact": "mein Artefakt „{title}“",
            "frames_single": [
                "{a} war wichtiger, als es im Moment wirkte – {tag_a} wird ein Schwerpunkt.",
                "Rückblickend zeigt {a} ein Prinzip: Beim Stichwort {tag_a} lieber mutig als glatt.",
                "{a} lehrt mich: {tag_a} braucht mehr Zeit und mehr Austausch.",
            ],
        },
        "artifact": {
            "byline": "*{label} von {author} · Tag {day}*",
            "brief_line": "Anlass: der Brief des Creative Directors – {brief}.",
            "fact_line": "- {fact} ({id})",
            "no_facts": "- Noch nichts Belastbares notiert – dieser Entwurf ist ein Anfang.",
            "open_questions": [
                "Wie viel davon sollen Spieler direkt erfahren, wie viel nur erahnen?",
                "Passt das zum Ton, den der Creative Director zuletzt vorgegeben hat?",
                "Wer im Team braucht das als Nächstes?",
                "Was davon ist Kanon, was nur Gerücht?",
                "Reicht der Umfang für die nächste Präsentation?",
                "Welche Verbindung zum Stichwort {tag} übersehen wir noch?",
            ],
            "team_lines": [
                "Abstimmen mit: {colleagues}.",
                "Rückmeldung erbeten von {colleagues}.",
                "Nächster Blick drauf: {colleagues}.",
            ],
        },
        "families": {
            "lore": {
                "label": "Lore-Eintrag",
                "deliverables": ["einen kurzen Lore-Eintrag", "eine Zeitleiste", "ein Glossar der Eigennamen"],
                "titles": ["Lore-Eintrag: {topic}", "Weltenbau – {topic}", "Chronik: {topic}"],
                "summaries": [
                    "{name} hat einen Lore-Eintrag zum Thema {topic} fertiggestellt – {quality}.",
                    "{name} hat die Überlieferung zum Thema {topic} aufgeschrieben, {quality}.",
                    "{name} hat einen neuen Weltenbau-Text zum Thema {topic} abgelegt – {quality}.",
                ],
                "qualities": [
                    "dicht und voller Andeutungen",
                    "nüchtern wie eine Chronik",
                    "düster und uralt im Ton",
                    "mit überraschenden Querverbindungen",
                    "knapp, aber stimmungsvoll",
                ],
                "overviews": [
                    "Dieser Eintrag hält fest, was wir zum Thema {topic} wissen – und was bewusst im Dunkeln bleibt.",
                    "Zum Thema {topic} gibt es viele Gerüchte; hier steht, was davon für unsere Welt gelten soll.",
                ],
                "sections": [
                    ["Überblick", "overview"],
                    ["Was wir wissen", "facts"],
                    ["Überlieferung", "extra"],
                    ["Details", "points"],
                    ["Offene Fragen", "open"],
                ],
                "points": [
                    "Ursprung: Das Thema {topic} braucht eine Ursache, die älter ist als jede Schrift.",
                    "Kultur: Jede Fraktion erzählt die Geschichte anders – das ist gewollt.",
                    "Geografie: Der Ort bekommt auf der Weltkarte eine klare Lage.",
                    "Widerspruch: Mindestens eine Quelle lügt, und Spieler sollen es merken können.",
                    "Stichwort {tag}: Hier liegt der Kern für spätere Quests.",
                    "Sprache: Eigennamen kurz halten, damit sie im Dialog funktionieren.",
                ],
                "extra": {
                    "style": "bullets",
                    "count": [3, 4],
                    "pool": [
                        "Frühe Zeit: Zum Thema {topic} existieren nur Bruchstücke alter Lieder.",
                        "Mittlere Zeit: Händler erzählen Geschichten, die wir beim Stichwort {tag} einordnen sollten.",
                        "Gegenwart: Die Menschen meiden den Ort, reden aber ständig darüber.",
                        "Eine Sekte verehrt, was andere fürchten – ihr Ursprung ist ungeklärt.",
                        "Ein Gelehrter behauptet, alles habe mit einem gebrochenen Eid begonnen.",
                        "Karten aus dieser Zeit zeigen an der Stelle nur einen weißen Fleck.",
                    ],
                },
            },
            "concept": {
                "label": "Konzept-Briefing",
                "deliverables": ["zwei, drei Konzeptskizzen", "ein Moodboard", "eine Silhouettenstudie"],
                "titles": ["Konzept: {topic}", "Konzept-Briefing – {topic}", "Visuelle Studie: {topic}"],
                "summaries": [
                    "{name} hat eine Konzeptskizze zum Thema {topic} fertiggestellt – {quality}.",
                    "{name} hat ein Konzept-Briefing mit Bild-Prompts zum Thema {topic} angelegt, {quality}.",
                    "{name} hat Skizzen zum Thema {topic} an die Pinnwand gehängt – {quality}.",
                ],
                "qualities": [
                    "organisch und dunkel",
                    "kühl, mit harten Silhouetten",
                    "warm und einladend",
                    "rau und verwittert",
                    "verspielt, aber stimmig",
                ],
                "overviews": [
                    "Ziel ist eine klare visuelle Richtung für das Thema {topic}, bevor jemand modelliert.",
                    "Dieses Briefing bündelt Stimmung, Formen und Farben für das Thema {topic}.",
                ],
                "sections": [
                    ["Ziel", "overview"],
                    ["Referenzen aus dem Team", "facts"],
                    ["Gestaltungsregeln", "points"],
                    ["Bild-Prompts", "extra"],
                    ["Offene Fragen", "open"],
                ],
                "points": [
                    "Silhouette zuerst: Das Thema {topic} muss auch aus der Entfernung lesbar sein.",
                    "Materialien erzählen Geschichte – nichts wirkt neu.",
                    "Eine Leitfarbe pro Zone, sonst verschwimmt alles.",
                    "Maßstab zeigen: immer eine Figur zum Größenvergleich.",
                    "Stichwort {tag}: visuell deutlich machen, nicht nur im Text.",
                    "Formen eher gewachsen als gebaut.",
                ],
                "extra": {
                    "style": "prompts",
                    "count": [2, 3],
                    "template": "{n}. *{view}* – {topic}, {palette}, {light}, {look}",
                    "view": [
                        "Weitwinkel-Establishing-Shot",
                        "Nahaufnahme der Oberflächen",
                        "Silhouettenstudie im Gegenlicht",
                        "Froschperspektive",
                        "Draufsicht als Kartenskizze",
                    ],
                    "palette": [
                        "Aschgrau und Knochenweiß",
                        "tiefes Grün mit Rostakzenten",
                        "Ocker und Rauchblau",
                        "Schwarz mit glühendem Orange",
                    ],
                    "light": [
                        "Nebel im Morgenlicht",
                        "harte Mittagssonne",
                        "kaltes Mondlicht",
                        "flackerndes Feuer von unten",
                    ],
                    "look": [
                        "Matte Painting",
                        "grobe Bleistiftskizze",
                        "Gouache-Look",
                        "Dark Fantasy, detailreich",
                    ],
                },
            },
            "design": {
                "label": "Design-Dokument",
                "deliverables": ["ein knappes Design-Dokument", "einen Regelentwurf", "einen spielbaren Papierprototyp"],
                "titles": ["Design-Dokument: {topic}", "Spielmechanik – {topic}", "Designentwurf: {topic}"],
                "summaries": [
                    "{name} hat ein Design-Dokument zum Thema {topic} vorgelegt – {quality}.",
                    "{name} hat die Mechaniken zum Thema {topic} aufgeschrieben, {quality}.",
                    "{name} hat einen Designentwurf zum Thema {topic} ins Wiki gestellt – {quality}.",
                ],
                "qualities": [
                    "klar strukturiert",
                    "mutig, mit ein paar steilen Thesen",
                    "pragmatisch und spielbar",
                    "ambitioniert, aber durchdacht",
                ],
                "overviews": [
                    "Spieler sollen das Thema {topic} erleben, nicht nur davon lesen.",
                    "Dieses Dokument beschreibt, wie sich das Thema {topic} anfühlen und spielen soll.",
                ],
                "sections": [
                    ["Spielerfahrung", "overview"],
                    ["Grundlage", "facts"],
                    ["Mechaniken", "extra"],
                    ["Designprinzipien", "points"],
                    ["Risiken und offene Fragen", "open"],
                ],
                "points": [
                    "Jede Entscheidung braucht eine sichtbare Konsequenz.",
                    "Das Thema {topic} soll man spielen, nicht nur lesen.",
                    "Lieber eine starke Mechanik als drei halbe.",
                    "Fehler dürfen passieren, aber nie unfair wirken.",
                    "Einstieg ohne Texttafeln.",
                    "Alles, was wir bauen, muss sich auf das Stichwort {tag} zurückführen lassen.",
                ],
                "extra": {
                    "style": "numbered",
                    "count": [3, 4],
                    "pool": [
                        "Entdecken: Spieler stoßen beim Erkunden auf das Thema {topic}, nicht über ein Menü.",
                        "Risiko und Belohnung: Wer tiefer geht, findet mehr, riskiert aber alles.",
                        "Wiederkehr: Orte verändern sich, wenn man zurückkommt.",
                        "Stichwort {tag}: als Kernmechanik testen, nicht als Dekoration.",
                        "Kooperation: Manche Rätsel lassen sich nur mit Hilfe von Nebenfiguren lösen.",
                        "Tempo: Nach jeder Spannungsspitze folgt eine ruhige Phase.",
                    ],
                },
            },
            "narrative": {
                "label": "Erzählentwurf",
                "deliverables": ["eine kurze Szene", "ein paar Dialogzeilen", "einen Quest-Aufhänger"],
                "titles": ["Erzählentwurf: {topic}", "Szene – {topic}", "Story-Notiz: {topic}"],
                "summaries": [
                    "{name} hat eine kurze Szene zum Thema {topic} geschrieben – {quality}.",
                    "{name} hat einen Erzählentwurf zum Thema {topic} fertig, {quality}.",
                    "{name} liest leise eine neue Szene zum Thema {topic} gegen – {quality}.",
                ],
                "qualities": [
                    "leise und eindringlich",
                    "mit einem starken Dialog",
                    "bitter und zärtlich zugleich",
                    "überraschend witzig",
                ],
                "overviews": [
                    "Eine kurze Szene, die das Thema {topic} aus Sicht der Figuren zeigt.",
                    "Der Entwurf testet, wie das Thema {topic} im Dialog klingt.",
                ],
                "sections": [
                    ["Prämisse", "overview"],
                    ["Was die Szene trägt", "facts"],
                    ["Szene", "extra"],
                    ["Erzählerische Leitlinien", "points"],
                    ["Offene Fragen", "open"],
                ],
                "points": [
                    "Ton: eher andeuten als erklären.",
                    "Jede Figur will etwas – auch in kurzen Szenen.",
                    "Das Thema {topic} bleibt im Subtext, nicht im Dialog.",
                    "Spieler sollen die Szene auch ohne Vorwissen verstehen.",
                    "Stichwort {tag}: als wiederkehrendes Motiv nutzen.",
                    "Kein Satz länger als nötig.",
                ],
                "extra": {
                    "style": "scene",
                    "settings": [
                        "*Dämmerung. Wind treibt Staub über den Platz. Zwei Gestalten warten.*",
                        "*Ein Lagerfeuer, fast heruntergebrannt. Jemand legt Holz nach.*",
                        "*Ein enger Gang, Fackellicht, irgendwo tropft Wasser.*",
                        "*Der Markt ist leer, nur ein Händler packt noch zusammen.*",
                    ],
                    "speakers": [
                        ["Die Kartografin", "Der Wächter"],
                        ["Mira", "Der alte Fährmann"],
                        ["Die Novizin", "Bruder Kael"],
                        ["Die Schmiedin", "Der Fremde"],
                    ],
                    "lines_a": [
                        "„Du hast es also auch gesehen.“",
                        "„Man sagt, dort draußen hört man Stimmen.“",
                        "„Wir hätten nie hierherkommen sollen.“",
                        "„Erzähl mir, was damals wirklich passiert ist.“",
                    ],
                    "lines_b": [
                        "„Gesehen? Ich habe davon geträumt, jede Nacht.“",
                        "„Stimmen? Nein. Erinnerungen.“",
                        "„Zu spät. Der Weg zurück ist verschüttet.“",
                        "„Die Wahrheit würde dir nicht gefallen.“",
                    ],
                    "lines_c": [
                        "„Dann zeig mir den Weg.“",
                        "„Mehr muss ich nicht wissen.“",
                        "„Und trotzdem gehen wir weiter.“",
                        "„Dann lass es uns zu Ende bringen.“",
                    ],
                    "closers": [
                        "*Schweigen. Dann ein Geräusch, weit entfernt.*",
                        "*Das Feuer erlischt.*",
                        "*Niemand schaut zurück.*",
                        "*Irgendwo schlägt eine Tür zu.*",
                    ],
                },
            },
            "technical": {
                "label": "Technische Notiz",
                "deliverables": ["einen technischen Prototyp", "eine Performance-Messung", "einen Shader-Test"],
                "titles": ["Technische Notiz: {topic}", "Pipeline – {topic}", "Tech-Check: {topic}"],
                "summaries": [
                    "{name} hat eine technische Notiz zum Thema {topic} abgelegt – {quality}.",
                    "{name} hat einen Tech-Check zum Thema {topic} gemacht, {quality}.",
                    "{name} hat die Pipeline für das Thema {topic} skizziert – {quality}.",
                ],
                "qualities": [
                    "mit konkreten Budgets",
                    "nüchtern und präzise",
                    "mit einem schnellen Prototyp",
                    "mit klaren Warnungen",
                ],
                "overviews": [
                    "Wie setzen wir das Thema {topic} technisch um, ohne das Budget zu sprengen?",
                    "Diese Notiz klärt, was das Thema {topic} für Engine, Shader und Pipeline bedeutet.",
                ],
                "sections": [
                    ["Fragestellung", "overview"],
                    ["Kontext", "facts"],
                    ["Vorgehen", "extra"],
                    ["Randbedingungen", "points"],
                    ["Offene Fragen", "open"],
                ],
                "points": [
                    "Budget: höchstens 2 ms GPU-Zeit pro Frame für diesen Bereich.",
                    "Texturen maximal 2K, Atlas wo möglich.",
                    "Alles muss sich über Parameter steuern lassen, nicht von Hand.",
                    "Das Thema {topic} darf die Ladezeiten nicht sprengen.",
                    "Lesbarkeit geht vor Effekt.",
                    "Keine Sonderlösung, die nur auf einer Plattform läuft.",
                ],
                "extra": {
                    "style": "numbered",
                    "count": [3, 5],
                    "pool": [
                        "Prototyp in der Engine aufsetzen, zunächst nur Graybox.",
                        "Shader-Variante für das Stichwort {tag} testen.",
                        "Performance auf der Zielhardware messen.",
                        "Asset-Namen und Ordnerstruktur festlegen.",
                        "LOD-Stufen definieren, bevor die Details kommen.",
                        "Ergebnisse mit Screenshots im Wiki dokumentieren.",
                    ],
                },
            },
            "qa": {
                "label": "QA-Notizen",
                "deliverables": ["eine Testcheckliste", "eine kurze Community-Umfrage", "einen Testlauf mit Protokoll"],
                "titles": ["QA-Notizen: {topic}", "Testplan – {topic}", "Checkliste: {topic}"],
                "summaries": [
                    "{name} hat eine QA-Checkliste zum Thema {topic} erstellt – {quality}.",
                    "{name} hat Testnotizen zum Thema {topic} gesammelt, {quality}.",
                    "{name} hat einen Testplan zum Thema {topic} verschickt – {quality}.",
                ],
                "qualities": [
                    "gründlich wie immer",
                    "mit ein paar unbequemen Fragen",
                    "kurz und gnadenlos",
                    "mit Blick auf die Community",
                ],
                "overviews": [
                    "Geprüft wird, ob das Thema {topic} für Spieler verständlich und stabil ist.",
                    "Diese Notizen sammeln Risiken und Testfälle zum Thema {topic}.",
                ],
                "sections": [
                    ["Umfang", "overview"],
                    ["Bekannt", "facts"],
                    ["Checkliste", "extra"],
                    ["Beobachtungen", "points"],
                    ["Offene Fragen", "open"],
                ],
                "points": [
                    "Erste Rückmeldungen aus der Community sind neugierig, aber skeptisch.",
                    "Beim Thema {topic} könnten Erwartungen entstehen, die wir nicht halten.",
                    "Mehrere Stellen sind schwer zu reproduzieren – mehr Logging nötig.",
                    "Einsteiger brauchen einen klareren Hinweis.",
                    "Stichwort {tag}: Hier erwarte ich die meisten Fehlerberichte.",
                    "Die Schwierigkeit schwankt stärker als geplant.",
                ],
                "extra": {
                    "style": "checklist",
                    "count": [4, 6],
                    "pool": [
                        "Verständlich ohne Vorwissen?",
                        "Funktioniert das Thema {topic} auch beim zweiten Durchlauf?",
                        "Gibt es Sackgassen, aus denen man nicht herauskommt?",
                        "Sind alle Texte in beiden Sprachen vorhanden?",
                        "Passt das Stichwort {tag} zu dem, was die Community erwartet?",
                        "Barrierefreiheit: Farben, Untertitel und Steuerung geprüft?",
                        "Speichern und Laden mitten in der Sequenz?",
                    ],
                },
            },
            "production": {
                "label": "Produktionsplan",
                "deliverables": ["einen groben Zeitplan", "eine Aufgabenliste mit Zuständigkeiten", "eine Risikoliste"],
                "titles": ["Produktionsplan: {topic}", "Zeitplan – {topic}", "Meilensteine: {topic}"],
                "summaries": [
                    "{name} hat einen Produktionsplan zum Thema {topic} aufgestellt – {quality}.",
                    "{name} hat Meilensteine zum Thema {topic} verteilt, {quality}.",
                    "{name} hat den Zeitplan zum Thema {topic} ans Board gehängt – {quality}.",
                ],
                "qualities": [
                    "realistisch, mit Puffer",
                    "ehrgeizig getaktet",
                    "mit klaren Zuständigkeiten",
                    "mit einer deutlichen Risikoliste",
                ],
                "overviews": [
                    "Bis wann steht das Thema {topic}, und wer macht was?",
                    "Dieser Plan bringt das Thema {topic} in eine realistische Reihenfolge.",
                ],
                "sections": [
                    ["Ziel", "overview"],
                    ["Stand", "facts"],
                    ["Aufgaben", "extra"],
                    ["Risiken", "points"],
                    ["Offene Fragen", "open"],
                ],
                "points": [
                    "Abhängigkeiten zwischen Konzept und Design könnten uns ausbremsen.",
                    "Das Thema {topic} wächst schneller als geplant – den Umfang im Blick behalten.",
                    "Urlaub und Krankheit sind noch nicht eingeplant.",
                    "Feedback des Creative Directors kann Prioritäten verschieben.",
                    "Stichwort {tag}: braucht früh eine Entscheidung.",
                    "Zu viele parallele Baustellen.",
                ],
                "extra": {
                    "style": "table",
                    "count": [3, 4],
                    "header": ["| Aufgabe | Wer | Bis |", "|---|---|---|"],
                    "row": "| {task} | {who} | Tag {due} |",
                    "pool": [
                        "Erste Skizzen zum Thema {topic}",
                        "Abstimmung zum Stichwort {tag}",
                        "Prototyp spielbar machen",
                        "Review mit dem Creative Director",
                        "Texte und Dialoge",
                        "Testlauf und Feedback",
                    ],
                },
            },
            "notes": {
                "label": "Notizen",
                "deliverables": ["eine Notiz mit den offenen Punkten", "eine kurze Zusammenfassung", "eine Liste mit Ideen"],
                "titles": ["Notizen: {topic}", "Arbeitsstand – {topic}", "Zwischenstand: {topic}"],
                "summaries": [
                    "{name} hat Notizen zum Thema {topic} zusammengestellt – {quality}.",
                    "{name} hat einen Zwischenstand zum Thema {topic} aufgeschrieben, {quality}.",
                    "{name} hat den Arbeitsstand zum Thema {topic} geteilt – {quality}.",
                ],
                "qualities": ["übersichtlich", "mit vielen Querverweisen", "knapp und praktisch"],
                "overviews": [
                    "Hier sammle ich alles zum Thema {topic}, was bisher feststeht.",
                    "Ein Zwischenstand zum Thema {topic}, damit niemand suchen muss.",
                ],
                "sections": [
                    ["Worum es geht", "overview"],
                    ["Grundlage", "facts"],
                    ["Gedanken", "points"],
                    ["Nächste Schritte", "extra"],
                    ["Offene Fragen", "open"],
                ],
                "points": [
                    "Das Thema {topic} ist größer, als es zuerst aussah.",
                    "Das Stichwort {tag} verbindet mehrere lose Fäden.",
                    "Manches passt noch nicht zusammen – das ist in Ordnung.",
                    "Weniger ist hier mehr.",
                    "Früh zeigen, nicht spät perfektionieren.",
                ],
                "extra": {
                    "style": "numbered",
                    "count": [3, 4],
                    "pool": [
                        "Material zum Thema {topic} sichten und sortieren.",
                        "Mit dem Team über das Stichwort {tag} sprechen.",
                        "Einen ersten Entwurf schreiben.",
                        "Feedback einholen und einarbeiten.",
                        "Ergebnis im Wiki ablegen.",
                    ],
                },
            },
        },
    },
    "en": {
        "grammar": {
            "possessive": "'s",
            "possessive_sibilant": "'",
            "quote_open": "“",
            "quote_close": "”",
            "team": "the team",
            "quote_topics_starting_with": "",
            "function_words": (
                "under above after before without against between through because while "
                "should would could might must shall which where there these those "
                "really maybe just right think still very much such only other every "
                "into onto upon within"
            ),
        },
        "fallback_topics": [
            "open points from yesterday",
            "the state of the project",
            "the mood of the game world",
            "the next steps",
            "the project's common thread",
        ],
        "arrival": {
            "actions": [
                "{name} walks into the studio {way}, {mood}.",
                "{name} unlocks the door, hangs up the jacket and sits down at the desk, {mood}.",
                "{name} arrives {way} and boots up the computer – {mood}.",
                "{name} stops at the coffee machine for a moment, then heads to the desk, {mood}.",
                "{name} shows up {way}, {mood}, and drops the bag next to the monitor.",
                "{name} comes in {way} and takes a long look at the whiteboard, {mood}.",
                "{name} shoulders the door open, {way} and {mood}.",
            ],
            "ways": [
                "right on time",
                "a little later than usual",
                "by bike",
                "with a mug of tea",
                "with shoes wet from the rain",
                "earlier than planned",
                "with headphones on",
            ],
            "moods": [
                "in a good mood",
                "still a bit sleepy",
                "wide awake",
                "thoughtful",
                "full of energy",
                "calm and focused",
                "a little tense",
                "curious about the day",
                "in high spirits",
            ],
            "greetings": [
                "Morning, everyone!",
                "Good morning!",
                "Hi, all.",
                "Hey there!",
                "Morning! Is the coffee ready yet?",
                "Good morning – nice to see everyone here.",
            ],
            "greetings_named": [
                "Morning, {colleague}!",
                "Hey {colleague}, good morning.",
                "Good morning, {colleague} – sleep well?",
                "Morning, everyone! {colleague}, you've been busy already.",
            ],
            "plan_says": [
                "Today I want to take care of {topic}.",
                "I'm picking up {topic} today.",
                "My plan for today: get a good way further with {topic}.",
                "I'm sticking with {topic} today – there's a lot left in it.",
                "Today {topic} is my main focus, especially the {tag} angle.",
                "I'd like to work on {topic} today and take a closer look at the {tag} angle.",
            ],
            "plan_says_brief": [
                "I've read the new brief from the Creative Director – {brief}. I'm planning my day around it.",
                "I'm following the brief {brief} today, and I'll tackle {topic} for it.",
                "The brief is in: {brief}. That comes first today, together with {topic}.",
            ],
            "plan_texts": [
                "Keep working on {topic}, focusing on the {tag} angle.",
                "Flesh out {topic} and show a first draft.",
                "Settle the open questions on {topic} and sort my notes on the {tag} angle.",
                "Get {topic} to a state the team can build on.",
                "Look at {topic} with fresh eyes and keep what holds up.",
            ],
            "plan_texts_brief": [
                "Respond to the Creative Director's brief ({brief}) by working on {topic}.",
                "Put the brief {brief} into practice, starting with {topic}.",
                "Take the brief {brief} seriously and re-examine {topic} in its light.",
            ],
            "memories": [
                "Noticed this morning how much I want to work on {topic}.",
                "Thought about {topic} on the way in; the {tag} angle won't let go of me.",
                "{colleague} was in a good mood this morning – the studio feels good.",
                "Still on my mind from yesterday: {fact}.",
                "Over the first coffee I thought about this again: {fact}.",
            ],
            "wish_says": [
                "{colleague}, do you have a minute later? I'd like to talk about {wish}.",
                "{colleague}, let's sit down later about {wish}.",
                "I'd like to talk with {colleague} today about {wish}.",
            ],
            "wish_topics": [
                "{topic}",
                "{topic} and {other_topic}",
            ],
        },
        "work": {
            "actions": [
                "{name} digs into {topic} and reorganises the notes.",
                "{name} works on {topic} with full focus, headphones on.",
                "{name} sketches, discards and sketches again – {topic} is slowly taking shape.",
                "{name} spreads the material on {topic} across the table and goes through it point by point.",
                "{name} writes a first version on {topic} and checks it against the notes.",
                "{name} turns {topic} over once more and finds a new approach through the {tag} angle.",
                "{name} glances over at {colleague}, then goes back to work on {topic}.",
            ],
            "actions_brief": [
                "{name} reads the brief {brief} again and gets straight to work on it.",
                "{name} puts the brief {brief} next to the keyboard and works through it point by point.",
                "{name} considers what the brief {brief} means for {topic} and starts working.",
            ],
            "says": [
                "I think I've almost got it.",
                "Hold on, I need to write this down.",
                "{colleague}, look – {topic} is really coming together.",
                "Hm. It was simpler in my head.",
                "Two more paragraphs, then I'll show you.",
                "The {tag} angle was the key.",
            ],
            "memories": [
                "Working on {topic}, I noticed the {tag} angle carries more than I thought.",
                "Got stuck on {topic}; the knot isn't untied yet.",
                "A first structure for {topic} is in place, the details are still missing.",
                "While working on {topic} I thought of this: {fact}.",
                "Found a connection: {fact} – that fits {topic}.",
                "On {topic}, I should ask {colleague} how it fits the {tag} angle.",
                "Spent too long on one detail of {topic}; back to it tomorrow with a fresh head.",
                "Small breakthrough on {topic}: the {tag} angle finally ties the loose ends together.",
            ],
            "replan_texts": [
                "After {source}, adjust the plan: rethink {topic} with the {tag} angle in mind.",
                "Plan adjusted because of {source}: {topic} stays, but the {tag} angle comes first.",
                "New priorities because of {source}: first the {tag} angle, then back to {topic}.",
                "New on my radar: {since_fact}. So I'm reweighting {topic} around the {tag} angle.",
            ],
            "source_brief": "the new brief from the Creative Director",
            "source_artifact": "{owner} new artifact",
            "source_other": "what came in today",
        },
        "meeting": {
            "actions": [
                "{name} leans forward and taps the pen on the table.",
                "{name} listens to {prev} and nods slowly.",
                "{name} leafs through the notes briefly, then speaks up.",
                "{name} leans back and folds both arms.",
                "{name} gets up and writes a keyword on the whiteboard.",
                "{name} pushes the laptop aside and looks around the room.",
            ],
            "openers": [
                "Thanks for coming. I wanted to talk with you about {topic}.",
                "So, about {topic}: I have a few thoughts and want to hear what you make of them.",
                "Let's jump right in – {topic}. Where are you at?",
                "{colleagues}, I'll just start: with {topic}, the {tag} angle is where I get stuck.",
                "Some background: {topic} has been on my mind since yesterday, especially the {tag} angle.",
            ],
            "openers_brief": [
                "You've seen the brief: {brief}. What does it mean for us in practice?",
                "The Creative Director writes {brief}. I'd like us to decide together how to approach it.",
                "About the new brief – {brief}: I see a chance in it, but we need to line up.",
            ],
            "agree": [
                "{prev}, I'm completely with you – “{term}” is exactly the right point.",
                "True, {prev}. “{term}” nails it.",
                "Yes, {prev}, “{term}” – I'd sign that right away.",
                "{prev} is right: “{term}” is the heart of it.",
                "Exactly that, {prev}. We should hold on to “{term}”.",
            ],
            "object": [
                "{prev}, I'm sceptical about “{term}” – that could come back to bite us.",
                "I have to disagree, {prev}: “{term}” alone isn't enough for me.",
                "Hm, {prev}, I see “{term}” a little differently.",
                "{prev}, I get the idea, but “{term}” clashes with what we already have.",
                "Careful, {prev} – if we do “{term}” like that, we lose the thread.",
            ],
            "add": [
                "{prev}, I'd take “{term}” one step further.",
                "Building on {prev}: “{term}” connects well with the {tag} angle.",
                "{prev}, “{term}” gives me an idea.",
                "If I understand {prev} right, “{term}” is the lever – and I can help there.",
                "Good point, {prev}. I have something to add on “{term}”.",
            ],
            "proposals": [
                "My proposal: I'll prepare {deliverable} on {topic} by tomorrow.",
                "I could contribute {deliverable}, then we'd have something concrete in hand.",
                "Let's make it concrete: I'll take on {deliverable}.",
                "Proposal: {colleague} and I sit down afterwards and turn this into {deliverable}.",
                "Concretely, I suggest we settle the {tag} angle first, and then I deliver {deliverable}.",
            ],
            "fact_refs": [
                "I made a note on this: {fact}.",
                "Remember? {fact}.",
                "This fits, by the way: {fact}.",
            ],
            "memories": [
                "{prev} brought up “{term}” about {topic} – I should remember that.",
                "Noticed in the meeting on {topic} that we picture it differently.",
                "Good energy in the meeting on {topic}; the {tag} angle kept coming up.",
                "Important point from {prev}: “{term}”.",
            ],
            "summaries": [
                "{participants} talked about {topic}. {decision}",
                "Meeting on {topic} with {others}: {prev} brought up “{term}”, {name} made a concrete proposal. {decision}",
                "Conversation with {others} about {topic}. {decision}",
                "{participants} went through {topic}, focusing on the {tag} angle. {decision}",
            ],
            "decisions": [
                "Outcome: {name} delivers {deliverable}, then everyone takes a look together.",
                "Decided: the {tag} angle comes first.",
                "Not fully agreed yet, but the direction is set.",
                "Agreed: the {tag} angle gets settled first.",
                "Agreed: {colleague} and {name} will work out the details.",
            ],
        },
        "reflection": {
            "actions": [
                "{name} retreats to the sofa corner with a notebook and goes over the last few days.",
                "{name} looks out of the window for a while, then starts writing down connections.",
                "{name} lays out the notes of the last few days side by side, looking for the common thread.",
                "{name} takes a walk around the block to think.",
                "{name} sticks notes on the wall and rearranges them until a pattern appears.",
            ],
            "says": [
                "I think I'm starting to see where all this is heading.",
                "Interesting – it all hangs together.",
                "Ah. Now it makes sense.",
                "I could have seen that sooner.",
            ],
            "frames": [
                "{a} and {b} belong together: the {tag_a} question is really about {tag_b}.",
                "Putting {a} next to {b} makes it clear: we should think of {tag_a} and {tag_b} as one subject.",
                "From {a} and {b} I learn that {tag_a} only gains weight through {tag_b}.",
                "Pattern spotted: whenever {tag_a} comes up, {tag_b} shows up too – see {a}.",
                "{a} and {b} point the same way: {tag_a} is no longer a side topic.",
                "{a} and {b} together tell me we are further along with {tag_a} than we think.",
            ],
            "frames_people": [
                "{who_possessive} work on {tag_a} shapes my own more than I thought – {a} was the start.",
                "Together with {who}, something is growing around {tag_a} that neither of us would have managed alone; {b} shows it.",
                "I should involve {who} earlier: {a} shows how much that helps with {tag_a}.",
            ],
            "cite_memory": "“{text}”",
            "cite_insight": "my earlier insight on {tag}",
            "cite_artifact": "my artifact “{title}”",
            "frames_single": [
                "{a} mattered more than it seemed at the time – {tag_a} is becoming a focus.",
                "Looking back, {a} holds a principle: with {tag_a}, bold beats polished.",
                "My takeaway from {a}: {tag_a} needs more time and more exchange.",
            ],
        },
        "artifact": {
            "byline": "*{label} by {author} · day {day}*",
            "brief_line": "Occasion: the Creative Director's brief – {brief}.",
            "fact_line": "- {fact} ({id})",
            "no_facts": "- Nothing solid noted yet – this draft is a beginning.",
            "open_questions": [
                "How much of this should players learn directly, and how much only sense?",
                "Does this fit the tone the Creative Director set last time?",
                "Who on the team needs this next?",
                "What of this is canon, and what is only rumour?",
                "Is the scope enough for the next presentation?",
                "What link to the {tag} angle are we still missing?",
            ],
            "team_lines": [
                "To align with: {colleagues}.",
                "Feedback requested from {colleagues}.",
                "Next pair of eyes: {colleagues}.",
            ],
        },
        "families": {
            "lore": {
                "label": "Lore entry",
                "deliverables": ["a short lore entry", "a timeline", "a glossary of proper names"],
                "titles": ["Lore entry: {topic}", "Worldbuilding – {topic}", "Chronicle: {topic}"],
                "summaries": [
                    "{name} has finished a lore entry on {topic} – {quality}.",
                    "{name} has written down the lore of {topic}, {quality}.",
                    "{name} has filed a new worldbuilding text on {topic} – {quality}.",
                ],
                "qualities": [
                    "dense and full of hints",
                    "as sober as a chronicle",
                    "dark and ancient in tone",
                    "with surprising cross-links",
                    "brief but atmospheric",
                ],
                "overviews": [
                    "This entry records what we know about {topic} – and what deliberately stays in the dark.",
                    "There are many rumours about {topic}; here is what should hold true for our world.",
                ],
                "sections": [
                    ["Overview", "overview"],
                    ["What we know", "facts"],
                    ["Lore", "extra"],
                    ["Details", "points"],
                    ["Open questions", "open"],
                ],
                "points": [
                    "Origin: {topic} needs a cause older than any writing.",
                    "Culture: every faction tells the story differently – on purpose.",
                    "Geography: the place gets a clear position on the world map.",
                    "Contradiction: at least one source lies, and players should be able to notice.",
                    "The {tag} angle: this is the core for later quests.",
                    "Language: keep proper names short so they work in dialogue.",
                ],
                "extra": {
                    "style": "bullets",
                    "count": [3, 4],
                    "pool": [
                        "Early age: only fragments of old songs mention {topic}.",
                        "Middle age: traders tell stories we should file under the {tag} angle.",
                        "Present: people avoid the place but talk about it constantly.",
                        "A sect worships what others fear – its origin is unclear.",
                        "A scholar claims it all began with a broken oath.",
                        "Maps from that time show only a blank spot there.",
                    ],
                },
            },
            "concept": {
                "label": "Concept brief",
                "deliverables": ["two or three concept sketches", "a mood board", "a silhouette study"],
                "titles": ["Concept: {topic}", "Concept brief – {topic}", "Visual study: {topic}"],
                "summaries": [
                    "{name} has finished a concept sketch of {topic} – {quality}.",
                    "{name} has put together a concept brief with image prompts for {topic}, {quality}.",
                    "{name} has pinned sketches of {topic} to the board – {quality}.",
                ],
                "qualities": [
                    "organic and dark",
                    "cool, with hard silhouettes",
                    "warm and inviting",
                    "rough and weathered",
                    "playful but coherent",
                ],
                "overviews": [
                    "The goal is a clear visual direction for {topic} before anyone starts modelling.",
                    "This brief bundles mood, shapes and colours for {topic}.",
                ],
                "sections": [
                    ["Goal", "overview"],
                    ["References from the team", "facts"],
                    ["Design rules", "points"],
                    ["Image prompts", "extra"],
                    ["Open questions", "open"],
                ],
                "points": [
                    "Silhouette first: {topic} must read from a distance.",
                    "Materials tell a story – nothing looks new.",
                    "One key colour per zone, or everything blurs.",
                    "Show scale: always include a figure for comparison.",
                    "The {tag} angle: make it visible, not just written.",
                    "Shapes grown rather than built.",
                ],
                "extra": {
                    "style": "prompts",
                    "count": [2, 3],
                    "template": "{n}. *{view}* – {topic}, {palette}, {light}, {look}",
                    "view": [
                        "wide establishing shot",
                        "close-up of the surfaces",
                        "silhouette study against the light",
                        "worm's-eye view",
                        "top-down map sketch",
                    ],
                    "palette": [
                        "ash grey and bone white",
                        "deep green with rust accents",
                        "ochre and smoke blue",
                        "black with glowing orange",
                    ],
                    "light": [
                        "fog in morning light",
                        "harsh midday sun",
                        "cold moonlight",
                        "flickering firelight from below",
                    ],
                    "look": [
                        "matte painting",
                        "rough pencil sketch",
                        "gouache look",
                        "dark fantasy, highly detailed",
                    ],
                },
            },
            "design": {
                "label": "Design document",
                "deliverables": ["a short design document", "a draft ruleset", "a playable paper prototype"],
                "titles": ["Design document: {topic}", "Game mechanics – {topic}", "Design draft: {topic}"],
                "summaries": [
                    "{name} has presented a design document on {topic} – {quality}.",
                    "{name} has written up the mechanics for {topic}, {quality}.",
                    "{name} has put a design draft on {topic} into the wiki – {quality}.",
                ],
                "qualities": [
                    "clearly structured",
                    "bold, with a few daring claims",
                    "pragmatic and playable",
                    "ambitious but well thought through",
                ],
                "overviews": [
                    "Players should experience {topic}, not just read about it.",
                    "This document describes how {topic} should feel and play.",
                ],
                "sections": [
                    ["Player experience", "overview"],
                    ["Basis", "facts"],
                    ["Mechanics", "extra"],
                    ["Design principles", "points"],
                    ["Risks and open questions", "open"],
                ],
                "points": [
                    "Every decision needs a visible consequence.",
                    "{topic} should be played, not just read.",
                    "Better one strong mechanic than three half ones.",
                    "Failure may happen but must never feel unfair.",
                    "Onboarding without text panels.",
                    "Everything we build must trace back to the {tag} angle.",
                ],
                "extra": {
                    "style": "numbered",
                    "count": [3, 4],
                    "pool": [
                        "Discovery: players come across {topic} while exploring, not through a menu.",
                        "Risk and reward: going deeper yields more but risks everything.",
                        "Return: places change when you come back.",
                        "The {tag} angle: test it as a core mechanic, not as decoration.",
                        "Cooperation: some puzzles can only be solved with the help of side characters.",
                        "Pacing: every peak of tension is followed by a quiet phase.",
                    ],
                },
            },
            "narrative": {
                "label": "Narrative draft",
                "deliverables": ["a short scene", "a few lines of dialogue", "a quest hook"],
                "titles": ["Narrative draft: {topic}", "Scene – {topic}", "Story note: {topic}"],
                "summaries": [
                    "{name} has written a short scene about {topic} – {quality}.",
                    "{name} has finished a narrative draft on {topic}, {quality}.",
                    "{name} quietly reads a new scene about {topic} aloud – {quality}.",
                ],
                "qualities": [
                    "quiet and haunting",
                    "with a strong dialogue",
                    "bitter and tender at once",
                    "surprisingly funny",
                ],
                "overviews": [
                    "A short scene that shows {topic} through the characters' eyes.",
                    "This draft tests how {topic} sounds in dialogue.",
                ],
                "sections": [
                    ["Premise", "overview"],
                    ["What carries the scene", "facts"],
                    ["Scene", "extra"],
                    ["Narrative guidelines", "points"],
                    ["Open questions", "open"],
                ],
                "points": [
                    "Tone: hint rather than explain.",
                    "Every character wants something – even in short scenes.",
                    "{topic} stays in the subtext, not in the dialogue.",
                    "Players should understand the scene without prior knowledge.",
                    "The {tag} angle: use it as a recurring motif.",
                    "No sentence longer than necessary.",
                ],
                "extra": {
                    "style": "scene",
                    "settings": [
                        "*Dusk. Wind drives dust across the square. Two figures wait.*",
                        "*A campfire, almost burnt down. Someone adds wood.*",
                        "*A narrow corridor, torchlight, water dripping somewhere.*",
                        "*The market is empty; only one trader is still packing up.*",
                    ],
                    "speakers": [
                        ["The cartographer", "The warden"],
                        ["Mira", "The old ferryman"],
                        ["The novice", "Brother Kael"],
                        ["The smith", "The stranger"],
                    ],
                    "lines_a": [
                        "“So you saw it too.”",
                        "“They say you can hear voices out there.”",
                        "“We should never have come here.”",
                        "“Tell me what really happened back then.”",
                    ],
                    "lines_b": [
                        "“Saw it? I've dreamt of it, every night.”",
                        "“Voices? No. Memories.”",
                        "“Too late. The way back is buried.”",
                        "“You wouldn't like the truth.”",
                    ],
                    "lines_c": [
                        "“Then show me the way.”",
                        "“That's all I need to know.”",
                        "“And still we keep going.”",
                        "“Then let's finish it.”",
                    ],
                    "closers": [
                        "*Silence. Then a sound, far away.*",
                        "*The fire goes out.*",
                        "*Nobody looks back.*",
                        "*Somewhere a door slams.*",
                    ],
                },
            },
            "technical": {
                "label": "Technical note",
                "deliverables": ["a technical prototype", "a performance measurement", "a shader test"],
                "titles": ["Technical note: {topic}", "Pipeline – {topic}", "Tech check: {topic}"],
                "summaries": [
                    "{name} has filed a technical note on {topic} – {quality}.",
                    "{name} has run a tech check on {topic}, {quality}.",
                    "{name} has sketched the pipeline for {topic} – {quality}.",
                ],
                "qualities": [
                    "with concrete budgets",
                    "sober and precise",
                    "with a quick prototype",
                    "with clear warnings",
                ],
                "overviews": [
                    "How do we build {topic} without blowing the budget?",
                    "This note clarifies what {topic} means for engine, shaders and pipeline.",
                ],
                "sections": [
                    ["Question", "overview"],
                    ["Context", "facts"],
                    ["Approach", "extra"],
                    ["Constraints", "points"],
                    ["Open questions", "open"],
                ],
                "points": [
                    "Budget: at most 2 ms of GPU time per frame for this area.",
                    "Textures 2K at most, atlases where possible.",
                    "Everything must be driven by parameters, not by hand.",
                    "{topic} must not blow up loading times.",
                    "Readability beats effects.",
                    "No special solution that only runs on one platform.",
                ],
                "extra": {
                    "style": "numbered",
                    "count": [3, 5],
                    "pool": [
                        "Set up a prototype in the engine, graybox only at first.",
                        "Test a shader variant for the {tag} angle.",
                        "Measure performance on the target hardware.",
                        "Fix asset names and folder structure.",
                        "Define LOD levels before the details arrive.",
                        "Document the results with screenshots in the wiki.",
                    ],
                },
            },
            "qa": {
                "label": "QA notes",
                "deliverables": ["a test checklist", "a short community survey", "a logged test run"],
                "titles": ["QA notes: {topic}", "Test plan – {topic}", "Checklist: {topic}"],
                "summaries": [
                    "{name} has drawn up a QA checklist for {topic} – {quality}.",
                    "{name} has collected test notes on {topic}, {quality}.",
                    "{name} has sent round a test plan for {topic} – {quality}.",
                ],
                "qualities": [
                    "thorough as always",
                    "with a few uncomfortable questions",
                    "short and merciless",
                    "with the community in mind",
                ],
                "overviews": [
                    "We check whether {topic} is understandable and stable for players.",
                    "These notes collect risks and test cases for {topic}.",
                ],
                "sections": [
                    ["Scope", "overview"],
                    ["Known", "facts"],
                    ["Checklist", "extra"],
                    ["Observations", "points"],
                    ["Open questions", "open"],
                ],
                "points": [
                    "First community reactions are curious but sceptical.",
                    "{topic} could raise expectations we cannot meet.",
                    "Several spots are hard to reproduce – more logging needed.",
                    "Newcomers need a clearer hint.",
                    "The {tag} angle: this is where I expect most bug reports.",
                    "Difficulty fluctuates more than planned.",
                ],
                "extra": {
                    "style": "checklist",
                    "count": [4, 6],
                    "pool": [
                        "Understandable without prior knowledge?",
                        "Does {topic} still work on a second playthrough?",
                        "Are there dead ends you cannot get out of?",
                        "Are all texts available in both languages?",
                        "Does the {tag} angle match what the community expects?",
                        "Accessibility: colours, subtitles and controls checked?",
                        "Saving and loading in the middle of the sequence?",
                    ],
                },
            },
            "production": {
                "label": "Production plan",
                "deliverables": ["a rough schedule", "a task list with owners", "a risk list"],
                "titles": ["Production plan: {topic}", "Schedule – {topic}", "Milestones: {topic}"],
                "summaries": [
                    "{name} has set up a production plan for {topic} – {quality}.",
                    "{name} has handed out milestones for {topic}, {quality}.",
                    "{name} has pinned the schedule for {topic} to the board – {quality}.",
                ],
                "qualities": [
                    "realistic, with buffer",
                    "ambitiously timed",
                    "with clear ownership",
                    "with a frank risk list",
                ],
                "overviews": [
                    "When will {topic} be done, and who does what?",
                    "This plan puts {topic} into a realistic order.",
                ],
                "sections": [
                    ["Goal", "overview"],
                    ["Status", "facts"],
                    ["Tasks", "extra"],
                    ["Risks", "points"],
                    ["Open questions", "open"],
                ],
                "points": [
                    "Dependencies between concept and design could slow us down.",
                    "{topic} is growing faster than planned – keep an eye on scope.",
                    "Holidays and sick days are not planned in yet.",
                    "Feedback from the Creative Director can shift priorities.",
                    "The {tag} angle: needs an early decision.",
                    "Too many parallel work streams.",
                ],
                "extra": {
                    "style": "table",
                    "count": [3, 4],
                    "header": ["| Task | Who | Due |", "|---|---|---|"],
                    "row": "| {task} | {who} | day {due} |",
                    "pool": [
                        "First sketches for {topic}",
                        "Align on the {tag} angle",
                        "Make the prototype playable",
                        "Review with the Creative Director",
                        "Texts and dialogue",
                        "Test run and feedback",
                    ],
                },
            },
            "notes": {
                "label": "Notes",
                "deliverables": ["a note with the open points", "a short summary", "a list of ideas"],
                "titles": ["Notes: {topic}", "Work in progress – {topic}", "Status: {topic}"],
                "summaries": [
                    "{name} has compiled notes on {topic} – {quality}.",
                    "{name} has written up the current state of {topic}, {quality}.",
                    "{name} has shared the work in progress on {topic} – {quality}.",
                ],
                "qualities": ["well organised", "full of cross-references", "short and practical"],
                "overviews": [
                    "Here I collect everything about {topic} that is settled so far.",
                    "A status update on {topic}, so nobody has to search.",
                ],
                "sections": [
                    ["What it is about", "overview"],
                    ["Basis", "facts"],
                    ["Thoughts", "points"],
                    ["Next steps", "extra"],
                    ["Open questions", "open"],
                ],
                "points": [
                    "{topic} is bigger than it first looked.",
                    "The {tag} angle connects several loose threads.",
                    "Some of it doesn't fit together yet – that's fine.",
                    "Less is more here.",
                    "Show early rather than polish late.",
                ],
                "extra": {
                    "style": "numbered",
                    "count": [3, 4],
                    "pool": [
                        "Review and sort the material on {topic}.",
                        "Talk with the team about the {tag} angle.",
                        "Write a first draft.",
                        "Gather feedback and work it in.",
                        "File the result in the wiki.",
                    ],
                },
            },
        },
    },
}

LANGUAGES = tuple(LINES)
