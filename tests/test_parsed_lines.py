"""Memory lines parsed once (``parsed_lines``): what a character is shown follows its stream as it
is now, whatever was parsed before, and one character's lines are never another's."""

from __future__ import annotations

import json
import os

from conftest import memory, write_agent, write_lines
from gamemaster.retrieval import recall


def _same_length(text: str) -> str:
    """Other words of exactly the byte length of ``text`` (ASCII, nothing JSON escapes)."""
    size = len(text.encode("utf-8"))
    return ("Von-Hand-umgeschrieben-" * (size // 23 + 1))[:size]


def test_a_line_rewritten_by_hand_to_the_same_length_is_shown_as_it_is_now(gm, workspace):
    pending, _ = gm.open_next()
    turn = pending.turn_of("vera")
    path = workspace.memories_dir / "vera.jsonl"
    lines = path.read_bytes().split(b"\n")
    # The newest memory that is no reflection: shown as done lately, from the end of the stream.
    at = max(i for i, line in enumerate(lines) if line.strip() and json.loads(line)["type"] != "reflection")
    old = json.loads(lines[at])["description"]
    assert '"' not in old and "\\" not in old
    before = gm.build_request(pending, turn).prompt
    assert old in before
    # The same offsets and size; the time of the last write put back: only the bytes tell.
    stat = path.stat()
    new = _same_length(old)
    lines[at] = lines[at].replace(old.encode("utf-8"), new.encode("utf-8"))
    path.write_bytes(b"\n".join(lines))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size

    after = gm.build_request(pending, turn).prompt
    assert new in after and old not in after


def test_a_recalled_line_rewritten_by_hand_is_recalled_as_it_is_now(empty_workspace):
    write_agent(empty_workspace, "ana", name="Ana")
    topics = ["Kaffee", "Regen", "Zugfahrt", "Mittagessen", "Playlist", "Fahrrad"]
    rows = [memory("ana", n, description=f"Ana hat über {topics[n % 6]} geredet ({n})." if n != 30 else
                   "Ana hat den Drucker im Flur repariert.") for n in range(1, 200)]
    path = write_lines(empty_workspace, "ana", rows)
    first = {p.memory.id: p.memory.description for p in recall(empty_workspace, "ana", "Drucker").picked}
    assert first["ana-030"] == "Ana hat den Drucker im Flur repariert."
    # The same length: every line keeps its offset, only the bytes of this one differ.
    text = path.read_text(encoding="utf-8").replace("im Flur repariert", "im Keller zerlegt")
    path.write_text(text, encoding="utf-8")
    again = {p.memory.id: p.memory.description for p in recall(empty_workspace, "ana", "Drucker").picked}
    assert again["ana-030"] == "Ana hat den Drucker im Keller zerlegt."


def test_the_same_bytes_in_another_characters_stream_are_not_taken_for_its_memory(empty_workspace):
    write_agent(empty_workspace, "ana", name="Ana")
    write_agent(empty_workspace, "bea", name="Bea")
    line = memory("ana", 1, description="Ana kennt das Passwort des Servers.")
    write_lines(empty_workspace, "ana", [line])
    write_lines(empty_workspace, "bea", [line])  # a line copied into Bea's stream by hand
    assert [m.memory.description for m in empty_workspace.stream("ana").tail(5)[0]] == [line["description"]]
    found, problems = empty_workspace.stream("bea").tail(5)
    assert found == [] and "does not belong to agent 'bea'" in problems[0].reason
    assert "Passwort" not in " ".join(p.memory.description for p in recall(empty_workspace, "bea", "Passwort").picked)
