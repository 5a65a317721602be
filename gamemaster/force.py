"""What the Creative Director forces about the next scene, as typed: ``--type work --with vera,emre``."""

from __future__ import annotations

from .kinds import get_kind, kind_names
from .scenes import Force


def force_from_text(kind: str | None, participants: str | None, topic: str | None) -> Force:
    """A Force from a scene kind in any case and comma-separated agent ids.

    An unknown kind is a ValueError that names the kinds there are.
    """
    try:
        scene_type = get_kind(kind).name if kind else None
    except ValueError:
        raise ValueError(f"{kind!r}: choose {', '.join(kind_names())}") from None
    ids = [p.strip() for p in (participants or "").split(",") if p.strip()]
    return Force(type=scene_type, participants=ids, topic=topic)
