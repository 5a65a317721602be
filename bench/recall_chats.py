"""``recall.py --conv``: conversations like real chats, and the studio diary's scene queries.

Chat sets: ``chat`` (``recall_conv.chat``, two speakers; every constant of ``ranked`` and ``hybrid`` was
chosen on it), ``late`` (the same chats with replies that come a few turns after the question, ``LATE``;
tuning side too) and ``group`` (``recall_group.chat``, four speakers; held out: never used to choose a constant).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import sys
from pathlib import Path

import recall_conv
import recall_fusion
import recall_group
from recall_conv import BM25, baselines, sample, with_day_part
from recall_data import AGENT, write_workspace

WORD = re.compile(r"\w+")
SETS = {"chat": recall_conv.chat, "group": recall_group.chat,
        "late": lambda number, seed: recall_conv.chat(number, seed=seed, late=True)}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def pct(hits: int, total: int) -> str:
    return f"{100 * hits / total:.0f}" if total else "–"


def near_duplicates(descriptions: list[str], width: int = 30) -> int:
    """Lines that start like an earlier line of the same selection, or share 70 % of its words."""
    heads, bags, count = set(), [], 0
    for text in descriptions:
        head, bag = " ".join(text.split()).casefold()[:width], set(WORD.findall(text.casefold()))
        count += head in heads or any(len(bag & b) >= 0.7 * len(bag | b) for b in bags)
        heads.add(head)
        bags.append(bag)
    return count


def rule_duplicates(descriptions: list[str], language: str) -> int:
    """Lines that say most of what an earlier line says by ``ranked``'s near-duplicate rule (whatever the query)."""
    from gamemaster.retrieval.lines import says_most_of, term_bag
    from gamemaster.retrieval.text import analyzer

    words, bags, count = analyzer(language), [], 0
    for text in descriptions:
        bag = term_bag(words, text)
        count += any(says_most_of(bag, other) for other in bags)
        bags.append(bag)
    return count


def conv_stream(root: Path, rows, questions, language, strategies, budgets, results, label, share=0.0) -> None:
    from gamemaster.models import Memory
    from gamemaster.retrieval import recall
    from gamemaster.retrieval.render import memory_text
    from gamemaster.workspace import Workspace

    shutil.rmtree(root, ignore_errors=True)
    write_workspace(root, rows, language)
    index, chars = BM25(rows), [len(memory_text(Memory.model_validate(r), language)) + 1 for r in rows]
    dense = "hybrid" in strategies  # the dense extra is there: the fusion baseline too
    matrix = recall_fusion.embed(rows) if dense else None
    for number, q in enumerate(questions):
        evidence = set(q["evidence"])
        picks = baselines(rows, index, chars, q["text"], budgets)
        if dense:
            picks["rrf+nb"] = recall_fusion.rrf_nb(rows, matrix, index, chars, q["text"], budgets)
        for strategy in strategies:
            picks[strategy] = {b: set(recall(Workspace(root), AGENT, q["text"], strategy=strategy, budget=b).ids)
                               for b in budgets}
            if share:  # the next question of the stream stands in for the day's plan
                day = questions[(number + 1) % len(questions)]["text"]
                picks[f"{strategy}+day"] = {b: with_day_part(root, AGENT, q["text"], day, strategy, b, share) for b in budgets}
        for method, by_budget in picks.items():
            for budget, ids in by_budget.items():
                results.append((label, method, budget, q["kind"], bool(evidence & ids), evidence <= ids))


def conv(args, base: Path) -> None:
    methods = ["bm25", "bm25+nb", *(["rrf+nb"] if "hybrid" in args.strategies else []), *args.strategies,
               *(f"{s}+day" for s in args.strategies if args.day_share)]
    results = []  # (set-world, method, budget, kind, any, all)
    for world in args.worlds:
        for name in args.sets:
            for number in range(args.chats):
                rows, questions = SETS[name](number, seed=args.seed)
                log(f"{name} {number} (world {world}): {len(rows)} turns, {len(questions)} questions")
                conv_stream(base / f"{name}-{number}", rows, sample(questions, args.limit), world, args.strategies,
                            args.budgets, results, f"{name}-{world}", args.day_share)
        if args.studio:
            rows, questions, scenes = recall_conv.studio(seed=args.seed)
            conv_stream(base / "studio", rows, questions, world, args.strategies, args.budgets, results,
                        f"studio-{world}", args.day_share)
    print(f"{platform.platform()} · Python {platform.python_version()} · {os.cpu_count()} CPUs · seed {args.seed}\n")
    print("evidence-any / evidence-all in % of questions, by budget in characters of rendered memory lines\n")
    cols = [(m, b) for b in args.budgets for m in methods]
    print("| stream | category | q | " + " | ".join(f"{m} @{b // 1000}k" for m, b in cols) + " |")
    print("|---|---|---:|" + "---:|" * len(cols))
    labels = list(dict.fromkeys(r[0] for r in results))
    kinds = list(dict.fromkeys(r[3] for r in results))
    for label in labels + [f"**{name}**" for name in args.sets]:
        pooled = label.strip("*")
        for kind in [k for k in kinds if any(r[0] == label and r[3] == k for r in results)] + ["**all**"]:
            group = [r for r in results if (r[0] == label or r[0].startswith(f"{pooled}-") and label != r[0])
                     and (kind == "**all**" or r[3] == kind)]
            cells = []
            for m, b in cols:
                hits = [r for r in group if r[1] == m and r[2] == b]
                cells.append(f"{pct(sum(r[4] for r in hits), len(hits))} / {pct(sum(r[5] for r in hits), len(hits))}")
            n = len([r for r in group if r[1] == methods[0] and r[2] == args.budgets[0]])
            if n:
                print(f"| {label} | {kind} | {n} | " + " | ".join(cells) + " |")
    if args.studio:
        studio_queries(args, base)


def studio_queries(args, base: Path) -> None:
    from gamemaster.retrieval import Query, get_strategy, settings_for
    from gamemaster.workspace import Workspace

    # Studio prompts: near-duplicate lines and the broad tag's share of the relevant section. Near-duplicate
    # lines are counted twice: by what a reader sees (a line starting like an earlier one, or sharing 70 % of
    # its words, function words included) and by the selectors' own rule (analysed terms and speaker).
    print("\n| world | scene query | strategy | lines | near-duplicate lines | by `ranked`'s rule "
          "| `#performance` in relevant |")
    print("|---|---|---|---:|---:|---:|---:|")
    for world in args.worlds:
        rows, _, scenes = recall_conv.studio(seed=args.seed)
        root = base / "studio"
        shutil.rmtree(root, ignore_errors=True)
        write_workspace(root, rows, world)
        ws = Workspace(root)
        settings = settings_for(ws.load_world())
        for scene in scenes:
            query = Query(text=scene["text"], context=scene["context"], tags=tuple(scene["tags"]), names=("ana", "Ana"))
            for strategy in args.strategies:
                selection = get_strategy(strategy).select(ws.stream(AGENT), query, settings)
                picked = selection.in_prompt_order()
                dupes = near_duplicates([p.memory.description for p in picked])
                by_rule = rule_duplicates([p.memory.description for p in picked], settings.language)
                relevant = selection.section("relevant")
                broad = sum("performance" in p.memory.tags for p in relevant)
                print(f"| {world} | {(scene['text'] or scene['context'])[:40]} | {strategy} | {len(picked)} | "
                      f"{dupes} ({pct(dupes, len(picked))} %) | {by_rule} | {broad} of {len(relevant)} |")


