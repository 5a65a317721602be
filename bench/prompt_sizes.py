"""Prompt sizes of the bundled studio and what its days would cost through the API.

    python bench/prompt_sizes.py [--days 3] [--model claude-sonnet-...]

Plays the bundled studio offline in a temporary workspace, records every prompt
the characters are sent (and its parts: the start every character shares, the
character's own stable part, the memories chosen for its day, this scene's memories) and every reply, and prints
Markdown tables: characters and estimated tokens per call and per simulated day,
and the estimated dollars per day at list prices (gamemaster/pricing.py) without
caching and with batching. What caching reads, writes and saves is measured by
bench/caching.py against a fake API that applies the documented caching rules.

Tokens are estimated at four characters each (gamemaster/costs.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from gamemaster.backends.offline import OfflineBackend
from gamemaster.costs import CHARS_PER_TOKEN
from gamemaster.gm import GameMaster
from gamemaster.loop import advance_days
from gamemaster.pricing import cost_usd
from gamemaster.create import init_workspace


class Recorder(OfflineBackend):
    def __init__(self):
        super().__init__()
        self.calls: list[dict] = []

    def reply(self, request):
        text = super().reply(request)
        self.calls.append(
            {
                "day": request.spec.day,
                "type": getattr(request.spec.type, "value", request.spec.type),
                "agent": request.agent.id,
                "prompt": len(request.prompt),
                "shared": len(request.shared_prompt),
                "stable": len(request.stable_prompt),
                "day_part": len(getattr(request, "day_prompt", "")),
                "memories": len(request.memory_prompt),
                "reply": len(text),
            }
        )
        return text


def tokens(chars: int) -> int:
    return chars // CHARS_PER_TOKEN


def day_costs(calls: list[dict], model: str | None) -> dict[str, float]:
    """Dollars for the day's calls; MEETING turns are never batched, so they keep the full price."""
    plain = batched = 0.0
    for call in calls:
        usage = {"input_tokens": tokens(call["prompt"]), "output_tokens": tokens(call["reply"])}
        plain += cost_usd(model, usage)
        batched += cost_usd(model, usage, batch=call["type"] != "MEETING")
    return {"plain": plain, "batch": batched}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--model", default=None, help="priced model id (default: the API backend's default)")
    args = parser.parse_args()
    model = args.model
    if model is None:
        try:
            from gamemaster.backends.anthropic_api import default_model

            model = default_model()
        except ImportError:
            model = "claude-sonnet"
    with tempfile.TemporaryDirectory() as folder:
        workspace = init_workspace(Path(folder) / "studio")
        backend = Recorder()
        advance_days(GameMaster(workspace), backend, days=args.days)
    calls = backend.calls
    by_type = defaultdict(list)
    for call in calls:
        by_type[call["type"]].append(call)
    print(f"Bundled studio, {args.days} offline days, {len(calls)} calls; priced as {model}.\n")
    print("| scene type | calls | prompt chars (median) | est. tokens | shared start | persona part | day memories "
          "| scene memories | reply tokens |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind in ("ARRIVAL", "WORK", "MEETING", "REFLECTION"):
        group = by_type.get(kind, [])
        if not group:
            continue
        chars = statistics.median(c["prompt"] for c in group)
        shared = statistics.median(c["shared"] for c in group)
        stable = statistics.median(c["stable"] for c in group)
        day_part = statistics.median(c["day_part"] for c in group)
        memories = statistics.median(c["memories"] for c in group)
        reply = statistics.median(c["reply"] for c in group)
        print(
            f"| {kind} | {len(group)} | {chars:,.0f} | {tokens(int(chars)):,} | {tokens(int(shared)):,} | {tokens(int(stable)):,} | "
            f"{tokens(int(day_part)):,} | {tokens(int(memories)):,} | {tokens(int(reply)):,} |"
        )
    print("\n| day | calls | prompt chars | est. input tokens | est. output tokens | USD no cache | USD batch |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for day in sorted({c["day"] for c in calls}):
        day_calls = [c for c in calls if c["day"] == day]
        dollars = day_costs(day_calls, model)
        chars = sum(c["prompt"] for c in day_calls)
        print(
            f"| {day} | {len(day_calls)} | {chars:,} | {tokens(chars):,} | {sum(tokens(c['reply']) for c in day_calls):,} | "
            f"{dollars['plain']:.2f} | {dollars['batch']:.2f} |"
        )
    per_agent_day = len(calls) / args.days / len({c['agent'] for c in calls})
    print(f"\n{per_agent_day:.1f} calls per agent per simulated day.", file=sys.stderr)


if __name__ == "__main__":
    main()
