"""A workspace made by an earlier version has its own ``prompts/contract.md`` with the kinds'
rules written out by hand; the workspace's template wins over the bundled one, so its prompts
keep naming only the kinds of that day. ``doctor`` notices it, and ``doctor --fix`` replaces a
copy that is exactly one the toolkit shipped; a copy with the user's own edits is kept, with a
warning."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import faultkit as fk
import pytest

from gamemaster.workspace import bundled_dir

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
#: prompts/contract.md as the toolkit shipped it at 5ad35d3, the last one with the rules written out.
OLD = (FIXTURES / "contract-5ad35d3.md").read_bytes()
CURRENT = (bundled_dir("prompts") / "contract.md").read_bytes()


def contract_of_first_prompt(root: Path) -> str:
    proc = fk.run(root, "next")  # opens the day's ARRIVAL, or shows it when it is open already
    assert proc.returncode == 0, fk.show(proc)
    proc = fk.run(root, "prompt", "vera")
    assert proc.returncode == 0, fk.show(proc)
    text = proc.stdout
    return text[text.index("Antworte mit genau einem JSON-Objekt"):text.index("Wichtigkeit: 1–2 Routine")]


def test_a_shipped_literal_contract_is_named_and_replaced(tmp_path):
    fresh = fk.studio(tmp_path / "fresh")
    workspace = fk.studio(tmp_path / "old")
    contract = workspace.root / "prompts" / "contract.md"
    contract.write_bytes(OLD)
    os.chmod(contract, 0o640)
    before = tmp_path / "before"  # a copy to open a scene in: a prompt once written is kept as it was shown
    shutil.copytree(workspace.root, before)
    assert "(nur WORK)" in contract_of_first_prompt(before)  # the old rules reach every prompt

    proc = fk.run(workspace.root, "doctor")
    assert proc.returncode == 1, fk.show(proc)
    assert ("prompts/contract.md: the reply contract as an earlier version shipped it, its kinds' rules written "
            "out — replaced by the current one, which takes them from the kinds") in proc.stdout.splitlines(), fk.show(proc)
    assert contract.read_bytes() == OLD

    proc = fk.run(workspace.root, "doctor", "--fix")
    assert proc.returncode == 0, fk.show(proc)
    assert contract.read_bytes() == CURRENT
    assert stat.S_IMODE(contract.stat().st_mode) == 0o640
    # Its prompts now carry the contract a new workspace's do, rules from the kinds.
    assert contract_of_first_prompt(workspace.root) == contract_of_first_prompt(fresh.root)

    proc = fk.run(workspace.root, "doctor", "--fix")  # nothing left to do
    assert proc.returncode == 0 and "contract" not in proc.stdout, fk.show(proc)


def test_an_edited_current_contract_is_left_alone(tmp_path):
    workspace = fk.studio(tmp_path)
    contract = workspace.root / "prompts" / "contract.md"
    contract.write_bytes(CURRENT + "Schreib immer höflich.\n".encode("utf-8"))

    proc = fk.run(workspace.root, "doctor")
    assert proc.returncode == 0 and "contract" not in proc.stdout, fk.show(proc)



def test_a_contract_and_character_template_shipped_together_are_replaced_together(tmp_path):
    # The last templates before the shared start: the contract listed colleagues itself, the
    # character template had no roster. The current contract points to the roster instead, so
    # replacing one without the other would leave prompts pointing to a section they lack.
    workspace = fk.studio(tmp_path)
    prompts = workspace.root / "prompts"
    (prompts / "contract.md").write_bytes((FIXTURES / "contract-5f71d5f.md").read_bytes())
    (prompts / "character.md").write_bytes((FIXTURES / "character-5f71d5f.md").read_bytes())

    proc = fk.run(workspace.root, "doctor")
    assert proc.returncode == 1, fk.show(proc)
    named = sorted(line for line in proc.stdout.splitlines() if line.startswith("prompts/"))
    assert named == ["prompts/character.md: the template character.md as an earlier version shipped it — replaced by the current one",
                     "prompts/contract.md: the template contract.md as an earlier version shipped it — replaced by the current one"], fk.show(proc)

    proc = fk.run(workspace.root, "doctor", "--fix")
    assert proc.returncode == 0, fk.show(proc)
    for name in ("contract.md", "character.md"):
        assert (prompts / name).read_bytes() == (bundled_dir("prompts") / name).read_bytes()
    proc = fk.run(workspace.root, "next")
    assert proc.returncode == 0, fk.show(proc)
    prompt = fk.run(workspace.root, "prompt", "vera").stdout
    assert "die IDs stehen unter „Wer wer ist“" in prompt and "## Wer wer ist" in prompt
    assert "Emre Yilmaz" in prompt[prompt.index("## Wer wer ist"):]


EDITED = [
    ("contract.md", FIXTURES / "contract-5ad35d3.md", "Schreib immer höflich.\n",
     "a reply contract of your own with the kinds' rules written out: a kind added since is not named where it "
     "allows a section — kept; to have them written from the kinds, use $rule_<section> and $kind_lines as "
     "`gamemaster/bundled/prompts/contract.md` does"),
    ("character.md", FIXTURES / "character-5f71d5f.md", "Bleib freundlich.\n",
     "a character template of your own without $roster and $bible: its prompts show no roster of who is who (the "
     "contract points to it) and no studio bible, and share no start between characters for caching — kept; "
     "`gamemaster/bundled/prompts/character.md` shows where they go"),
]


@pytest.mark.parametrize("name, shipped, edit, warning", EDITED, ids=[e[0] for e in EDITED])
def test_an_edited_old_template_is_kept_with_a_warning(tmp_path, name, shipped, edit, warning):
    workspace = fk.studio(tmp_path)
    template = workspace.root / "prompts" / name
    edited = shipped.read_bytes() + edit.encode("utf-8")
    template.write_bytes(edited)

    proc = fk.run(workspace.root, "doctor", "--fix")
    fk.assert_no_traceback(proc)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(f"prompts/{name}")]
    assert lines == [f"prompts/{name}: warning: {warning}"], fk.show(proc)
    assert template.read_bytes() == edited
