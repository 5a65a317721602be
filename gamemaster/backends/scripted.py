"""A backend with queued replies that records every request: the test double.

Queue replies per agent (``ScriptedBackend({"vera": [reply, ...]})``) or in one
list for any agent; each reply is a dict, a string, or a callable taking the
``ReplyRequest``. ``requests`` keeps every request in the order received.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Callable, Union

from .base import Capabilities, ReplyRequest

Scripted = Union[dict, str, Callable[[ReplyRequest], Union[dict, str]]]


class ScriptedBackend:
    name = "scripted"

    def __init__(self, replies: dict[str, list[Scripted]] | list[Scripted] | None = None, retries: int = 1):
        self.capabilities = Capabilities(retries=retries)
        self.requests: list[ReplyRequest] = []
        if isinstance(replies, dict):
            self.by_agent = {agent: deque(queue) for agent, queue in replies.items()}
            self.shared: deque = deque()
        else:
            self.by_agent = {}
            self.shared = deque(replies or [])

    def reply(self, request: ReplyRequest) -> str:
        self.requests.append(request)
        queue = self.by_agent.get(request.agent.id) or self.shared
        if not queue:
            raise LookupError(f"scripted backend: no reply queued for {request.agent.id} in {request.spec.ref}")
        item = queue.popleft()
        if callable(item):
            item = item(request)
        return item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)

    def prompts_for(self, agent: str) -> list[str]:
        return [r.prompt for r in self.requests if r.agent.id == agent]
