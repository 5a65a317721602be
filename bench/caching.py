"""What prompt caching reads, writes and saves on API days, an older revision against the working tree.

    python bench/caching.py [--days 3] [--old 5f71d5f] [--call-seconds 10] [--ttl 5m] [--day-share 0.4]

Plays the bundled studio for N days through the anthropic backend and the real SDK against
``tests/fake_messages_api.py``, a fake Messages API that applies Anthropic's documented caching
rules (minimum cacheable length per model, exact prefix up to a breakpoint, TTL refreshed on
read). The model's answers are the offline player's, so it runs without a key and the same
seed plays the same days. Calls go one at a time, each moving the fake clock on by
``--call-seconds`` (a call's modelled duration: the slowest a day goes by, so the longest gaps
between a character's calls). Tokens are ``len(text) // CHARS_PER_TOKEN`` (gamemaster/costs.py).

The older revision is ``--old`` (default 5f71d5f, the prompt order before the shared start came
first; '' for none), exported with ``git archive`` and run in a subprocess with that tree first on
``PYTHONPATH``. ``--ttl 1h`` marks the working tree's breakpoints with the one-hour TTL instead
(1-hour writes priced at ``CACHE_WRITE_1H_FACTOR``), to compare the two; ``--day-share`` sets the
working tree's ``day_memory_share`` (the share of ``memory_budget`` chosen once a day).

Prints one Markdown table per revision: per day the calls, prompt tokens, the shares read from
and written to the cache, USD without caching, with caching, and saved. Then what the prompts keep
of the memories each scene's own selection would show from the whole ``memory_budget`` (all of
them, and the ten it ranks most relevant; the selection is made again for each call, without the
room taken by what the character heard lately, so a revision that chose every scene from the whole
budget keeps a little less than all), and the gaps between the calls that reuse a character's
cached start.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))


def play(days: int, call_seconds: float, ttl: str, day_share: float | None = None, model: str | None = None) -> dict:
    """Usage of every call, by day, and the gaps between a character's calls (run in the tree on PYTHONPATH)."""
    # Imported here and in dollars(): with --old this file runs again in a subprocess against
    # the older tree, which has play()'s names but not the pricing of 1-hour writes.
    from fake_messages_api import FakeMessagesAPI, offline_played
    from gamemaster.create import init_workspace
    from gamemaster.gm import GameMaster
    from gamemaster.loop import advance_days

    if ttl != "5m":
        import gamemaster.backends.anthropic_api as api_module

        api_module.CACHE_CONTROL = {"type": "ephemeral", "ttl": ttl}
    api = FakeMessagesAPI(answer=None, call_seconds=call_seconds)
    backend = offline_played(api, concurrency=1)
    by_day, kept = [], []
    with tempfile.TemporaryDirectory() as folder:
        gm = GameMaster(init_workspace(Path(folder) / "studio"))
        changed = {**({"day_memory_share": day_share} if day_share is not None else {}), **({"model": model} if model else {})}
        if changed:
            world = json.loads(gm.workspace.world_path.read_text(encoding="utf-8"))
            gm.workspace.world_path.write_text(json.dumps({**world, **changed}), encoding="utf-8")
        played = backend.reply

        def reply(request):
            kept.append(still_shown(gm.workspace, request))
            return played(request)

        backend.reply = reply
        for _ in range(days):
            first = len(api.usages)
            advance_days(gm, backend, days=1)
            by_day.append(api.usages[first:])
    # A character's cached start is its system blocks up to its persona: the gap is the time
    # since the same start was last sent (calls are call_seconds apart, one at a time).
    last: dict[str, float] = {}
    gaps = []
    for number, body in enumerate(api.bodies):
        start = "".join(block["text"] for block in body.get("system", [])[:2])
        if start in last:
            gaps.append(number * call_seconds - last[start])
        last[start] = number * call_seconds
    return {"model": api.bodies[0]["model"], "days": by_day, "gaps": gaps, "kept": kept}


def still_shown(workspace, request) -> list[int]:
    """What a prompt keeps of the memories the scene's own selection would show from the whole
    ``memory_budget``: [of all of them, shown; of the ten it ranks most relevant, shown]."""
    import importlib

    try:  # where the scene's selection is made: its prompt section, in an older tree (--old) requests.py
        selection_for = importlib.import_module("gamemaster.sections.recall").selection_for
    except ModuleNotFoundError:
        selection_for = getattr(importlib.import_module("gamemaster.requests"), "selection_for", None)
    if selection_for is None:  # an older tree still chose memories elsewhere: not measured there
        return [0, 0, 0, 0]
    world = workspace.load_world()
    names = {a: workspace.load_agent(a).name for a in request.roster}
    try:
        full = selection_for(workspace.stream(request.agent.id), world, request.agent, request.spec, request.briefs, names,
                             lambda agent: names.get(agent, agent))
    except TypeError:  # a tree whose selection_for still took the workspace
        full = selection_for(workspace, world, request.agent, request.spec, request.briefs, names)
    shown = {m.id for m in request.memories}
    top = [p.memory.id for p in full.picked if p.section == "relevant"][:10]
    return [len(full.ids), sum(i in shown for i in full.ids), len(top), sum(i in shown for i in top)]


def play_revision(revision: str, days: int, call_seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "gamemaster"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([folder, str(ROOT / "tests")])}
        out = subprocess.run([sys.executable, __file__, "--play", "--days", str(days),
                              "--call-seconds", str(call_seconds)], env=env, cwd=folder,
                             check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def dollars(model: str, usage: dict, cache: bool) -> float:
    from gamemaster.pricing import CACHE_WRITE_1H_FACTOR, CACHE_WRITE_FACTOR, cost_usd, family, PER_MILLION

    if not cache:
        prompt = usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]
        return cost_usd(model, {"input_tokens": prompt, "output_tokens": usage["output_tokens"]})
    hour = usage.get("cache_creation", {}).get("ephemeral_1h_input_tokens", 0)
    # cost_usd prices every write at the 5-minute rate; a 1-hour write costs the difference more.
    extra = hour * PER_MILLION[family(model)][0] * (CACHE_WRITE_1H_FACTOR - CACHE_WRITE_FACTOR) / 1_000_000
    return cost_usd(model, usage) + extra


def total_usd(run: dict, cache: bool) -> float:
    return sum(dollars(run["model"], u, cache) for usages in run["days"] for u in usages)


def table(title: str, run: dict) -> None:
    model = run["model"]
    print(f"\n{title} ({model})\n")
    print("| day | calls | prompt tokens | read from cache | written to cache | USD without caching | USD with caching | saved |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = [0, 0, 0, 0, 0.0, 0.0]
    for day, usages in enumerate(run["days"], 1):
        prompt = sum(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in usages)
        read = sum(u["cache_read_input_tokens"] for u in usages)
        written = sum(u["cache_creation_input_tokens"] for u in usages)
        without = sum(dollars(model, u, cache=False) for u in usages)
        with_cache = sum(dollars(model, u, cache=True) for u in usages)
        for index, value in enumerate((len(usages), prompt, read, written, without, with_cache)):
            totals[index] += value
        print(f"| {day} | {len(usages)} | {prompt:,} | {read / prompt:.1%} | {written / prompt:.1%} | "
              f"{without:.3f} | {with_cache:.3f} | {1 - with_cache / without:+.1%} |")
    calls, prompt, read, written, without, with_cache = totals
    print(f"| all | {calls} | {prompt:,} | {read / prompt:.1%} | {written / prompt:.1%} | "
          f"{without:.3f} | {with_cache:.3f} | {1 - with_cache / without:+.1%} |")


def by_model(args) -> None:
    """One row per model: the share of prompt tokens read from the cache and the dollars a day."""
    from fake_messages_api import minimum_tokens

    print(f"Bundled studio, {args.days} days through the anthropic backend against the fake API, "
          f"one call at a time, {args.call_seconds:g} s per call (the working tree).\n")
    print("| model | minimum cacheable (tokens) | calls | prompt tokens a call | read from cache | written to cache "
          "| USD a day without caching | USD a day with caching | saved |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for model in args.models.split(","):
        run = play(args.days, args.call_seconds, args.ttl, args.day_share, model)
        usages = [u for day in run["days"] for u in day]
        prompt = sum(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in usages)
        read = sum(u["cache_read_input_tokens"] for u in usages)
        written = sum(u["cache_creation_input_tokens"] for u in usages)
        without, with_cache = total_usd(run, False) / args.days, total_usd(run, True) / args.days
        print(f"| {model} | {minimum_tokens(model):,} | {len(usages)} | {prompt // len(usages):,} | {read / prompt:.1%} | "
              f"{written / prompt:.1%} | {without:.3f} | {with_cache:.3f} | {1 - with_cache / without:+.1%} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--old", default="5f71d5f", help="git revision with the old prompt order ('' to skip)")
    parser.add_argument("--call-seconds", type=float, default=10.0)
    parser.add_argument("--ttl", choices=("5m", "1h"), default="5m")
    parser.add_argument("--day-share", type=float, help="the working tree's day_memory_share (default: the world's)")
    parser.add_argument("--models", default="", help="comma-separated models: one summary row each (the working tree)")
    parser.add_argument("--play", action="store_true", help=argparse.SUPPRESS)  # the subprocess for --old
    args = parser.parse_args()
    if args.models:
        return by_model(args)
    if args.play:
        print(json.dumps(play(args.days, args.call_seconds, args.ttl)))
        return
    print(f"Bundled studio, {args.days} days through the anthropic backend against the fake API, "
          f"one call at a time, {args.call_seconds:g} s per call.")
    old = play_revision(args.old, args.days, args.call_seconds) if args.old else None
    if old:
        table(f"Revision {args.old}", old)
    new = play(args.days, args.call_seconds, args.ttl, args.day_share)
    table(f"Working tree, TTL {args.ttl}", new)
    if old:
        print(f"\nWith caching, the working tree's {args.days} days cost {total_usd(new, True):.3f} USD, {args.old}'s "
              f"{total_usd(old, True):.3f} USD ({total_usd(new, True) / total_usd(old, True) - 1:+.1%}); without caching "
              f"{total_usd(new, False):.3f} USD and {total_usd(old, False):.3f} USD.")
    for label, run in ((args.old, old), ("working tree", new)):
        whole, kept, top, top_kept = (sum(k[i] for k in run.get("kept", [])) for i in range(4)) if run else (0,) * 4
        if whole and top:
            print(f"\n{label}: of the memories each scene's own selection shows from the whole memory_budget, "
                  f"the prompts show {kept / whole:.1%} ({kept:,} of {whole:,}); of the ten it ranks most "
                  f"relevant, {top_kept / top:.1%} ({top_kept:,} of {top:,}).")
    gaps = new["gaps"]
    over = sum(gap > 300 for gap in gaps)
    print(f"\nGaps between calls that send the same character's cached start: median {statistics.median(gaps):.0f} s, "
          f"90th percentile {sorted(gaps)[len(gaps) * 9 // 10]:.0f} s, longest {max(gaps):.0f} s; "
          f"{over} of {len(gaps)} over 5 minutes.")


if __name__ == "__main__":
    main()
