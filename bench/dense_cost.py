"""What the ``hybrid`` strategy costs: embedding, the query, a cold store, and a stream of 100,000.

    python bench/dense_cost.py [--chat 0] [--queries 20] [--large 100000]

Needs the ``dense`` extra (``pip install -e ".[dense]"``). One chat of ``recall_conv.py`` (world ``de``):
the cold store build (the search index built first, so only embedding is counted), per memory; then
warm query latency of ``ranked`` and ``hybrid`` (distinct questions, so every hybrid query embeds its
text) and of embedding a query alone. For ``--large`` memories the stream is the chat repeated, its
store filled with random unit vectors under the real model's key (embedding that many for real would
take most of an hour; its cost is the per-memory figure times the count), and a hybrid query is timed
in a fresh process state (vectors read from the store) and warm. CPU is the process's (all threads);
wall times on a shared, loaded machine are less telling. Markdown to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import recall_conv  # noqa: E402
from recall_data import AGENT, write_workspace  # noqa: E402

from gamemaster.retrieval import Query, Settings, recall  # noqa: E402
from gamemaster.retrieval import vectors  # noqa: E402
from gamemaster.retrieval.index import open_index  # noqa: E402
from gamemaster.retrieval.strategies.hybrid import HybridStrategy, load_model  # noqa: E402
from gamemaster.workspace import Workspace  # noqa: E402


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def timed(action) -> tuple[float, float]:
    """(CPU s, wall s) of ``action()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    action()
    return time.process_time() - cpu, time.perf_counter() - wall


class RandomVectors:
    """Unit vectors under the real model's key: a large store without an hour of embedding."""

    def __init__(self, model):
        import numpy as np

        self.key, self.dim, self.rng = model.key, model.dim, np.random.default_rng(1)

    def passages(self, texts):
        out = self.rng.standard_normal((len(texts), self.dim)).astype("float32")
        return out / (out ** 2).sum(axis=1, keepdims=True) ** 0.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chat", type=int, default=0)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--large", type=int, default=100_000)
    args = parser.parse_args()
    model = load_model()
    rows, questions = recall_conv.chat(args.chat, seed=1)
    # Distinct questions for each measurement: the strategy embeds a query text once per process.
    texts = [q["text"] for q in questions][: args.queries]
    later = [q["text"] for q in questions][args.queries: 2 * args.queries]
    out = []
    with tempfile.TemporaryDirectory(prefix="gamemaster-dense-") as scratch:
        root = Path(scratch) / "chat"
        write_workspace(root, rows, "de")
        open_index(root, AGENT, "de").refresh().close()
        strategy = HybridStrategy(model)
        settings = Settings(language="de", budget=10_000)
        cpu, wall = timed(lambda: strategy.select(Workspace(root).stream(AGENT), Query(text="warm-up"), settings))
        store = vectors.store_path_for(root, AGENT)
        log(f"cold store for {len(rows)} memories: {cpu:.1f} s CPU, {wall:.1f} s wall")
        out.append(("cold store, one chat", f"{len(rows)} memories: {cpu:.1f} s CPU ({wall:.1f} s wall), "
                    f"{store.stat().st_size / 1e6:.1f} MB"))
        out.append(("embedding per memory", f"{cpu / len(rows) * 1000:.1f} ms CPU ({wall / len(rows) * 1000:.1f} ms wall)"))
        for name in ("ranked", "hybrid"):
            recall(Workspace(root), AGENT, "warm-up", strategy=name)
            times = [timed(lambda t=t: recall(Workspace(root), AGENT, t, strategy=name)) for t in texts]
            out.append((f"`{name}` query, {len(rows)} memories", _median(times)))
        out.append(("embedding a query alone", _median([timed(lambda t=t: model._model.query(t)) for t in texts])))
        if args.large:
            big = Path(scratch) / "large"
            many = [dict(r, id=f"{AGENT}-{n + 1:06d}") for n, r in
                    enumerate(rows[i % len(rows)] for i in range(args.large))]
            write_workspace(big, many, "de")
            index = open_index(big, AGENT, "de").refresh()
            log(f"{args.large} memories indexed")
            vectors.VectorStore(vectors.store_path_for(big, AGENT), RandomVectors(model)).sync(index, lambda doc: "x")
            index.close()
            size = vectors.store_path_for(big, AGENT).stat().st_size
            vectors._LOADED.clear()  # as in a new process: the vectors are read from the store
            first = timed(lambda: recall(Workspace(big), AGENT, later[0], strategy="hybrid"))
            times = [timed(lambda t=t: recall(Workspace(big), AGENT, t, strategy="hybrid")) for t in later[1:]]
            ranked = [timed(lambda t=t: recall(Workspace(big), AGENT, t, strategy="ranked")) for t in later[1:]]
            per_memory = cpu / len(rows)
            out.append((f"store of {args.large:,}", f"{size / 1e6:.0f} MB; embedding them: about "
                        f"{per_memory * args.large / 60:.0f} min CPU (per-memory figure above)"))
            out.append((f"`hybrid`, {args.large:,}, first query of a process", f"{first[0] * 1000:.0f} ms CPU "
                        f"({first[1] * 1000:.0f} ms wall)"))
            out.append((f"`hybrid` query, {args.large:,}, warm", _median(times)))
            out.append((f"`ranked` query, {args.large:,}, warm", _median(ranked)))
            shutil.rmtree(big, ignore_errors=True)
    print("| what | cost |\n|---|---|")
    for what, cost in out:
        print(f"| {what} | {cost} |")
    print(json.dumps(dict(out)), file=sys.stderr)


def _median(times: list[tuple[float, float]]) -> str:
    cpu = statistics.median(t[0] for t in times) * 1000
    wall = statistics.median(t[1] for t in times) * 1000
    return f"{cpu:.0f} ms CPU ({wall:.0f} ms wall), median of {len(times)}"


if __name__ == "__main__":
    main()
