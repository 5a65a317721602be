"""A damaged day archive never silences a day (issue 39): each reader checks an archive before it
trusts it; a damaged one is one line naming the file, the commands that can go on without the
day say which day they left out, ``validate`` names it. Archiving takes only regular files and
nothing blocks under the lock; an archive member is bounded."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile

import pytest

import faultkit as fk
from gamemaster.create import init_workspace


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Two offline days, day 1 archived: copied for every test."""
    root = tmp_path_factory.mktemp("played") / "studio"
    init_workspace(root)
    proc = fk.run(root, "day", "advance", "--days", "2", "--backend", "offline", timeout=3 * fk.HANG_GUARD)
    assert proc.returncode == 0, fk.show(proc)
    packed = fk.run(root, "day", "archive")
    assert packed.returncode == 0, fk.show(packed)
    return root


@pytest.fixture
def studio(played, tmp_path):
    import shutil

    root = tmp_path / "studio"
    shutil.copytree(played, root, symlinks=True)
    return root


def _flip(data: bytes, at: int, count: int = 64) -> bytes:
    return data[:at] + bytes(b ^ 0xFF for b in data[at:at + count]) + data[at + count:]


DAMAGE = {
    "flipped a third in": lambda data: _flip(data, len(data) // 3),
    "truncated to half": lambda data: data[: len(data) // 2],
    "flipped near the start": lambda data: _flip(data, 8, 16),
    "empty": lambda data: b"",
    "not xz": lambda data: b"this is not an archive\n" * 40,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_archive_is_named_and_its_day_left_out_aloud(studio, tmp_path, damage):
    archive = studio / "scenes" / "day-001.tar.xz"
    archive.write_bytes(DAMAGE[damage](archive.read_bytes()))
    for args in (("cost",), ("cost", "--json"), ("report", "--out", str(tmp_path / "site"))):
        proc = fk.run(studio, *args)
        fk.assert_no_traceback(proc)
        assert "Aborted" not in proc.stderr, fk.show(proc)
        # It goes on without the day, and says so: the file, that it is damaged, the day left out.
        assert proc.returncode == 0, fk.show(proc)
        said = [line for line in proc.stderr.splitlines() if "scenes/day-001.tar.xz" in line]
        assert said and "damaged" in said[0] and "day-001 is left out" in said[0], fk.show(proc)
    report = json.loads(fk.run(studio, "cost", "--json").stdout)
    assert list(report["days"]) == [] or "day-001" not in report["days"]
    valid = fk.validate(studio)
    fk.assert_no_traceback(valid)
    assert valid.returncode == 1 and "scenes/day-001.tar.xz" in valid.stdout + valid.stderr, fk.show(valid)


def test_an_archive_is_packed_with_its_digest_and_one_without_gets_it(studio):
    archive = studio / "scenes" / "day-001.tar.xz"
    digest = studio / "scenes" / "day-001.tar.xz.sha256"
    # The format `sha256sum -c` reads, next to the archive.
    assert digest.read_text(encoding="utf-8") == f"{hashlib.sha256(archive.read_bytes()).hexdigest()}  day-001.tar.xz\n"
    digest.unlink()  # an archive packed before digests were written
    assert fk.run(studio, "cost").returncode == 0
    proc = fk.run(studio, "day", "archive")
    assert proc.returncode == 0 and "scenes/day-001.tar.xz.sha256" in proc.stdout, fk.show(proc)
    assert digest.read_text(encoding="utf-8").split()[0] == hashlib.sha256(archive.read_bytes()).hexdigest()
    fk.assert_valid(studio)
    # A damaged one without a digest gets none: a digest would vouch for the damage.
    digest.unlink()
    archive.write_bytes(archive.read_bytes()[:-200])
    damaged = fk.run(studio, "day", "archive")
    assert damaged.returncode == 0 and "no digest written: scenes/day-001.tar.xz: damaged" in damaged.stdout, \
        fk.show(damaged)
    assert not digest.exists()


def test_archiving_a_day_with_a_fifo_in_it_neither_blocks_nor_loses_it(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    assert fk.run(root, "day", "advance", "--days", "2", "--backend", "offline",
                  timeout=3 * fk.HANG_GUARD).returncode == 0
    pipe = root / "scenes" / "day-001" / "scene-01" / "pipe"
    os.mkfifo(pipe)
    proc = fk.run(root, "day", "archive", timeout=120)  # it read the FIFO and hung, holding the lock
    fk.assert_no_traceback(proc)
    assert "scenes/day-001/scene-01/pipe" in proc.stdout + proc.stderr, fk.show(proc)
    assert pipe.exists() and (root / "scenes" / "day-001" / "scene-01" / "scene.json").is_file()
    pipe.unlink()
    again = fk.run(root, "day", "archive")
    assert again.returncode == 0 and (root / "scenes" / "day-001.tar.xz").is_file(), fk.show(again)


@pytest.mark.parametrize("sizes, named", [((400,), "day-001/scene-01/prompts/01-vera.md.big0"),
                                          ((30,) * 5, "more than 134,217,728 bytes")])
def test_a_huge_archive_member_is_refused_not_read_into_memory(studio, sizes, named):
    """An archive holding a member bigger than any scene file, or members adding up to more than
    any day (MB of zeros pack to kilobytes): named as damaged, not read whole into memory."""
    import resource

    archive = studio / "scenes" / "day-001.tar.xz"
    buffer = io.BytesIO()
    with tarfile.open(archive) as old, tarfile.open(fileobj=buffer, mode="w:xz") as new:
        for member in old:
            new.addfile(member, old.extractfile(member) if member.isfile() else None)
        for n, size in enumerate(sizes):
            big = tarfile.TarInfo(f"day-001/scene-01/prompts/01-vera.md.big{n}")
            big.size = size * 1024 * 1024
            new.addfile(big, io.BufferedReader(_Zeros(big.size)))
    archive.write_bytes(buffer.getvalue())
    (studio / "scenes" / "day-001.tar.xz.sha256").write_text(
        f"{hashlib.sha256(archive.read_bytes()).hexdigest()}  day-001.tar.xz\n", encoding="utf-8")

    def limited():  # 300 MB of address space beyond what Python needs: the member cannot be read whole
        resource.setrlimit(resource.RLIMIT_AS, (1200 * 1024 * 1024, 1200 * 1024 * 1024))

    proc = fk.run(studio, "cost", preexec_fn=limited)
    fk.assert_no_traceback(proc)
    assert proc.returncode == 0 and "MemoryError" not in proc.stderr, fk.show(proc)
    said = [line for line in proc.stderr.splitlines() if "scenes/day-001.tar.xz" in line]
    assert said and named in said[0], fk.show(proc)


class _Zeros(io.RawIOBase):
    def __init__(self, size: int):
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n
