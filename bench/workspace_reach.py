"""How far the Workspace reaches: the modules whose functions are handed it, and the calls into
``workspace.py``, while the reply hook stores one character's reply.

    python bench/workspace_reach.py [--calls N]

On a fresh bundled studio (``init``, one scene played offline, a WORK scene opened), the
SubagentStop hook's work (``claude_code.subagent_stop_hook``) takes the first character's reply
(``--last``: the last one, with every other stored, so the hook writes the scene back), in this
process, under ``sys.setprofile``; with ``--next``, what ``next`` does after that: opening the
next scene and building its prompts. Every call of a function of the package is looked at:
a function that has a ``Workspace`` among its arguments counts for its module; a call of a
function defined in ``workspace.py`` counts as a call into it. ``--calls N`` counts within the
first N calls of package functions only (0: all). Run it with ``PYTHONPATH=DIR`` (``git archive
<commit> gamemaster | tar -x -C DIR``) for another commit's figures.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import tempfile
from pathlib import Path


def studio(base: Path, last: bool) -> tuple[Path, str]:
    """A studio with a WORK scene pending and the first character's hook event; with ``last``,
    every reply but the last one stored, and the last character's event (the hook writes back)."""
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.create import init_workspace
    from gamemaster.gm import GameMaster

    gm = GameMaster(init_workspace(base / "studio"))
    pending, _ = gm.open_next()
    for turn, agent in enumerate(pending.turns):
        gm.submit_reply(agent, OfflineBackend().reply(gm.build_request(pending, turn)))
    gm.apply_pending()
    world = json.loads(gm.workspace.world_path.read_text(encoding="utf-8"))
    world["kinds"]["encounter"]["per_day"] = 0  # a WORK scene next, as bench/startup.py plays it
    gm.workspace.world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    pending, _ = gm.open_next()
    turn = len(pending.turns) - 1 if last else 0
    for earlier in range(turn):
        gm.submit_reply(pending.turns[earlier], OfflineBackend().reply(gm.build_request(pending, earlier)))
    agent = pending.turns[turn]
    event = {"hook_event_name": "SubagentStop", "agent_type": "character-" + agent.replace("_", "-"),
             "last_assistant_message": OfflineBackend().reply(gm.build_request(pending, turn))}
    return gm.workspace.root, json.dumps(event, ensure_ascii=False)


def traced(root: Path, event: str, limit: int, step: str = "hook") -> tuple[collections.Counter, collections.Counter, int]:
    import gamemaster
    import gamemaster.workspace as workspace_module
    from gamemaster.claude_code import subagent_stop_hook
    from gamemaster.workspace import Workspace

    package = str(Path(gamemaster.__file__).parent)
    here = workspace_module.__file__
    receivers: collections.Counter = collections.Counter()
    into: collections.Counter = collections.Counter()
    seen = 0

    def profile(frame, what, arg):
        nonlocal seen
        if what != "call" or not frame.f_code.co_filename.startswith(package):
            return
        seen += 1
        if limit and seen > limit:
            return
        module = frame.f_globals.get("__name__", "?")
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if any(isinstance(frame.f_locals.get(name), Workspace) for name in names) and code.co_filename != here:
            receivers[module] += 1
        if code.co_filename == here and frame.f_back is not None and frame.f_back.f_code.co_filename != here:
            into[code.co_name] += 1

    workspace = Workspace(root)
    if step == "next":  # the scene the hook's reply completes is written back first, untraced
        subagent_stop_hook(workspace, event)
        from gamemaster.gm import GameMaster

        workspace = Workspace(root)
    sys.setprofile(profile)
    try:
        if step == "next":
            GameMaster(workspace).open_next()
        else:
            subagent_stop_hook(workspace, event)
    finally:
        sys.setprofile(None)
    return receivers, into, seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=0, help="count within the first N calls only (0: all)")
    parser.add_argument("--last", action="store_true", help="the scene's last reply: the hook writes the scene back")
    parser.add_argument("--next", action="store_true",
                        help="after the last reply is written back: `next` opening the next scene and building its prompts")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="workspace-reach-"))
    try:
        root, event = studio(base, args.last or args.next)
        receivers, into, seen = traced(root, event, args.calls, "next" if args.next else "hook")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    counted = min(seen, args.calls) if args.calls else seen
    print(f"package calls counted: {counted:,} (of {seen:,})")
    print(f"modules whose functions receive the workspace: {len(receivers)}")
    print(f"calls into workspace.py from outside it: {sum(into.values())} ({len(into)} functions)")
    for module, count in sorted(receivers.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {module}: {count}")
    print("into workspace.py: " + ", ".join(f"{name} {count}" for name, count in into.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
