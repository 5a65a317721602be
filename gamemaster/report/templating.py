"""The report's pages come from the Jinja2 templates in ``templates/``, with autoescaping.

One environment, built on first use (only the report loads Jinja2). Every value a template
writes is escaped, in text and in attributes, so a reply, a name or an artifact that holds
HTML is shown as text and never runs. ``StrictUndefined``: a name a page did not pass is an
error, not an empty string. ``None`` is written as nothing, as the hand escaping before wrote it.
Markup that is not escaped comes only from the toolkit itself, as ``Markup``: the JSON data of a
page's script (``html.script_json``) and an artifact's Markdown, rendered with raw HTML off
(``gallery.markdown_html``).

The templates are laid out to be read, the pages have no whitespace between tags: a line break
in a template's text, with the blanks around it, is not written (``JoinLines``), except in the
frame (``page.html``), whose line breaks are the page's own. A space that matters stands on a line.
"""

from __future__ import annotations

import re
from functools import cache

import jinja2
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

from .charts import type_class
from .html import Frame

#: Templates whose line breaks are written as they stand.
KEEP_LINES = frozenset({"page.html"})
_BREAK = re.compile(r"[ \t]*\n[ \t]*")


class JoinLines(Extension):
    """Drops each line break of a template's text with the blanks around it; what a template
    writes with ``{{ }}`` and the text inside a tag are left as they are."""

    def filter_stream(self, stream: TokenStream):
        if stream.name in KEEP_LINES:
            yield from stream
            return
        for token in stream:
            if token.type != "data":
                yield token
                continue
            text = _BREAK.sub("", token.value)
            if text:
                yield Token(token.lineno, "data", text)


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("gamemaster.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        extensions=[JoinLines],
        keep_trailing_newline=True,  # the frame ends its page with a line break
        finalize=lambda value: "" if value is None else value,
    )
    env.globals["type_class"] = type_class
    return env


def render(name: str, frame: Frame, **values: object) -> str:
    """A whole page: template ``name`` (which extends the frame) with ``values`` and the frame's."""
    return environment().get_template(name).render(frame=frame, words=frame.words, **values)
