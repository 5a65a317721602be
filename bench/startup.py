"""Start-up cost of the commands Claude Code runs all day, against the floor ``import typer, pydantic``.

    python bench/startup.py [--runs N] [--before DIR] [--importtime COMMAND] [--api] [--instructions]

Each command runs as its own process (``python -m gamemaster --root …``) on a fresh bundled
workspace (``gamemaster init`` into a temporary folder), in the state a real session meets it:

* ``next``: between scenes, search indexes built (after one offline scene): opens the next scene;
* ``next-known``: the same, with the stems of that scene's words kept by an earlier run
  (``state/.cache/stems.json``), as from the second time a session opens such a scene;
* ``status``, ``prompt``: with that scene pending;
* ``hook``: ``hook subagent-stop`` with the first character's reply (the hook Claude Code runs
  after every character subagent), on a copy of the pending workspace: that scene is an
  ENCOUNTER, so the hook also writes the second speaker's prompt;
* ``hook-work``: the same for the first reply of a WORK scene (``kinds.encounter.per_day`` set
  to 0 before ``next``), whose replies are independent: the hook writes no prompt;
* ``gm-bash``: ``hook pre-tool-use`` for a Bash call of the Game Master's (the hook lets it
  through: what every such call costs since characters have their lookup);
* ``lookup``: ``lookup`` by the first character of the pending scene, on a copy;
* ``apply``: every reply stored, writes the scene back, on a copy.

Floor and commands run interleaved, round after round, so load on the machine hits them alike;
the table gives the median CPU time (user + sys of the child) and its ratio to the floor, and
how many modules the command has in ``sys.modules`` when it ends (the floor's for comparison).
A reference row runs the least any command reading a state file through pydantic pays: one model
with one ``Field``, defined and validated once (the floor imports pydantic lazily, without its
model machinery). A second reference runs what a hook taking a reply through the reply models
pays at least: ``gamemaster.reply_models`` imported, ``hook-work``'s reply validated and written
as JSON to a temporary file, none of the scene's checks and no state file read.

``--before DIR`` runs every command also with the gamemaster package of another checkout
(``git archive <commit> gamemaster | tar -x -C DIR``), interleaved with this one, for a
before/after table from one run. ``--importtime COMMAND`` prints the slowest imports of one command (``python -X importtime``,
cumulative µs). ``--api`` measures the anthropic backend from process start to its first
request: ``scene run --backend anthropic`` against a local fake Messages API (no network); the
child's CPU time is read from ``/proc`` the moment the request arrives. ``--instructions`` counts
the instructions each command executes instead (valgrind's cachegrind, one run each): unlike CPU
time it does not move with the machine's load, so small differences show on a busy machine too.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

FLOOR = "import typer, pydantic"
#: What any command that reads a state file through a pydantic model pays at least: the floor
#: imports pydantic lazily, and the first model class and validator load its model machinery.
ONE_MODEL = ("import typer\nfrom pydantic import BaseModel, Field\n"
             "class M(BaseModel):\n    x: int = Field(0)\nM.model_validate({'x': 1})")
#: The least a hook taking a reply through the reply models pays: the models imported, the reply
#: parsed, validated and written back as JSON — none of the scene's checks, no state file read.
REPLY_ONLY = ("import json, sys, tempfile\nfrom gamemaster.reply_models import Reply\n"
              "reply = Reply.model_validate_json(json.loads(sys.stdin.read())['last_assistant_message'])\n"
              "with tempfile.TemporaryFile('w', encoding='utf-8') as out:\n"
              "    out.write(json.dumps(reply.model_dump(mode='json', by_alias=True), ensure_ascii=False))")
HERE = Path(__file__).resolve().parent.parent  # this checkout: ``python -m`` imports from the cwd
COMMANDS = ("--help", "status", "next", "next-known", "prompt", "hook", "hook-work", "gm-bash", "lookup", "apply")
REFERENCES = ("floor", "one-model", "reply-only")
LABELS = {"hook": "`hook subagent-stop`, an ENCOUNTER's first reply (writes the second speaker's prompt)",
          "hook-work": "`hook subagent-stop`, a WORK scene's first reply",
          "reply-only": "the reply models imported, one reply validated and written, nothing else (reference)", "next-known": "`next`, words stemmed before",
          "gm-bash": "`hook pre-tool-use`, the Game Master's Bash call (let through)",
          "lookup": "`lookup`, a character's lookup (hook rewrites, then this)",
          "one-model": "one pydantic model with a `Field`, defined and validated once (reference)"}
#: Runs a command as ``python -m gamemaster`` would, then writes its module set to a file.
MODULES_OF = (
    "import json, runpy, sys\n"
    "out, sys.argv = sys.argv[1], ['gamemaster', *sys.argv[2:]]\n"
    "try:\n"
    "    runpy.run_module('gamemaster', run_name='__main__', alter_sys=True)\n"
    "except SystemExit:\n"
    "    pass\n"
    "finally:\n"
    "    open(out, 'w').write(json.dumps(sorted(sys.modules)))\n"
)


#: Where the children keep their bytecode (set by main): a user's installed package has its .pyc
#: files, so compiling gamemaster's sources on every run (PYTHONDONTWRITEBYTECODE) is not measured.
PYCACHE: list[str] = []


def env() -> dict:
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    for name in ("ANTHROPIC_API_KEY", "GAMEMASTER_ROOT", "CLAUDE_PROJECT_DIR", "PYTHONDONTWRITEBYTECODE"):
        environment.pop(name, None)
    if PYCACHE:
        environment["PYTHONPYCACHEPREFIX"] = PYCACHE[0]
    return environment


def gm(root: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(root), *args],
                          capture_output=True, text=True, env=env(), check=True, **kw)


def prepare(tmp: Path) -> dict[str, Path]:
    """The workspaces the commands run on: between scenes, a scene pending, every reply in."""
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.gm import GameMaster
    from gamemaster.workspace import Workspace

    between = tmp / "between"
    subprocess.run([sys.executable, "-m", "gamemaster", "init", str(between)], capture_output=True, env=env(), check=True)
    gm(between, "scene", "run")  # the first scene, offline: indexes built, nothing pending
    pending = tmp / "pending"
    shutil.copytree(between, pending)
    gm(pending, "next")
    known = tmp / "known"  # between scenes, with the stems the next scene's words have
    shutil.copytree(between, known)
    shutil.copy2(pending / "state" / ".cache" / "stems.json", known / "state" / ".cache" / "stems.json")
    master = GameMaster(Workspace(pending))
    scene = master.require_pending()
    first = scene.turns[0]
    first_reply = OfflineBackend().reply(master.build_request(scene, 0))
    replied = tmp / "replied"
    shutil.copytree(pending, replied)
    master = GameMaster(Workspace(replied))
    scene = master.require_pending()
    for turn, agent in enumerate(scene.turns):
        master.submit_reply(agent, OfflineBackend().reply(master.build_request(scene, turn)))
    event = {"session_id": "bench", "hook_event_name": "SubagentStop", "stop_hook_active": False,
             "agent_type": "character-" + first.replace("_", "-"), "last_assistant_message": first_reply}
    (tmp / "hook.json").write_text(json.dumps(event, ensure_ascii=False), encoding="utf-8")
    work = tmp / "work"  # a WORK scene pending: its replies are independent, the hook writes no prompt
    shutil.copytree(between, work)
    world = json.loads((work / "state" / "world.json").read_text(encoding="utf-8"))
    world["kinds"]["encounter"]["per_day"] = 0
    (work / "state" / "world.json").write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    gm(work, "next")
    master = GameMaster(Workspace(work))
    scene = master.require_pending()
    assert scene.spec.kind.name == "WORK", scene.spec.kind.name
    event = {**event, "agent_type": "character-" + scene.turns[0].replace("_", "-"),
             "last_assistant_message": OfflineBackend().reply(master.build_request(scene, 0))}
    (tmp / "hook-work.json").write_text(json.dumps(event, ensure_ascii=False), encoding="utf-8")
    bash = {"session_id": "bench", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(pending),
            "tool_input": {"command": "gamemaster status"}}
    (tmp / "bash.json").write_text(json.dumps(bash, ensure_ascii=False), encoding="utf-8")
    return {"between": between, "known": known, "pending": pending, "replied": replied, "work": work,
            "first": Path(first)}


def command_line(name: str, places: dict[str, Path], scratch: Path) -> tuple[list[str], Path | None, str | None]:
    """argv (after ``python``), the workspace it runs on, and its stdin."""
    if name in REFERENCES:
        stdin = (places["between"].parent / "hook-work.json").read_text(encoding="utf-8") if name == "reply-only" else None
        return ["-c", {"floor": FLOOR, "one-model": ONE_MODEL, "reply-only": REPLY_ONLY}[name]], None, stdin
    source = {"next": "between", "next-known": "known", "hook": "pending", "hook-work": "work", "apply": "replied"}.get(name, "pending")
    root = places[source]
    if name in ("next", "next-known", "hook", "hook-work", "lookup", "apply"):  # they write: each run on a fresh copy
        if scratch.exists():
            shutil.rmtree(scratch)
        shutil.copytree(root, scratch)
        root = scratch
    args = {"--help": ["--help"], "status": ["status"], "next": ["next"], "next-known": ["next"],
            "prompt": ["prompt", str(places["first"])],
            "hook": ["hook", "subagent-stop"], "hook-work": ["hook", "subagent-stop"], "gm-bash": ["hook", "pre-tool-use"],
            "lookup": ["lookup", str(places["first"]), "Was habe ich letzte Woche versprochen?"],
            "apply": ["apply"]}[name]
    stdin = {"hook": "hook.json", "hook-work": "hook-work.json", "gm-bash": "bash.json"}.get(name)
    stdin = (places["between"].parent / stdin).read_text(encoding="utf-8") if stdin else None
    return ["-m", "gamemaster", "--root", str(root), *args], root, stdin


def cpu_of(argv: list[str], stdin: str | None, code: Path = HERE) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, *argv], input=stdin, capture_output=True, text=True, env=env(), cwd=code)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def instructions_of(argv: list[str], stdin: str | None, code: Path = HERE) -> int:
    """Instructions the process executes (valgrind's "I refs"), about 50 times slower than a run."""
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           sys.executable, *argv], input=stdin, capture_output=True, text=True, env=env(), cwd=code)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr}")
    refs = [line for line in proc.stderr.splitlines() if "I" in line and "refs:" in line]
    return int(refs[0].rsplit(":", 1)[1].replace(",", ""))


def modules_of(name: str, places: dict[str, Path], scratch: Path, code: Path = HERE) -> list[str]:
    argv, _, stdin = command_line(name, places, scratch)
    out = scratch.parent / "modules.json"
    if name in REFERENCES:
        source = argv[1] + f"\nimport json, sys\nopen({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))"
        subprocess.run([sys.executable, "-c", source], input=stdin, text=True, check=True, env=env(), cwd=code)
    else:
        subprocess.run([sys.executable, "-c", MODULES_OF, str(out), *argv[2:]], input=stdin,
                       capture_output=True, text=True, env=env(), check=True, cwd=code)
    return json.loads(out.read_text())


def importtime(name: str, places: dict[str, Path], scratch: Path, top: int = 25) -> None:
    cpu_of(*command_line(name, places, scratch)[::2])  # writes the bytecode caches
    argv, _, stdin = command_line(name, places, scratch)
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], input=stdin, capture_output=True, text=True, env=env())
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.split("|")  # "import time: self | cumulative | module"
        if line.startswith("import time:") and len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    print(f"{name}: {len(rows)} modules imported; slowest (cumulative µs):")
    for cumulative, module in sorted(rows, reverse=True)[:top]:
        print(f"{cumulative:>10,}  {module}")


class FakeMessages(http.server.BaseHTTPRequestHandler):
    """Records when the first request arrives and how much CPU the client had used by then."""

    child_pid = 0
    arrived: dict = {}

    def do_POST(self):  # noqa: N802 (http.server's naming)
        if not self.arrived:
            with open(f"/proc/{self.child_pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            ticks = os.sysconf("SC_CLK_TCK")
            self.arrived.update(wall=time.perf_counter(), cpu=(int(fields[11]) + int(fields[12])) / ticks)
        # 400 is not retried: the scene fails at once and the next run starts.
        body = b'{"type":"error","error":{"type":"invalid_request_error","message":"bench"}}'
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def api_first_request(places: dict[str, Path], scratch: Path, runs: int) -> list[tuple[float, float]]:
    """(wall, CPU) seconds from ``scene run --backend anthropic`` starting to its first request."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeMessages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    found = []
    for _ in range(runs + 1):  # the first run writes the SDK's bytecode caches and is not counted
        if scratch.exists():
            shutil.rmtree(scratch)
        shutil.copytree(places["pending"], scratch)
        FakeMessages.arrived = {}
        environment = {**env(), "ANTHROPIC_API_KEY": "bench-key",
                       "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}"}
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "gamemaster", "--root", str(scratch), "scene", "run",
                                  "--backend", "anthropic"], env=environment,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        FakeMessages.child_pid = child.pid
        child.wait(timeout=300)
        if FakeMessages.arrived:
            found.append((FakeMessages.arrived["wall"] - start, FakeMessages.arrived["cpu"]))
    server.shutdown()
    return found[1:]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7, help="rounds of floor + every command (default 7)")
    parser.add_argument("--importtime", metavar="COMMAND", choices=("floor", *COMMANDS),
                        help="print the slowest imports of one command instead")
    parser.add_argument("--api", action="store_true", help="also time start → first request of the anthropic backend")
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind) instead of CPU time")
    parser.add_argument("--before", type=Path, metavar="DIR", help="a folder holding another gamemaster package to compare")
    args = parser.parse_args()
    codes = {"": HERE, **({"before": args.before.resolve()} if args.before else {})}

    with tempfile.TemporaryDirectory() as tmp:
        PYCACHE.append(str(Path(tmp) / "pycache"))
        places = prepare(Path(tmp))
        scratch = Path(tmp) / "scratch" / "studio"
        scratch.parent.mkdir()
        if args.importtime:
            return importtime(args.importtime, places, scratch)
        runs = [(name, "") for name in REFERENCES] + [(name, code) for name in COMMANDS for code in codes]
        times: dict[tuple[str, str], list[float]] = {run: [] for run in runs}
        for name, code in runs:  # a round not counted: it writes the bytecode caches
            cpu_of(*command_line(name, places, scratch)[::2], code=codes[code])
        if args.instructions:
            counts = {run: instructions_of(*command_line(run[0], places, scratch)[::2], codes[run[1]]) for run in runs}
            print("instructions executed (valgrind), millions, one run each")
            print("| command | instructions | × floor |")
            print("|---|---:|---:|")
            for name, code in runs:
                label = f"`python -c \"{FLOOR}\"` (floor)" if name == "floor" else \
                    LABELS.get(name, f"`{name}`") + (f", {code}" if code else "")
                print(f"| {label} | {counts[name, code] / 1e6:,.0f} | {counts[name, code] / counts['floor', '']:.2f} |")
            return
        for _ in range(args.runs):
            for name, code in runs:
                argv, _, stdin = command_line(name, places, scratch)
                times[name, code].append(cpu_of(argv, stdin, codes[code]))
        floor = statistics.median(times["floor", ""])
        print(f"{args.runs} runs each, interleaved; CPU = user + sys of the process, median")
        print("| command | CPU s | × floor | modules |")
        print("|---|---:|---:|---:|")
        for name, code in runs:
            cpu = statistics.median(times[name, code])
            label = f"`python -c \"{FLOOR}\"` (floor)" if name == "floor" else \
                LABELS.get(name, f"`{name}`") + (f", {code}" if code else "")
            modules = len(modules_of(name, places, scratch, codes[code]))
            print(f"| {label} | {cpu:.3f} | {cpu / floor:.1f} | {modules:,} |")
        if args.api:
            found = api_first_request(places, scratch, max(3, args.runs // 2))
            if not found:
                raise SystemExit("the anthropic backend sent no request")
            wall = statistics.median(w for w, _ in found)
            cpu = statistics.median(c for _, c in found)
            print(f"\nanthropic backend, `scene run` start → first request ({len(found)} runs, median): "
                  f"CPU {cpu:.2f} s ({cpu / floor:.1f} × floor), wall {wall:.2f} s")


if __name__ == "__main__":
    main()
