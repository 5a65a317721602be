"""Lookups written by a model for the questions a first selection misses (issue: Claude as the retrieval engine).

    python bench/recall_lookup.py prepare DIR [--world en] [--budget 10000] [--sample 16] [--seed 1]
    DIR/q/<question>/lookup "a query"          # what a character's ``recall`` tool answers (a model runs it)
    python bench/recall_lookup.py score DIR   # Markdown tables to stdout

``prepare`` builds the ten chats of ``recall_conv.chat`` (the chat bench of ``recall.py --conv``), selects for
every question with the world's strategy (``ranked``) at the budget, and keeps the questions whose selection
holds no evidence turn. Of those it samples some, spread over chats and question templates, and writes for each
``q/<id>/prompt.md``: what a character asked that question sees — the selection as its prompt shows it, the
question, the ``recall`` tool's description as the API backend gives it — and ``q/<id>/lookup``, the tool:
``gamemaster.lookup.lookup_for`` over that chat's stream, leaving out what the prompt showed, at most
``MAX_LOOKUPS`` times; every call is logged to ``q/<id>/lookups.jsonl``. A fresh model per question reads only
``prompt.md``, runs ``lookup`` as it would call the tool, and writes its answer to ``q/<id>/answer.json``.

``score`` counts, per question, whether a lookup returned an evidence turn, what the lookups cost (characters of
memory lines returned, and calls), and — for the same characters spent on the first selection instead —
whether ``ranked`` at the budget plus those characters would have held the evidence.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recall_conv import chat  # noqa: E402
from recall_data import AGENT, write_workspace  # noqa: E402

CHATS = 10


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def prepare(args) -> None:
    from gamemaster.retrieval import recall
    from gamemaster.retrieval.render import memory_text
    from gamemaster.workspace import Workspace

    out: Path = args.dir.resolve()
    misses, total = [], 0
    for pair in range(CHATS):
        rows, questions = chat(pair, seed=args.seed)
        root = out / "streams" / f"chat-{pair}"
        write_workspace(root, rows, args.world)
        for q in questions:
            total += 1
            selection = recall(Workspace(root), AGENT, q["text"], budget=args.budget)
            if not set(q["evidence"]) & set(selection.ids):
                lines = [memory_text(p.memory, args.world) for p in selection.in_prompt_order()]
                misses.append({**q, "chat": pair, "shown": selection.ids, "prompt_lines": lines,
                               "template": int(q["id"].split("-")[1]) // 2})
        log(f"chat {pair}: {len(questions)} questions, {len(misses)} misses so far")
    rng = random.Random(args.seed)
    by_template: dict[int, list[dict]] = {}
    for miss in misses:
        by_template.setdefault(miss["template"], []).append(miss)
    chosen: list[dict] = []
    pools = [rng.sample(v, len(v)) for _, v in sorted(by_template.items())]
    while len(chosen) < min(args.sample, len(misses)):  # round-robin over the templates
        for pool in pools:
            if pool and len(chosen) < args.sample:
                chosen.append(pool.pop())
    summary = {"world": args.world, "budget": args.budget, "seed": args.seed, "questions": total,
               "misses": [{k: m[k] for k in ("id", "chat", "kind", "text", "answer", "evidence", "shown")} for m in misses],
               "sampled": [m["id"] for m in chosen]}
    (out / "misses.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for miss in chosen:
        write_question(out, miss, args.world)
    log(f"{total} questions, {len(misses)} missed at {args.budget}; {len(chosen)} written to {out / 'q'}")


def write_question(out: Path, miss: dict, language: str) -> None:
    from gamemaster.backends.lookup_loop import recall_tool
    from gamemaster.lookup import MAX_LOOKUPS

    folder = out / "q" / miss["id"]
    folder.mkdir(parents=True, exist_ok=True)
    tool = recall_tool(language)
    command = folder / "lookup"
    command.write_text("#!/bin/sh\nexec " + " ".join(shlex.quote(x) for x in (
        sys.executable, str(Path(__file__).resolve()), "lookup", str(out), miss["id"])) + ' "$@"\n', encoding="utf-8")
    command.chmod(0o755)
    prompt = "\n".join([
        "You are Ana. You have followed a long chat between two friends over many weeks; what you remember of it",
        "is your memory stream, one memory per line. Below is a selection of your memories chosen for this moment.",
        "",
        "## What you remember",
        "",
        *miss["prompt_lines"],
        "",
        "## The scene",
        "",
        f"Someone asks you: \"{miss['text']}\"",
        "",
        "## Your tool",
        "",
        f"`{tool['name']}`: {tool['description']}",
        f"Its one input, `query`: {tool['input_schema']['properties']['query']['description']}",
        f"To call it, run: {shlex.quote(str(command))} \"<your query>\" (at most {MAX_LOOKUPS} times).",
        "",
        "## Your answer",
        "",
        'A JSON object: {"answer": "<your answer, in one or two sentences>", "sure": true or false}',
    ])
    (folder / "prompt.md").write_text(prompt + "\n", encoding="utf-8")


def lookup(args) -> None:
    from gamemaster.lang import phrase
    from gamemaster.lookup import MAX_LOOKUPS, lookup_for
    from gamemaster.workspace import Workspace

    out: Path = args.dir.resolve()
    summary = json.loads((out / "misses.json").read_text(encoding="utf-8"))
    miss = next(m for m in summary["misses"] if m["id"] == args.question)
    logfile = out / "q" / miss["id"] / "lookups.jsonl"
    done = logfile.read_text(encoding="utf-8").splitlines() if logfile.exists() else []
    if len(done) >= MAX_LOOKUPS:
        print(phrase(summary["world"], "lookup_spent"))
        return
    found = lookup_for(Workspace(out / "streams" / f"chat-{miss['chat']}"), AGENT, miss["shown"])(" ".join(args.query))
    with open(logfile, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"query": found.query, "ids": list(found.ids), "chars": len(found.text)},
                                ensure_ascii=False) + "\n")
    print(found.text)


def score(args) -> None:
    from gamemaster.retrieval import recall
    from gamemaster.workspace import Workspace

    out: Path = args.dir.resolve()
    summary = json.loads((out / "misses.json").read_text(encoding="utf-8"))
    misses = {m["id"]: m for m in summary["misses"]}
    for pair in {m["chat"] for m in misses.values() if "answer" not in m}:  # written before answers were kept
        for q in chat(pair, seed=summary["seed"])[1]:
            if q["id"] in misses:
                misses[q["id"]]["answer"] = q["answer"]
    budget = summary["budget"]
    rows, found_n, bigger_n, calls_total, chars_total, answered_n = [], 0, 0, 0, 0, 0
    for qid in summary["sampled"]:
        folder = out / "q" / qid
        logfile = folder / "lookups.jsonl"
        if not logfile.exists() and not (folder / "answer.json").exists():
            continue
        miss = misses[qid]
        calls = [json.loads(x) for x in logfile.read_text(encoding="utf-8").splitlines()] if logfile.exists() else []
        evidence = set(miss["evidence"])
        hit_at = next((n + 1 for n, c in enumerate(calls) if evidence & set(c["ids"])), None)
        chars = sum(c["chars"] for c in calls)
        root = Workspace(out / "streams" / f"chat-{miss['chat']}")
        bigger = evidence & set(recall(root, AGENT, miss["text"], budget=budget + chars).ids) if chars else set()
        answer = _answer(folder)
        found_n += hit_at is not None
        bigger_n += bool(bigger)
        calls_total += len(calls)
        chars_total += chars
        answered_n += bool(answer) and miss["answer"].casefold() in answer.casefold()
        rows.append((qid, miss["kind"], miss["text"], [c["query"] for c in calls], hit_at, chars, bool(bigger), answer))
    n = len(rows)
    from gamemaster.lookup import lookup_for

    # The question itself as the one query (no model rewriting it), for every miss.
    blind = sum(bool(set(m["evidence"]) & set(lookup_for(Workspace(out / "streams" / f"chat-{m['chat']}"), AGENT,
                                                         m["shown"])(m["text"]).ids)) for m in misses.values())
    print(f"{platform.platform()} · Python {platform.python_version()} · {os.cpu_count()} CPUs · "
          f"world {summary['world']} · budget {budget} · seed {summary['seed']}\n")
    print(f"{summary['questions']} questions, {len(misses)} without an evidence turn in `ranked` @{budget}; "
          f"{len(summary['sampled'])} sampled, {n} answered by a model\n")
    print("| question | kind | queries the model wrote | evidence found by lookup | characters returned "
          "| same characters on the first selection | answer |")
    print("|---|---|---|---:|---:|---:|---|")
    for qid, kind, text, queries, hit_at, chars, bigger, answer in rows:
        shown = " · ".join(f"„{q}“" for q in queries) or "(none)"
        print(f"| {text} | {kind} | {shown} | {f'call {hit_at}' if hit_at else 'no'} | {chars:,} | "
              f"{'yes' if bigger else 'no'} | {answer.replace('|', '/')[:90]} |")
    if n:
        print(f"\nfound by lookup: {found_n} of {n} ({100 * found_n / n:.0f} %); the same characters on the first "
              f"selection: {bigger_n} of {n}; lookups {calls_total} ({calls_total / n:.1f} a question), "
              f"{chars_total / n:,.0f} characters a question; answers naming the planted answer: {answered_n} of {n}")
    print(f"\nthe question itself as one lookup, for all {len(misses)} misses: evidence found for {blind}")


def _answer(folder: Path) -> str:
    path = folder / "answer.json"
    if not path.exists():
        return ""
    try:
        return str(json.loads(path.read_text(encoding="utf-8")).get("answer", ""))
    except (ValueError, AttributeError):
        return path.read_text(encoding="utf-8").strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir", type=Path)
    p.add_argument("--world", default="en")
    p.add_argument("--budget", type=int, default=10000)
    p.add_argument("--sample", type=int, default=16)
    p.add_argument("--seed", type=int, default=1)
    p = sub.add_parser("lookup")
    p.add_argument("dir", type=Path)
    p.add_argument("question")
    p.add_argument("query", nargs="+")
    p = sub.add_parser("score")
    p.add_argument("dir", type=Path)
    args = parser.parse_args()
    {"prepare": prepare, "lookup": lookup, "score": score}[args.command](args)


if __name__ == "__main__":
    main()
