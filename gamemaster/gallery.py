"""Gallery files: the slug in their names and the YAML front matter above their Markdown.

Titles and tags come from the model, so the front matter is written by a YAML emitter and
read back by the same library: a title like ``[Entwurf] Turm`` or a tag ``no`` must reach
Obsidian, Hugo or Jekyll as the string it is, not as a list, a boolean or a parse error.
PyYAML and python-slugify are imported where they are used: commands that never touch
the gallery do not pay for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from .printable import without_controls

#: German umlauts spelt out in file names (Fährhaus → faehrhaus), as this toolkit always did;
#: everything else is transliterated by text-unidecode (Башня → bashnia).
_SPELT_OUT = [["ä", "ae"], ["ö", "oe"], ["ü", "ue"], ["ß", "ss"], ["Ä", "Ae"], ["Ö", "Oe"], ["Ü", "Ue"]]
SLUG_LIMIT = 48


def slug(title: str, limit: int = SLUG_LIMIT) -> str:
    """An ASCII file-name slug, cut at a word boundary; the file's content keeps the title as it is."""
    from slugify import slugify

    cut = slugify(title, max_length=limit, word_boundary=True, save_order=True, replacements=_SPELT_OUT)
    return cut or "artifact"


def front_matter(fields: dict[str, object]) -> str:
    """The ``---`` block for ``fields``, in their order, umlauts and emoji as they are.

    Control characters are dropped (a header is no place for an escape sequence); a line
    break in a title is kept, quoted, so the value reads back as it was given."""
    import yaml

    text = yaml.safe_dump(
        {key: _clean(value) for key, value in fields.items()},
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=None,  # lists inline, [a, b], as the toolkit always wrote them
        width=math.inf,  # one line per value: a folded title is valid YAML but hard to grep
    )
    return f"---\n{text}---"


def artifact_file(fields: dict[str, object], content: str, when: date | None) -> str:
    """A gallery file: front matter as Obsidian and Hugo read it (``date`` of the scene's day,
    ``draft: true``, the title once) and the character's Markdown. A first heading that only
    repeats the title goes: the front matter holds it, and a site built from the gallery shows it."""
    header = {**fields, **({"date": when} if when else {}), "draft": True}  # a YAML date, unquoted
    body = content.strip()
    first, _, rest = body.partition("\n")
    if first.startswith("# ") and " ".join(first[2:].split()) == " ".join(str(fields.get("title", "")).split()):
        body = rest.strip()
    return f"{front_matter(header)}\n\n{body}\n"


def _clean(value: object) -> object:
    if isinstance(value, str):
        return without_controls(value)
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


@dataclass
class Parsed:
    """A gallery file split into its front matter and its Markdown."""

    #: The front matter's mapping; None when the file has none or it is not YAML.
    fields: dict | None
    body: str
    #: (line, reason) when the file opens a front matter that does not read as a YAML mapping.
    problem: tuple[int, str] | None = None


def read_front_matter(text: str) -> Parsed:
    """Split ``text`` at its front matter (``---`` lines; ``...`` may close it, as YAML allows).

    A header that is not YAML is still cut off the body (its end is known), and
    ``problem`` says which line of the file the parser stopped at."""
    text = text.removeprefix("\ufeff")
    # Split on \n only: str.splitlines would also break at U+2028, which YAML keeps inside a value.
    lines = text.split("\n")
    if lines[0].rstrip("\r") != "---":
        return Parsed(None, text)
    close = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r") in ("---", "...")), None)
    if close is None:
        return Parsed(None, text)  # a Markdown file that merely starts with a rule
    header, body = "\n".join(lines[1:close]), "\n".join(lines[close + 1:])
    import yaml

    try:
        alias = next((t for t in yaml.scan(header) if isinstance(t, (yaml.AliasToken, yaml.AnchorToken))), None)
        if alias is not None:
            # The toolkit never writes one, and nested aliases expand to gigabytes once used.
            return Parsed(None, body, (alias.start_mark.line + 2, "front matter uses YAML anchors or aliases; not read"))
        # yaml.safe_load's loader, in C where PyYAML has libyaml: six times faster on a gallery.
        fields = yaml.load(header, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2  # the file's line: 1-based, after the opening ---
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return Parsed(None, body, (line, f"front matter is not YAML: {reason}"))
    if fields is None:
        return Parsed({}, body)
    if not isinstance(fields, dict):
        return Parsed(None, body, (2, f"front matter is not a YAML mapping but a {type(fields).__name__}"))
    return Parsed(fields, body)
