"""Issue 19: `validate` — the tool meant to find errors — never crashes on what a file holds.

Every state file it reads gets each hostile content in turn; `validate` must answer with
`file[:line]: reason` lines naming that file, exit 1, and no traceback, and the file must be
left exactly as it was.
"""

from __future__ import annotations

import pytest

import faultkit as fk

CONTENTS = {
    "binary": bytes(range(256)) * 4,
    "not utf-8": "Müller".encode("latin-1"),
    "empty": b"",
    "a json list": b"[1, 2, 3]",
    "a huge integer": b'{"x": ' + b"9" * 5000 + b"}",
    "deep nesting": b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "an infinite float": b'{"x": 1e999}',
    "NaN": b'{"x": NaN}',
    "a truncated object": b'{"id": "vera", "name": ',
    "a NUL in a string": b'{"id": "vera\\u0000"}',
}

FILES = ["state/world.json", "state/agents/vera.json", "state/memories/vera.jsonl"]


@pytest.mark.parametrize("relative", FILES)
@pytest.mark.parametrize("name", list(CONTENTS))
def test_validate_names_the_file_for_any_content(tmp_path, relative, name):
    workspace = fk.studio(tmp_path)
    path = workspace.root / relative
    content = CONTENTS[name]
    path.write_bytes(content)

    proc = fk.validate(workspace.root)

    fk.assert_no_traceback(proc)
    if not content and relative.endswith(".jsonl"):  # a stream with no memories yet is valid
        assert proc.returncode == 0, fk.show(proc)
        return
    assert proc.returncode == 1, fk.show(proc)
    assert relative in proc.stdout + proc.stderr, fk.show(proc)
    assert path.read_bytes() == content, "validate changed the file"
