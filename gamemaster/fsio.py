"""File primitives every writer uses: atomic rewrites, whole-line appends, the lock.

A user may open any state file in an editor while the tool runs, so a file is
either the old version or the new one, never half of each.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import threading
import time
from pathlib import Path
from typing import Any

from . import jsontext
from .ids import confined


def atomic_write_bytes(path: Path, data: bytes, dirs: set[Path] | None = None, durable: bool = True) -> None:
    """Write to a temp file beside ``path``, flush it to disk, then rename over.

    The new file keeps the mode of the one it replaces; a new file gets the
    umask's default, as ``open(path, "w")`` would give it. If ``path`` is a
    symlink, its target is rewritten and the link stays a link. Whether the
    target lies inside the workspace is for the caller to check.

    ``dirs``: the caller writes several files and syncs each folder once
    (``fsync_dirs``) instead of once per file; the rename is durable only then.
    ``durable=False``: no fsync at all, for derived files that are checked
    against their source and rebuilt when they do not match (a crash can only
    leave the old version or an empty file, never a wrong one that passes).
    """
    confined(path)  # before the folders are made: they would be made out there
    path.parent.mkdir(parents=True, exist_ok=True)
    target = _write_target(path)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    fd, tmp = _create_temp(target, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if mode is not None:
                _chmod(handle.fileno(), tmp, mode)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if not durable:
        return
    if dirs is None:
        _fsync_dir(target.parent)
    else:
        dirs.add(target.parent)


def _write_target(path: Path) -> Path:
    """The file a write to ``path`` should replace: the end of its symlink chain.

    Renaming over the link itself would turn it into a plain copy and leave the
    file it points to behind, while appends (which follow links) keep going there.
    """
    if not path.is_symlink():
        return path
    try:
        target = path.resolve()
    except RuntimeError:  # a symlink loop (Python < 3.13 raises RuntimeError)
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None
    if target.is_symlink():  # still a link: resolve() gave up on a loop
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
    return target


_TEMP_FLAGS = (
    os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
)


def _create_temp(target: Path, mode: int | None) -> tuple[int, str]:
    """Create ``.{name}.{pid}-XXXXXXXX.tmp`` beside ``target``; the pid tells a sweep whose it is.

    Not ``mkstemp``: it always creates 0600. A new file is created with 0666 and
    the kernel applies the umask (or a default ACL), so the umask is never read;
    reading it means setting it (``os.umask``), which is process-wide and would
    race with the scene worker threads creating files. A replacement starts no
    wider than the file it replaces, so the new contents are never readable by
    more people than the old ones, and gets the exact mode once written.
    """
    create_mode = 0o666 if mode is None else mode & 0o777
    for _ in range(100):
        tmp = os.path.join(target.parent, f".{target.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, _TEMP_FLAGS, create_mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(target.parent))


def _chmod(fd: int, tmp: str, mode: int) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # pragma: no cover - Windows: only the read-only flag exists
        os.chmod(tmp, mode)


def atomic_write_text(path: Path, text: str, dirs: set[Path] | None = None, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), dirs, durable)


def dump_json(data: Any) -> str:
    """A state file's text: strict JSON (no NaN or Infinity, which other tools reject), indented."""
    return jsontext.dumps(data, indent=2) + "\n"


def atomic_write_json(path: Path, data: Any, dirs: set[Path] | None = None, durable: bool = True) -> None:
    atomic_write_text(path, dump_json(data), dirs, durable)


def append_lines(path: Path, lines: list[str], dirs: set[Path] | None = None) -> tuple[int, int]:
    """Append complete lines in one ``write`` call and one ``fsync``.

    Returns the byte offset of the first appended line and the new file size.
    If the file does not end in a newline (a hand edit), a newline goes first so
    the new lines never glue onto the user's last line. A file this call creates
    has its folder synced too (into ``dirs`` if given), or the new name could be
    lost with its lines; appending to an existing file changes no folder entry.
    """
    confined(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    created = not os.path.exists(path)
    payload = "".join(line + "\n" for line in lines).encode("utf-8")
    # 0666 so the umask decides, as for every other file the tool creates.
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        size = os.fstat(fd).st_size
        if size and not _ends_with_newline(path, size):
            payload = b"\n" + payload
            size += 1
        written = 0
        while written < len(payload):
            written += os.write(fd, payload[written:])
        os.fsync(fd)
        end = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if created and dirs is None:
        _fsync_dir(path.parent)
    elif created:
        dirs.add(path.parent)
    return size, end


def _ends_with_newline(path: Path, size: int) -> bool:
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) == b"\n"


def fsync_dirs(dirs: set[Path]) -> None:
    """One fsync per folder, however many files were renamed into it."""
    for directory in sorted(dirs):
        _fsync_dir(directory)


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_tail_lines(
    path: Path, count: int, block: int = 64 * 1024, max_line: int | None = None
) -> list[tuple[int, bytes | None]]:
    """The last ``count`` physical lines, read backwards from the end.

    Returns ``(byte offset, line)`` pairs, oldest first, without line breaks;
    a final line without a newline is included, the empty piece after a final
    newline is not. Reads only as much of the file as it needs, each byte once.
    A line longer than ``max_line`` bytes comes back as ``(offset, None)``: it is
    walked through to find where it starts, but never held in memory.
    """
    found: list[tuple[int, bytes | None]] = []  # newest first
    parts: list[bytes] = []  # the line being read, its last part first
    length = 0
    with open(path, "rb") as handle:
        end = position = handle.seek(0, os.SEEK_END)

        def take(piece: bytes) -> None:
            nonlocal length
            length += len(piece)
            if max_line is None or length <= max_line:
                parts.append(piece)
            else:
                parts.clear()

        def finish(offset: int) -> None:
            nonlocal length
            if offset != end or length:  # not the empty piece after a final newline
                too_long = max_line is not None and length > max_line
                found.append((offset, None if too_long else b"".join(reversed(parts))))
            parts.clear()
            length = 0

        while position > 0 and len(found) < count:
            step = min(block, position)
            position -= step
            handle.seek(position)
            data = handle.read(step)
            stop = len(data)
            while len(found) < count:
                cut = data.rfind(b"\n", 0, stop)
                if cut == -1:
                    take(data[:stop])
                    break
                take(data[cut + 1 : stop])
                finish(position + cut + 1)
                stop = cut
        if position == 0 and len(found) < count and end:
            finish(0)
    found.reverse()
    return found


def line_pieces(handle, size: int = 4 << 20):
    """The rest of an open binary file in pieces of about ``size`` bytes that end with a newline
    (the last: whatever follows the last newline); a line longer than ``size`` is one piece."""
    rest = b""
    while True:
        block = handle.read(size)
        if not block:
            if rest:
                yield rest
            return
        block = rest + block
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            rest = block
            continue
        rest = block[cut:]
        yield block[:cut]


def iter_line_blocks_backwards(path: Path, block: int = 1 << 20):
    """Yield ``(offset, bytes)`` chunks of whole lines, from the end of the file to its start."""
    with open(path, "rb") as handle:
        position = handle.seek(0, os.SEEK_END)
        carry = b""
        while position > 0:
            step = min(block, position)
            position -= step
            handle.seek(position)
            data = handle.read(step) + carry
            if position == 0:
                if data:
                    yield 0, data
                return
            cut = data.find(b"\n")
            if cut == -1:
                carry = data  # one line longer than a block: keep reading
                continue
            carry = data[: cut + 1]
            if cut + 1 < len(data):
                yield position + cut + 1, data[cut + 1 :]


class LockBusy(RuntimeError):
    pass


_TEMP_OWNER = re.compile(r"\.(\d+)-[0-9a-f]{8}\.tmp$")
#: A temp file without an owner (an older version wrote those) is stale once this old.
_ORPHAN_AGE = 600.0


def is_stale_temp(path: Path) -> bool:
    """A temp file a writer left behind when it died, never one another process is still writing.

    Not every write takes the workspace lock (the prompt a backend was sent is
    recorded while another process may hold it), so "the lock is held" does not
    mean "no write is in flight".
    """
    owner = _TEMP_OWNER.search(path.name)
    if owner is None:
        try:
            return time.time() - path.stat().st_mtime > _ORPHAN_AGE
        except FileNotFoundError:
            return False
    pid = int(owner.group(1))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, someone else's
    return False


class WorkspaceLock:
    """An exclusive advisory lock on ``.gamemaster.lock`` that keeps writers apart."""

    def __init__(self, path: Path, timeout: float = 30.0):
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None
        self._depth = 0
        # Threads of one process (characters asked in parallel) take turns here;
        # the file lock keeps other processes out.
        self._threads = threading.RLock()

    def __enter__(self) -> WorkspaceLock:
        self._threads.acquire()
        if self._depth:
            self._depth += 1
            return self
        try:
            self._acquire_file()
        except BaseException:
            self._threads.release()
            raise
        return self

    def _acquire_file(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                _lock(fd)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise LockBusy(
                        f"{self.path}: another gamemaster process is writing; "
                        f"waited {self.timeout:.0f}s"
                    ) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        self._depth = 1

    def __exit__(self, *exc) -> None:
        try:
            self._depth -= 1
            if self._depth:
                return
            fd, self._fd = self._fd, None
            try:
                _unlock(fd)
            finally:
                os.close(fd)
        finally:
            self._threads.release()


if os.name == "posix":
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

else:  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
