"""An exclusive lock on the file that is at a path, across processes."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def lock_current(path: Path, flags: int, mode: int = 0o644) -> int:
    """Open `path` with `flags` and hold an exclusive lock on it; the open descriptor is
    returned for the caller to close (which releases the lock; so does the kernel when the
    process dies).

    The file locked is the one at `path` once the lock is held: one that another process
    renamed a new file over, or removed, while this one waited is let go and the file there
    now is locked instead (the inode check), so two holders never lock two different files.
    Errors of opening (a missing file, a link refused by O_NOFOLLOW) reach the caller."""
    while True:
        fd = os.open(path, flags, mode)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            return fd
        os.close(fd)
