"""Studios larger than the bundled one, for tests of scheduling and cost."""

from __future__ import annotations

import json
import re


def grow(workspace, size: int) -> None:
    """Copies of the bundled agents (``vera_2``, ...) with their own streams, as bench/scale.py builds them."""
    bundled = workspace.agent_ids()
    number = 2
    while len(workspace.agent_ids()) < size:
        for source in bundled[: size - len(workspace.agent_ids())]:
            copy = f"{source}_{number}"
            agent = json.loads(workspace.agent_path(source).read_text(encoding="utf-8"))
            first, _, rest = agent["name"].partition(" ")
            agent.update(id=copy, name=f"{first} „{first} {number}“ {rest}")
            workspace.agent_path(copy).write_text(json.dumps(agent, ensure_ascii=False), encoding="utf-8")
            stream = (workspace.memories_dir / f"{source}.jsonl").read_text(encoding="utf-8")
            own = re.compile(r'"' + re.escape(source) + r'-(\d{3,})"')
            (workspace.memories_dir / f"{copy}.jsonl").write_text(
                own.sub(lambda m: f'"{copy}-{m.group(1)}"', stream), encoding="utf-8"
            )
        number += 1
    assert len(workspace.agent_ids()) == size
