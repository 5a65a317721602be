"""Issue 19, items 1, 2, 3 and 6: symbolic links never carry files from outside the workspace in.

A studio folder someone sends (a zip, a git repo) can hold links to anywhere. ``import``
and ``doctor --fix``'s backup copy no file through a link that leads out of the folder they
copy, ``report`` publishes none, and a failed import leaves no half-built workspace. The one
link followed out of the workspace is a ``library/`` the user linked to shared lore.
"""

from __future__ import annotations

import json
import os
import resource
import signal
from pathlib import Path

import pytest

import faultkit as fk

SECRET = "root:x:0:0:geheim:/root:/bin/bash"


def _secrets(tmp_path: Path) -> tuple[Path, Path]:
    """A secret file and a folder of secrets beside everything the test makes."""
    outside = tmp_path / "outside"
    (outside / "etc").mkdir(parents=True)
    secret = outside / "passwd"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    for name in ("shadow", "hosts.md"):
        (outside / "etc" / name).write_text(f"{SECRET} {name}\n", encoding="utf-8")
    return secret, outside / "etc"


def _holds_secret(folder: Path) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        if path.is_file() and SECRET.encode() in path.read_bytes():
            found.append(path.relative_to(folder).as_posix())
    return found


def _source(tmp_path: Path):
    source = fk.init_workspace(tmp_path / "src")
    concepts = source.gallery / "concepts"
    concepts.mkdir(parents=True)
    (concepts / "day-001_turm_v1.md").write_text("# Turm\n\nKnochentürme im Nebel.\n", encoding="utf-8")
    return source


def _import(tmp_path: Path, source: Path, target: Path):
    return fk.run(tmp_path, "import", str(source), "--into", str(target))


# -- import ---------------------------------------------------------------------------


def test_import_copies_nothing_a_link_out_of_the_source_points_at(tmp_path):
    secret, secrets = _secrets(tmp_path)
    source = _source(tmp_path)
    (source.state / "notes.md").symlink_to(secret)
    (source.gallery / "etc").symlink_to(secrets)
    (source.gallery / "concepts" / "home.md").symlink_to(os.path.relpath(secret, source.gallery / "concepts"))
    target = tmp_path / "dst"

    proc = _import(tmp_path, source.root, target)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert _holds_secret(target) == [], fk.show(proc)
    for name in ("state/notes.md", "gallery/etc", "gallery/concepts/home.md"):
        assert not os.path.lexists(target / name), f"{name} was copied\n{fk.show(proc)}"
        said = [line for line in proc.stdout.splitlines() if name in line]
        assert len(said) == 1 and "outside" in said[0], f"no line says {name} was skipped\n{fk.show(proc)}"
    assert (target / "gallery/concepts/day-001_turm_v1.md").read_text(encoding="utf-8").startswith("# Turm")
    fk.assert_valid(target)


def test_import_keeps_a_link_inside_the_studio_as_a_link_into_the_new_workspace(tmp_path):
    source = _source(tmp_path)
    concepts = source.gallery / "concepts"
    (concepts / "latest.md").symlink_to("day-001_turm_v1.md")
    (concepts / "absolute.md").symlink_to(concepts / "day-001_turm_v1.md")
    target = tmp_path / "dst"

    proc = _import(tmp_path, source.root, target)

    assert proc.returncode == 0, fk.show(proc)
    for name in ("latest.md", "absolute.md"):
        copy = target / "gallery/concepts" / name
        assert copy.is_symlink(), f"{name} is not a link in the new workspace"
        assert copy.resolve() == (target / "gallery/concepts/day-001_turm_v1.md").resolve(), (
            f"{name} points at {os.readlink(copy)}, not at the new workspace's own file")


def test_import_of_a_link_from_the_source_into_the_target_ends_cleanly(tmp_path):
    source = _source(tmp_path)
    target = tmp_path / "dst"
    (source.gallery / "into").symlink_to(os.path.relpath(target, source.gallery))

    proc = _import(tmp_path, source.root, target)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert not os.path.lexists(target / "gallery/into"), fk.show(proc)
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file() and not p.is_symlink())
    assert size < 2_000_000, f"the target grew to {size} bytes"
    fk.assert_valid(target)


def _file_size_limit(size: int):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return preexec


@pytest.mark.parametrize("made_by_user", [False, True], ids=["new-folder", "empty-folder-the-user-made"])
def test_an_import_that_fails_leaves_no_half_built_target(tmp_path, made_by_user):
    source = _source(tmp_path)
    big = source.gallery / "concepts" / "day-001_karte_v1.md"
    big.write_text("# Karte\n\n" + "Nebel über dem Moor. " * 20_000, encoding="utf-8")
    target = tmp_path / "dst"
    if made_by_user:
        target.mkdir()

    proc = fk.run(tmp_path, "import", str(source.root), "--into", str(target), preexec_fn=_file_size_limit(200_000))

    fk.assert_clean_error(proc, "gallery/concepts/day-001_karte_v1.md")
    errors = fk.error_lines(proc)
    assert len(errors) == 1 and "[(" not in errors[0], fk.show(proc)
    if made_by_user:
        assert target.is_dir() and list(target.iterdir()) == [], f"left behind: {sorted(p.name for p in target.iterdir())}"
    else:
        assert not target.exists(), f"left behind: {sorted(p.name for p in target.iterdir())}"


# -- doctor --fix's backup --------------------------------------------------------------


def test_the_doctor_backup_copies_nothing_through_a_link_out_of_the_workspace(tmp_path):
    secret, secrets = _secrets(tmp_path)
    workspace = fk.studio(tmp_path)
    (workspace.state / "notes.md").symlink_to(secret)
    (workspace.state / "lore").symlink_to(secrets)
    (workspace.state / "loop").symlink_to(".")
    # A link that stays in the workspace: the backup holds the file it points to.
    shared = workspace.root / "characters"
    shared.mkdir()
    os.replace(workspace.agent_path("vera"), shared / "vera.json")
    workspace.agent_path("vera").symlink_to(os.path.relpath(shared / "vera.json", workspace.agents_dir))
    stream = workspace.memories_dir / "emre.jsonl"
    stream.write_bytes(stream.read_bytes().rstrip(b"\n"))  # a drift the fix repairs

    proc = fk.run(workspace.root, "doctor", "--fix")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    [backup] = list((workspace.state / ".backup").iterdir())
    assert _holds_secret(backup) == [], fk.show(proc)
    assert not os.path.lexists(backup / "notes.md") and not os.path.lexists(backup / "lore"), fk.show(proc)
    for name in ("state/notes.md", "state/lore", "state/loop"):
        assert len([line for line in proc.stdout.splitlines() if name in line]) == 1, (
            f"no line says {name} was left out of the backup\n{fk.show(proc)}")
    vera = backup / "agents/vera.json"
    assert not vera.is_symlink() and vera.read_bytes() == (shared / "vera.json").read_bytes()
    assert stream.read_bytes().endswith(b"\n")


# -- report -----------------------------------------------------------------------------


def _report_text(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))


def test_report_publishes_no_file_a_gallery_link_points_out_to(tmp_path):
    secret, secrets = _secrets(tmp_path)
    workspace = fk.studio(tmp_path)
    concepts = workspace.gallery / "concepts"
    concepts.mkdir(parents=True)
    (concepts / "passwd.md").symlink_to(secret)
    (workspace.gallery / "etc").symlink_to(secrets)
    (concepts / "day-001_turm_v1.md").write_text("# Turm\n\nKnochentürme im Nebel.\n", encoding="utf-8")
    (concepts / "alias.md").symlink_to("day-001_turm_v1.md")  # inside: published like any artifact

    proc = fk.run(workspace.root, "report")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    text = _report_text(workspace.root / "report")
    assert SECRET not in text and "geheim" not in text
    assert not list((workspace.root / "report").rglob("*passwd*")), fk.show(proc)
    assert "Knochentürme im Nebel" in (workspace.root / "report/gallery/concepts__alias.html").read_text(encoding="utf-8")
    warned = [line for line in proc.stderr.splitlines() if line.startswith("warning:") and "gallery/concepts/passwd.md" in line]
    assert len(warned) == 1 and "outside the workspace" in warned[0], fk.show(proc)


def test_report_does_not_read_an_artifact_a_memory_names_through_a_link_out(tmp_path):
    secret, _ = _secrets(tmp_path)
    workspace = fk.studio(tmp_path)
    concepts = workspace.gallery / "concepts"
    concepts.mkdir(parents=True)
    (concepts / "day-001_plan_v1.md").symlink_to(secret)
    stream = workspace.memories_dir / "vera.jsonl"
    last = json.loads(stream.read_text(encoding="utf-8").splitlines()[-1])
    number = int(last["id"].rsplit("-", 1)[1]) + 1
    memory = {**last, "id": f"vera-{number:03d}", "type": "artifact", "depth": 0, "evidence": [], "description": "Plan gezeichnet",
              "metadata": {"artifact_path": "gallery/concepts/day-001_plan_v1.md", "kind": "concepts", "title": "Plan"}}
    with stream.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(memory, ensure_ascii=False) + "\n")

    proc = fk.run(workspace.root, "report")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert SECRET not in _report_text(workspace.root / "report"), fk.show(proc)


# -- report --out -----------------------------------------------------------------------


@pytest.mark.parametrize("folder", ["state/agents", "scenes/day-001", "gallery/concepts", "library", "prompts"])
def test_report_refuses_an_out_folder_inside_the_workspace_folders(tmp_path, folder):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run", "--backend", "offline").returncode == 0
    before = fk.tree_snapshot(workspace.root)

    proc = fk.run(workspace.root, "report", "--out", str(workspace.root / folder))

    fk.assert_clean_error(proc, folder, "--out")
    assert len(fk.error_lines(proc)) == 1, fk.show(proc)
    assert fk.tree_snapshot(workspace.root) == before, "the refused report wrote into the workspace"
    status = fk.run(workspace.root, "status")
    assert status.returncode == 0, fk.show(status)


# -- a linked library/ ------------------------------------------------------------------


def test_a_library_folder_linked_to_shared_lore_is_read(tmp_path):
    secret, _ = _secrets(tmp_path)
    workspace = fk.studio(tmp_path)
    shared = tmp_path / "shared-lore"
    os.replace(workspace.root / "library", shared)
    (workspace.root / "library").symlink_to(shared)
    # A link inside the shared lore that leads elsewhere is still not read.
    (shared / "geheim.md").symlink_to(secret)

    proc = fk.run(workspace.root, "library", "--json")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    documents = json.loads(proc.stdout)["documents"]
    assert [d["path"] for d in documents] == ["library/lore-bibel.md", "library/produktionsplan.md", "library/stilhandbuch.md"]
    assert "Die Knochentürme" in documents[0]["sections"]
    text = fk.run(workspace.root, "library")
    assert "no longer in library/" not in text.stdout and "library/lore-bibel.md: Lore-Bibel" in text.stdout, fk.show(text)

    assert fk.run(workspace.root, "scene", "run", "--backend", "offline").returncode == 0
    vera = fk.read_json(workspace.agent_path("vera"))
    vera["today_plan"] = {"text": "Ich schlage in der Bibliothek nach, wie die Knochentürme wachsen.", "tags": ["bone-towers"]}
    fk.write_json(workspace.agent_path("vera"), vera)
    opened = fk.run(workspace.root, "next", "--type", "WORK", "--with", "vera")
    assert opened.returncode == 0, fk.show(opened)
    prompt = fk.run(workspace.root, "prompt", "vera")
    assert "`library/lore-bibel.md`" in prompt.stdout and SECRET not in prompt.stdout, fk.show(prompt)


@pytest.mark.parametrize("relative", ["state/agents/vera.json", "state/memories/vera.jsonl"])
def test_a_state_file_linked_out_of_the_workspace_is_neither_read_nor_written(tmp_path, relative):
    # A studio folder from elsewhere may link a state file to any file on the machine: the
    # tool must not read it into a prompt, nor append to or rewrite the file out there.
    workspace = fk.studio(tmp_path / "ws")
    outside = tmp_path / "outside" / Path(relative).name
    outside.parent.mkdir()
    link = workspace.root / relative
    os.replace(link, outside)
    link.symlink_to(outside)
    before = outside.read_bytes()

    proc = fk.run(workspace.root, "scene", "run")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    assert f"{relative}: a symbolic link out of the workspace" in proc.stderr, fk.show(proc)
    assert outside.read_bytes() == before, "the file outside the workspace was written"
    assert link.is_symlink()
    validate = fk.run(workspace.root, "validate")
    assert f"{relative}: a symbolic link out of the workspace" in validate.stdout + validate.stderr, fk.show(validate)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir(exist_ok=True)
    victim.write_text("mine\n", encoding="utf-8")
    return victim


@pytest.mark.parametrize("relative,args", [
    ("scenes/day-001/summary.md", ("day", "advance")),  # written when the day closes
    ("state/.cache/vera.json", ("status",)),  # a derived file
    ("state/.cache/vera.search.sqlite", ("recall", "vera", "Knochentürme")),  # SQLite writes where it points
    ("state/.cache/stems.json", ("next",)),  # the stems a command computed, kept for the next one
])
def test_no_write_follows_a_link_out_of_the_workspace(tmp_path, relative, args):
    workspace = fk.studio(tmp_path / "ws")
    victim = _victim(tmp_path)
    for cached in (workspace.state / ".cache").glob("vera.*"):
        cached.unlink()
    link = workspace.root / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(victim)

    proc = fk.run(workspace.root, *args)

    fk.assert_no_traceback(proc)
    assert victim.read_text(encoding="utf-8") == "mine\n", f"{relative} was written through to a file outside"
    assert f"{relative}: a symbolic link leads it out of the workspace" in proc.stderr, fk.show(proc)


def test_a_scene_folder_linked_out_of_the_workspace_gets_no_files(tmp_path):
    workspace = fk.studio(tmp_path / "ws")
    outside = tmp_path / "outside-scenes"
    outside.mkdir()
    workspace.scenes.mkdir(exist_ok=True)
    (workspace.scenes / "day-001").symlink_to(outside, target_is_directory=True)

    proc = fk.run(workspace.root, "next")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    assert list(outside.rglob("*")) == [], "files were written into the folder a link points to"
    assert "a symbolic link leads it out of the workspace" in proc.stderr, fk.show(proc)


@pytest.mark.parametrize("relative", ["state/agents/vera.json", "state/memories/vera.jsonl"])
def test_the_doctor_reads_no_state_file_through_a_link_out(tmp_path, relative):
    workspace = fk.studio(tmp_path / "ws")
    secret, _ = _secrets(tmp_path)
    link = workspace.root / relative
    link.unlink()
    link.symlink_to(secret)

    proc = fk.run(workspace.root, "doctor", "--json")

    fk.assert_no_traceback(proc)
    assert "geheim" not in proc.stdout + proc.stderr, fk.show(proc)
    found = [d for d in json.loads(proc.stdout)["drifts"] if d["file"] == relative]
    assert [d["what"] for d in found] == [
        f"a symbolic link out of the workspace (to {secret}); gamemaster neither reads nor writes through it: "
        "copy the file into the workspace"], fk.show(proc)
