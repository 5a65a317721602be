"""What the studio cost: tokens and dollars per day and per agent, from the scene records."""

from __future__ import annotations

import json
from collections import defaultdict

from .pricing import USAGE_FIELDS, cost_usd, family
from .workspace import Workspace

#: Output tokens assumed for a call before the studio has any of its own to go by.
DEFAULT_OUTPUT_TOKENS = 1500
CHARS_PER_TOKEN = 4


def _calls(workspace: Workspace):
    """(day, agent, call) for every recorded API call, applied or still pending."""
    for record_path in sorted(workspace.scenes.glob("day-*/scene-*/scene.json")):
        day = record_path.parent.parent.name
        record = json.loads(record_path.read_text(encoding="utf-8"))
        usage = record.get("usage")
        if usage is None:
            folder = record_path.parent / "usage"
            usage = {p.stem: json.loads(p.read_text(encoding="utf-8"))["calls"] for p in sorted(folder.glob("*.json"))} if folder.is_dir() else {}
        for label, calls in usage.items():
            agent = label.split("-", 1)[1] if "-" in label and label.split("-", 1)[0].isdigit() else label
            for call in calls:
                yield day, agent, call


def cost_report(workspace: Workspace) -> dict:
    days: dict = defaultdict(lambda: {"usd": 0.0, "calls": 0, **{f: 0 for f in USAGE_FIELDS}})
    agents: dict = defaultdict(lambda: {"usd": 0.0, "calls": 0, **{f: 0 for f in USAGE_FIELDS}})
    total = {"usd": 0.0, "calls": 0, **{f: 0 for f in USAGE_FIELDS}}
    for day, agent, call in _calls(workspace):
        dollars = cost_usd(call.get("model"), call, batch=bool(call.get("batch")))
        for bucket in (days[day], agents[agent], total):
            bucket["usd"] += dollars
            bucket["calls"] += 1
            for name in USAGE_FIELDS:
                bucket[name] += int(call.get(name, 0) or 0)
    return {"days": dict(days), "agents": dict(agents), "total": total}


def spent(workspace: Workspace) -> float:
    return cost_report(workspace)["total"]["usd"]


def estimate_scene(gm, backend, pending, batch: bool = False) -> float:
    """Dollars the pending scene's missing turns will roughly cost, before any call is made.

    Input is the prompt's length at about four characters a token (all of it
    priced as uncached input, to stay on the safe side); output is the studio's
    average so far, or DEFAULT_OUTPUT_TOKENS before the first call.
    """
    if not hasattr(backend, "model_for"):
        return 0.0
    report = cost_report(gm.workspace)["total"]
    average_output = report["output_tokens"] / report["calls"] if report["calls"] else DEFAULT_OUTPUT_TOKENS
    total = 0.0
    for turn in pending.missing():
        request = gm.build_request(pending, turn)
        usage = {"input_tokens": len(request.prompt) // CHARS_PER_TOKEN, "output_tokens": int(average_output)}
        total += cost_usd(backend.model_for(request), usage, batch=batch)
    return total


__all__ = ["cost_report", "spent", "estimate_scene", "family"]
