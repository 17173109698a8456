"""One background sender per database, whatever the number of processes serving it."""
from __future__ import annotations

import fcntl
import hashlib

from django.conf import settings


def hold(name: str):
    """The lock file ``var/<name>-<database>.lock``, taken without waiting: the open file while
    this process holds it (keep it: closing it releases the lock), None when another process
    does. The kernel releases it when the holder dies, even by ``kill -9``, and another takes
    over."""
    db = settings.DATABASES["default"]
    which = hashlib.sha256(f"{db.get('HOST')}:{db.get('PORT')}:{db.get('NAME')}".encode()).hexdigest()[:16]
    path = settings.BASE_DIR / "var" / f"{name}-{which}.lock"
    path.parent.mkdir(exist_ok=True)
    f = open(path, "w")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        return None
    return f


__all__ = ["hold"]
