"""Labelled recall: does a character's selection contain the memories a question is about?

    python bench/recall.py [--sizes 1000,10000,100000] [--budgets 2000,4000,8000,10000,16000]
                           [--strategies seed,ranked] [--combos studio-de,studio-en,chat-de,chat-en]
                           [--limit N] [--keep DIR] [--sanity]
    python bench/recall.py --conv [--budgets 4000,10000,16000] [--worlds de,en] [--strategies ranked,hybrid]
                           [--sets chat,group] [--chats 10] [--no-studio]

Streams and questions come from ``recall_data.py`` (planted facts, paraphrased questions, near misses).
Every question goes through ``gamemaster.retrieval.recall`` for each strategy and budget (characters of
rendered memory lines). evidence-any: at least one evidence line was selected; evidence-all: every one.
ms/query is the median after one warm-up query per strategy; "first" is that warm-up query's time, taken
with ``state/.cache`` removed, so for a strategy that uses the derived index it includes building it.

``--sanity`` checks the data set instead, without the package: a plain BM25 (lower-case word tokens, no
stemming) and a random pick, each filling the budget in its own order.

``--conv`` runs chat sets instead (``recall_chats.py``): ``chat``, the two-speaker conversations of
``recall_conv.py`` every constant of ``ranked`` and ``hybrid`` was chosen on, and ``group``, the held-out group chats
of ``recall_group.py`` (``--sets late``: the chat set with replies that come a few turns late, where ``ranked``'s
reach for them was chosen), plus the mixed-language studio diary; each strategy beside baselines with the same budget
accounting (the rendered lines ``recall --budget`` counts): ``bm25``, plain BM25 over descriptions (lower-case
word tokens, no stemming) filling the budget best first; ``bm25+nb``, the same with the memories before and after
every hit (same session) taken right after it; and with ``hybrid``, ``rrf+nb`` (``recall_fusion.py``): BM25 and the
dense model fused by plain reciprocal rank (k = 60), the best three hits with their neighbours.
Its default strategies are ``ranked`` and ``hybrid`` (the latter needs the ``dense`` extra, ``pip install -e ".[dense]"``).
``--day-share 0.4`` adds ``STRATEGY+day``: that share of the budget chosen first by the stream's next question
(standing in for the day's plan, ``recall_conv.with_day_part``), the question choosing from the rest.
The Markdown tables go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_chats import conv  # noqa: E402
from recall_conv import BM25, sample  # noqa: E402
from recall_data import AGENT, build, write_workspace  # noqa: E402

COMBOS = ("studio-de", "studio-en", "chat-de", "chat-en")
WORD = re.compile(r"\w+")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def numbers(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected comma-separated numbers") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive numbers")
    return values


def names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def pct(hits: int, total: int) -> str:
    return f"{100 * hits / total:.0f}" if total else "–"


# -- sanity: a tiny BM25 and a random pick -------------------------------------------------------------------

def line_chars(row: dict) -> int:
    """Roughly the rendered memory line the package counts: a header, the text, the tags, the evidence."""
    return 62 + len(row["description"]) + sum(len(t) + 2 for t in row["tags"]) + 12 * len(row["evidence"])


def fill_budget(order, chars: list[int], budget: int) -> set[int]:
    picked, used = set(), 0
    for doc in order:
        if used + chars[doc] <= budget:
            picked.add(doc)
            used += chars[doc]
        if used > budget - 60:  # no line is shorter than its header
            break
    return picked


def sanity_stream(rows, questions, budgets, seed) -> dict[str, Counter]:
    start = time.perf_counter()
    index = BM25(rows)
    log(f"    BM25 index {time.perf_counter() - start:.1f}s")
    chars = [line_chars(r) for r in rows]
    position = {r["id"]: i for i, r in enumerate(rows)}
    rng = random.Random(seed)
    counts: dict[str, Counter] = defaultdict(Counter)
    for q in questions:
        evidence = {position[e] for e in q["evidence"]}
        ranked = index.rank(q["text"])
        shuffled = list(range(len(rows)))
        rng.shuffle(shuffled)
        for method, order in (("bm25", ranked), ("random", shuffled)):
            for budget in budgets:
                picked = fill_budget(order, chars, budget)
                c = counts[f"{method}@{budget}"]
                c["n"] += 1
                c["any"] += bool(evidence & picked)
                c["all"] += evidence <= picked
                c[f"any-{q['kind']}"] += bool(evidence & picked)
                c[f"n-{q['kind']}"] += 1
    return counts


def sanity(args, base: Path) -> None:
    table: dict[tuple[str, str], dict[str, Counter]] = {}
    for size in args.sizes:
        for combo in args.combos:
            style, language = combo.split("-")
            start = time.perf_counter()
            rows, questions = build(style, language, size, args.seed)
            log(f"{size} {combo}: {len(rows)} memories, {len(questions)} questions, built in "
                f"{time.perf_counter() - start:.1f}s")
            table[(f"{size:,}", combo)] = sanity_stream(rows, sample(questions, args.limit), args.budgets, args.seed)
    for size in args.sizes:
        pooled: dict[str, Counter] = defaultdict(Counter)
        for (label, _), counts in list(table.items()):
            if label == f"{size:,}":
                for key, c in counts.items():
                    pooled[key].update(c)
        table[(f"{size:,}", "**all**")] = pooled
    budgets = args.budgets
    print("Sanity: plain BM25 (lower-case word tokens, no stemming) and a random pick, evidence-any / "
          "evidence-all in %\n")
    print("| memories | stream | " + " | ".join(f"BM25 @{b}" for b in budgets) + " | random any @"
          + " / ".join(str(b) for b in budgets) + " | BM25 any single / multi @8000 |")
    print("|---|---|" + "---:|" * (len(budgets) + 2))
    for (label, combo), counts in table.items():
        cells = [f"{pct(counts[f'bm25@{b}']['any'], counts[f'bm25@{b}']['n'])} / "
                 f"{pct(counts[f'bm25@{b}']['all'], counts[f'bm25@{b}']['n'])}" for b in budgets]
        rand = " / ".join(pct(counts[f"random@{b}"]["any"], counts[f"random@{b}"]["n"]) for b in budgets)
        c = counts.get("bm25@8000", Counter())
        kinds = f"{pct(c['any-single'], c['n-single'])} / {pct(c['any-multi'], c['n-multi'])}" if c else "–"
        print(f"| {label} | {combo} | " + " | ".join(cells) + f" | {rand} | {kinds} |")


# -- the real thing --------------------------------------------------------------------------------------------

def run_stream(root: Path, questions: list[dict], strategies: list[str], budgets: list[int]):
    from gamemaster.retrieval import recall
    from gamemaster.workspace import Workspace

    results = []  # (strategy, budget, kind, any, all)
    timing = {}
    for strategy in strategies:
        shutil.rmtree(root / "state" / ".cache", ignore_errors=True)  # every strategy's first query starts cold
        start = time.perf_counter()
        recall(Workspace(root), AGENT, questions[0]["text"], strategy=strategy, budget=budgets[0])
        first = time.perf_counter() - start
        times = []
        for budget in budgets:
            for q in questions:
                start = time.perf_counter()
                selection = recall(Workspace(root), AGENT, q["text"], strategy=strategy, budget=budget)
                times.append(time.perf_counter() - start)
                ids = {p.memory.id for p in selection.picked}
                evidence = set(q["evidence"])
                results.append((strategy, budget, q["kind"], bool(evidence & ids), evidence <= ids))
        timing[strategy] = (first * 1000, statistics.median(times) * 1000)
        log(f"    {strategy}: first {first * 1000:.0f} ms, median {timing[strategy][1]:.1f} ms/query")
    return results, timing


def aggregate(results) -> dict[tuple[str, int], tuple[int, int, int]]:
    out: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for strategy, budget, _, hit_any, hit_all in results:
        cell = out[(strategy, budget)]
        cell[0] += 1
        cell[1] += hit_any
        cell[2] += hit_all
    return {k: tuple(v) for k, v in out.items()}


def real(args, base: Path) -> None:
    streams = []  # (size, combo, results, timing)
    for size in args.sizes:
        for combo in args.combos:
            style, language = combo.split("-")
            root = base / f"{combo}-{size}"
            start = time.perf_counter()
            rows, questions = build(style, language, size, args.seed)
            if root.exists():
                shutil.rmtree(root)
            write_workspace(root, rows, language)
            questions = sample(questions, args.limit)
            log(f"{size} {combo}: {len(rows)} memories, {len(questions)} questions, written in "
                f"{time.perf_counter() - start:.1f}s to {root}")
            results, timing = run_stream(root, questions, args.strategies, args.budgets)
            streams.append((size, combo, results, timing))
            if not args.keep:
                shutil.rmtree(root)

    pairs = [(s, b) for s in args.strategies for b in args.budgets]
    print(f"{platform.platform()} · Python {platform.python_version()} · {os.cpu_count()} CPUs · seed {args.seed}\n")
    print("evidence-any / evidence-all in % of questions; budget in characters; ms: median per query after a "
          "warm-up; (first): the cold first query, index build included\n")
    print("| memories | stream | q | " + " | ".join(f"{s} @{b}" for s, b in pairs) + " | "
          + " | ".join(f"{s} ms (first)" for s in args.strategies) + " |")
    print("|---|---|---:|" + "---:|" * (len(pairs) + len(args.strategies)))

    def row(label: str, combo: str, group) -> None:
        cells = aggregate([r for _, _, results, _ in group for r in results])
        n = cells[pairs[0]][0] if pairs[0] in cells else 0
        ms = []
        for s in args.strategies:
            firsts = [t[s][0] for *_, t in group]
            medians = [t[s][1] for *_, t in group]
            ms.append(f"{statistics.median(medians):.1f} ({max(firsts):.0f})")
        print(f"| {label} | {combo} | {n} | "
              + " | ".join(f"{pct(cells[p][1], cells[p][0])} / {pct(cells[p][2], cells[p][0])}" for p in pairs)
              + " | " + " | ".join(ms) + " |")

    for size in args.sizes:
        group = [g for g in streams if g[0] == size]
        for g in group:
            row(f"{size:,}", g[1], [g])
        if len(group) > 1:
            row(f"{size:,}", "**all**", group)
    for key in ("de", "en", "studio", "chat"):
        group = [g for g in streams if key in g[1].split("-")]
        if group and len(group) < len(streams):
            row("all", key, group)
    row("**all**", "**all**", streams)

    everything = [r for *_, results, _ in streams for r in results]
    for kind in ("single", "multi"):
        cells = aggregate([r for r in everything if r[2] == kind])
        print(f"\n{kind}: " + ", ".join(f"{s} @{b} {pct(cells[(s, b)][1], cells[(s, b)][0])} / "
                                        f"{pct(cells[(s, b)][2], cells[(s, b)][0])}" for s, b in pairs
                                        if b in (4000, 8000, 16000)), end="")
    print()
    cells = aggregate(everything)
    if {"seed", "ranked"} <= set(args.strategies):
        ratios = []
        for budget in (8000, 10000):
            if ("seed", budget) in cells:
                seed, ranked = cells[("seed", budget)], cells[("ranked", budget)]
                ratios.append(f"@{budget}: evidence-any {ranked[1] / max(seed[1], 1):.2f}× "
                              f"({pct(ranked[1], ranked[0])} vs {pct(seed[1], seed[0])} %), evidence-all "
                              f"{ranked[2] / max(seed[2], 1):.2f}× ({pct(ranked[2], ranked[0])} vs "
                              f"{pct(seed[2], seed[0])} %)")
        if ratios:
            print("\nranked vs seed, all streams " + "; ".join(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=numbers, default="1000,10000,100000", help="memories per stream")
    parser.add_argument("--budgets", type=numbers, default="2000,4000,8000,10000,16000",
                        help="characters of rendered memory lines")
    parser.add_argument("--strategies", type=names, default="seed,ranked")
    parser.add_argument("--combos", type=names, default=",".join(COMBOS), help="style-language pairs")
    parser.add_argument("--limit", type=int, help="at most this many questions per stream, spread over all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="build the workspaces here and keep them")
    parser.add_argument("--sanity", action="store_true", help="check the data set with a plain BM25 instead")
    parser.add_argument("--conv", action="store_true", help="conversation streams and a mixed-language diary")
    parser.add_argument("--worlds", type=names, default="de,en", help="--conv: the world's language")
    parser.add_argument("--sets", type=names, default="chat,group", help="--conv: chat sets (group is held out)")
    parser.add_argument("--chats", type=int, default=10, help="--conv: conversations a set")
    parser.add_argument("--no-studio", dest="studio", action="store_false", help="--conv: leave out the studio diary")
    parser.add_argument("--day-share", type=float, default=0.0, help="--conv: also STRATEGY+day (see above)")
    args = parser.parse_args()
    if unknown := set(args.combos) - set(COMBOS):
        parser.error(f"unknown combos: {', '.join(sorted(unknown))} (known: {', '.join(COMBOS)})")
    with tempfile.TemporaryDirectory(prefix="gamemaster-recall-") as scratch:
        base = args.keep.resolve() if args.keep else Path(scratch)
        base.mkdir(parents=True, exist_ok=True)
        if args.conv:
            args.budgets = args.budgets if "--budgets" in sys.argv else [4000, 10000, 16000]
            args.strategies = args.strategies if "--strategies" in sys.argv else ["ranked", "hybrid"]
            conv(args, base)
        else:
            sanity(args, base) if args.sanity else real(args, base)


if __name__ == "__main__":
    main()
