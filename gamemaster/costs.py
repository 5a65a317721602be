"""What the studio cost: tokens and dollars per day and per agent, from the scene records."""

from __future__ import annotations

from collections import defaultdict
from itertools import groupby

from . import scene_files
from .lookup import LOOKUP_CHARS
from .pricing import CHARS_PER_TOKEN, USAGE_FIELDS, cost_usd, is_priced
from .problems import StateError
from .workspace import Workspace

#: Output tokens assumed for a call before the studio has any of its own to go by.
DEFAULT_OUTPUT_TOKENS = 1500
#: Lookups a turn is assumed to make, where the backend offers them, before the studio's own
#: calls say how often its characters look (``UsageCall.lookups``).
ASSUMED_LOOKUPS = 1.0

#: The calls of each packed day by (archive, size, mtime): a packed day never changes, and
#: ``next --budget`` asks for the costs before every scene; read again only if the archive is.
_PACKED_CALLS: dict[tuple[str, int, int], list] = {}


def _scene_folders(workspace: Workspace):
    """(day, folder) for every scene, including those set aside in scenes/.abandoned (their calls
    were paid) and those of packed days (``scene_files``)."""
    found = {p.parent for p in scene_files.glob(workspace.scenes, "day-*/scene-*/scene.json")}
    found |= {p.parent.parent for p in scene_files.glob(workspace.scenes, "day-*/scene-*/usage/*.json")}
    for folder in sorted(found):
        yield folder.parent.name, folder
    for folder in sorted((workspace.scenes / ".abandoned").glob("day-*_scene-*")):
        yield folder.name.split("_", 1)[0], folder


def _calls(workspace: Workspace):
    """(day, agent, call) for every recorded API call, applied, pending or abandoned."""
    for (day, abandoned), entries in groupby(_scene_folders(workspace), lambda e: (e[0], e[1].parent.name == ".abandoned")):
        folders = [folder for _, folder in entries]
        archive = scene_files.archive_path(workspace.scenes, day)
        if abandoned or (workspace.scenes / day).exists() or not archive.is_file():
            yield from _folder_calls(workspace, day, folders)
            continue
        stat = archive.stat()
        key = (str(archive), stat.st_size, stat.st_mtime_ns)
        if key not in _PACKED_CALLS:
            _PACKED_CALLS[key] = list(_folder_calls(workspace, day, folders))
        yield from _PACKED_CALLS[key]


def _folder_calls(workspace: Workspace, day: str, folders: list):
    for folder in folders:
        record_path = folder / "scene.json"
        record = workspace.read_json(record_path) if scene_files.is_file(workspace.scenes, record_path) else {}
        usage = record.get("usage")
        if folder.parent.name == ".abandoned":
            files = sorted((folder / "usage").glob("*.json")) if (folder / "usage").is_dir() else []
        else:
            files = scene_files.glob(workspace.scenes, f"{folder.relative_to(workspace.scenes).as_posix()}/usage/*.json")
        sources = [(record_path, label, calls) for label, calls in usage.items()] if isinstance(usage, dict) else [
            (path, path.stem, workspace.read_json(path).get("calls")) for path in files
        ]
        for path, label, calls in sources:
            agent = label.split("-", 1)[1] if label[:2].isdigit() and "-" in label else label
            if not isinstance(calls, list):
                raise StateError(f"{workspace.rel(path)}: usage of {label} is not a list of calls")
            for call in calls:
                if not isinstance(call, dict) or not all(isinstance(call.get(f, 0), int) for f in USAGE_FIELDS):
                    raise StateError(f"{workspace.rel(path)}: usage of {label}: every token count must be a whole number")
                reported = call.get("cost_usd")
                if reported is not None and (isinstance(reported, bool) or not isinstance(reported, (int, float))
                                             or reported < 0):
                    raise StateError(f"{workspace.rel(path)}: usage of {label}: cost_usd must be a number of dollars, not {reported!r}")
                yield day, agent, call


def cost_report(workspace: Workspace) -> dict:
    """Tokens and dollars per day, per agent and in total; ``unpriced`` lists models the table does not know."""
    days: dict = defaultdict(lambda: {"usd": 0.0, "calls": 0, "lookups": 0, **{f: 0 for f in USAGE_FIELDS}})
    agents: dict = defaultdict(lambda: {"usd": 0.0, "calls": 0, "lookups": 0, **{f: 0 for f in USAGE_FIELDS}})
    total = {"usd": 0.0, "calls": 0, "lookups": 0, **{f: 0 for f in USAGE_FIELDS}}
    unpriced: set[str] = set()
    for day, agent, call in _calls(workspace):
        # What the backend reported (Claude Code's own figure) counts as it is; only tokens
        # without one are priced from the table.
        dollars = call.get("cost_usd")
        if dollars is None:
            if not is_priced(call.get("model")):
                unpriced.add(str(call.get("model")))
            dollars = cost_usd(call.get("model"), call, batch=bool(call.get("batch")))
        for bucket in (days[day], agents[agent], total):
            bucket["usd"] += dollars
            bucket["calls"] += 1
            bucket["lookups"] += call.get("lookups") if isinstance(call.get("lookups"), int) else 0
            for name in USAGE_FIELDS:
                bucket[name] += int(call.get(name, 0) or 0)
    return {"days": dict(days), "agents": dict(agents), "total": total, "unpriced": sorted(unpriced)}


def estimate_scene(gm, backend, pending, report: dict, batch: bool = False) -> float:
    """Dollars the pending scene's missing turns will roughly cost, before any call is made.

    Input is the prompt's length at about four characters a token (all of it
    priced as uncached input, to stay on the safe side); output is the studio's
    average so far, or DEFAULT_OUTPUT_TOKENS before the first call. Where the backend
    lets characters look things up (not in a batch), each lookup sends the prompt again
    with what was found: as many lookups a turn as the studio's answers made so far,
    ASSUMED_LOOKUPS before the first.
    """
    if not backend.capabilities.pricing:
        return 0.0
    report = report["total"]
    average_output = report["output_tokens"] / report["calls"] if report["calls"] else DEFAULT_OUTPUT_TOKENS
    looks = 0.0
    if backend.capabilities.lookups and not batch:
        looks = report.get("lookups", 0) / report["calls"] if report["calls"] else ASSUMED_LOOKUPS
    total = 0.0
    for turn in pending.missing():
        request = gm.build_request(pending, turn)
        prompt = len(request.prompt) // CHARS_PER_TOKEN
        usage = {"input_tokens": int(prompt * (1 + looks) + looks * LOOKUP_CHARS / CHARS_PER_TOKEN),
                 "output_tokens": int(average_output)}
        total += cost_usd(backend.model_for(request), usage, batch=batch)
    return total

