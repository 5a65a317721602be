"""Which module writes the offline reply for which scene kind, and the reply for a kind without one.

The kinds know nothing of the offline player: it keeps this table. A kind from another
package (``kinds/__init__.py``) that adds no composer is still played: ``default_body``
writes the smallest reply its reply model and rules accept (an action, a line, a note, the
conversation summary where the kind asks for one in a last turn, and the least value of any other
field it requires), never a traceback.
A package that wants better lines calls ``register(name, compose)``.
"""

from __future__ import annotations

from typing import Any, Callable

from ...reply_models import reply_schema
from ...sections import reply_model_for
from ..base import ReplyRequest
from . import arrival, event, meeting, reflection, work
from .invitations import answers, mention
from .organise import proposal
from .player import Player

Composer = Callable[[Player], dict[str, Any]]

COMPOSERS: dict[str, Composer] = {
    "ARRIVAL": arrival.play,
    "WORK": work.play,
    "MEETING": meeting.play,
    "REFLECTION": reflection.play,
    "ENCOUNTER": meeting.play,
    "EVENT": event.play,
    "GATHERING": meeting.play,
}

_DEFAULT_LINES = {
    "de": {"action": "{me} ist bei der Szene {kind} dabei.", "says": "Ich bin dabei.",
           "note": "In {ref} war ich bei einer Szene {kind} dabei.", "summary": "Wir waren zusammen bei {kind}."},
    "en": {"action": "{me} takes part in the {kind} scene.", "says": "I am here.",
           "note": "In {ref} I took part in a {kind} scene.", "summary": "We were together at {kind}."},
}


def register(name: str, compose: Composer) -> None:
    """The composer for the kind called ``name`` (a kind's package calls this when it loads)."""
    COMPOSERS[name.upper()] = compose


def default_body(player: Player) -> dict[str, Any]:
    """A valid reply for a kind the player has no composer for."""
    lines = _DEFAULT_LINES.get(player.code, _DEFAULT_LINES["en"])
    fields = {"me": player.me, "kind": player.spec.type, "ref": player.spec.ref}
    body: dict[str, Any] = {
        "action": lines["action"].format_map(fields),
        "says": lines["says"].format_map(fields),
        "memories": [player.note(lines["note"].format_map(fields), 3, [player.spec.type.lower()])],
    }
    if "conversation" in player.spec.kind.allows and player.req.final_turn:
        body["conversation"] = {"summary": lines["summary"].format_map(fields), "importance": 3, "tags": []}
    # What else the kind requires (a field of its own reply model): the least its schema accepts.
    model = reply_model_for(player.spec.kind)
    schema = reply_schema(model)
    for field in sorted(player.spec.kind.required(player.req.final_turn) - set(body)):
        key = model.model_fields[field].alias or field  # the schema names a field by its alias
        body[key] = least(schema["properties"][key], schema.get("$defs", {}), lines["note"].format_map(fields))
    return body


def least(schema: dict[str, Any], defs: dict[str, Any], text: str) -> Any:
    """The least value ``schema`` asks for that is not empty (a required field must say something):
    ``text`` (cut to its length) for a string, the lowest number allowed, one item of a list, the
    required fields of an object. A pattern or a format it does not read: a kind with such a
    required field needs a composer of its own (``register``)."""
    if "$ref" in schema:
        return least(defs[schema["$ref"].rpartition("/")[2]], defs, text)
    options = [option for option in schema.get("anyOf", []) if option.get("type") != "null"]
    if options:
        return least(options[0], defs, text)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "string":
        return text[: schema.get("maxLength", len(text))]
    if kind in ("integer", "number"):
        return schema["minimum"] if "minimum" in schema else schema.get("exclusiveMinimum", 0) + 1
    if kind == "boolean":
        return True
    if kind == "array":
        return [least(schema.get("items", {"type": "string"}), defs, text)] * max(1, schema.get("minItems", 1))
    if kind == "object":
        return {name: least(schema["properties"][name], defs, text) for name in schema.get("required", [])}
    return text


def play(request: ReplyRequest) -> dict[str, Any]:
    """The reply for ``request`` as a plain dict."""
    player = Player(request)
    reply = player.play(COMPOSERS.get(request.spec.type, default_body))
    proposed = proposal(player)
    if proposed is not None:
        reply["gathering"], announced = proposed
        reply["says"] = f"{reply.get('says', '').strip()} {announced}".strip()
    given = answers(player) if player.answers_invitations() else []
    if given:
        reply["invitations"] = given
    told = mention(player, {a["gathering"] for a in given if a["answer"] == "decline"})
    if told is not None:
        reply["says"] = f"{reply.get('says', '').strip()} {told}".strip()
    return reply
