"""A prompt's sections, and what changed between a recorded prompt and the one built now.

A prompt is Markdown; its sections start at the headings of the first two levels (``# …``,
``## …``), deeper headings belong to the section above them. The text before the first
heading is its own section. Only the structure is read: any prompt, from any template,
splits the same way, so a replay can say *which part* of a prompt no longer matches the
recording without knowing how the prompt was built.
"""

from __future__ import annotations

import hashlib

#: What a section that starts the prompt before any heading is called.
OPENING = "(start)"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split(prompt: str) -> list[tuple[str, str]]:
    """(title, text) for each section, in order; the text includes its heading line."""
    sections: list[tuple[str, list[str]]] = [(OPENING, [])]
    fenced = False
    for line in prompt.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fenced = not fenced  # a '#' inside a code block is no heading
        heading = _heading(line) if not fenced else None
        if heading is not None:
            sections.append((heading, []))
        sections[-1][1].append(line)
    return [(title, "".join(lines)) for title, lines in sections if lines or title != OPENING]


def _heading(line: str) -> str | None:
    for marks in ("# ", "## "):
        if line.startswith(marks):
            return line[len(marks):].strip() or marks.strip()
    return None


def outline(prompt: str) -> list[dict]:
    """What a recording keeps of each section, besides the prompt: its title, size and digest."""
    return [{"title": title, "chars": len(text), "sha256": digest(text)} for title, text in split(prompt)]


def differences(recorded: str, now: str) -> list[str]:
    """How ``now`` differs from ``recorded``, one phrase per section; empty when they are the same.

    Sections are matched by title and by how often the title has come before (a prompt may
    repeat one), so a section that moved is told apart from one that changed.
    """
    if recorded == now:
        return []
    before, after = _keyed(recorded), _keyed(now)
    said: list[str] = []
    for key, text in after.items():
        if key not in before:
            said.append(f"new section „{key[0]}“")
        elif before[key] != text:
            said.append(f"„{key[0]}“ changed ({_size(before[key])} → {_size(text)})")
    said += [f"section „{key[0]}“ is gone" for key in before if key not in after]
    if not said:
        said.append("the sections are the same but in another order")
    return said


def _keyed(prompt: str) -> dict[tuple[str, int], str]:
    seen: dict[str, int] = {}
    keyed = {}
    for title, text in split(prompt):
        seen[title] = seen.get(title, 0) + 1
        keyed[(title, seen[title])] = text
    return keyed


def _size(text: str) -> str:
    return f"{len(text):,} characters"
