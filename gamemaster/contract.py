"""The kind rules of the reply contract (``prompts/contract.md``), joined from every kind.

The contract names, for a reply section only some kinds allow, which kinds those are:
„`artifacts` (nur WORK)“, „`conversation` (nur im letzten Beitrag eines MEETING oder einer
ENCOUNTER)“. The frame of each rule is the toolkit's (below, per language); the words for
each kind are the kind's own (``SceneKind.rule_word``: its ``contract_rules``, else its name, for
every kind that allows the section), and a kind's or a prompt section's
own reply fields bring their own lines (``SceneKind.contract_lines``, ``PromptSection.contract_lines``). ``contract.md`` places them with
``$rule_<section>`` and ``$kind_lines``, so a kind found later is in every prompt's contract
without an edit to the template.
"""

from __future__ import annotations

from .kinds import all_kinds
from .sections import contract_lines as section_lines

#: section → (before the kinds, the word before the last kind, after the kinds), per language.
RULES: dict[str, dict[str, tuple[str, str, str]]] = {
    "de": {
        "artifacts": ("nur ", "und", ""),
        "plan": ("Pflicht bei ", "und", ""),
        "insights": ("nur ", "und", ""),
        "conversation": ("nur im letzten Beitrag ", "oder", ""),
    },
    "en": {
        "artifacts": ("only ", "and", ""),
        "plan": ("required in ", "and", ""),
        "insights": ("only ", "and", ""),
        "conversation": ("only in your last turn ", "or", ""),
    },
}


def _joined(words: list[str], last: str) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


def contract_values(language: str) -> dict[str, str]:
    """``rule_<section>`` (with its leading space and brackets, empty where no kind has the rule)
    and ``kind_lines`` (each on a line of its own, after a line break) for ``contract.md``."""
    frames = RULES.get(language, RULES["en"])
    values = {}
    for section, (before, last, after) in frames.items():
        words = [word for k in all_kinds().values() if (word := k.rule_word(section, language))]
        values[f"rule_{section}"] = f" ({before}{_joined(words, last)}{after})" if words else ""
    lines = [line for k in all_kinds().values() for line in k.contract_lines.get(language, k.contract_lines.get("en", []))]
    lines += section_lines(language)
    values["kind_lines"] = "".join("\n" + line for line in lines)
    # A workspace's contract.md from before takeaways were open to every kind still names the rule.
    values.setdefault("rule_takeaways", "")
    return values

