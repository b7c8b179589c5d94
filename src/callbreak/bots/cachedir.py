"""Where numba keeps the compiled kernel: a directory this user can write to.

numba caches a ``cache=True`` function in the ``__pycache__`` next to its
source, and silently elsewhere when that is not writable (a non-editable
install into a system ``site-packages``).  `choose_cache_dir` makes that
choice explicit, `configure_cache` applies it before the kernel is compiled
(`callbreak.bots.kernel` calls it at import), and the warm-up says on the
console which directory is used.

Order: ``CALLBREAK_NUMBA_CACHE_DIR`` (set by the caller, e.g. a test that
needs an empty cache), else ``NUMBA_CACHE_DIR`` (numba's own setting), else the
source tree's ``__pycache__`` when writable, else the user cache directory
(``$XDG_CACHE_HOME/callbreak/numba``, default ``~/.cache/callbreak/numba``) when
writable, else ``callbreak-numba-UID`` in the temporary directory.

The kernel is a package of modules whose compiled functions call each other,
and numba checks only a function's own source file before loading it from the
cache: a change to a callee in another module would leave its callers stale.
`configure_cache` therefore puts the cache in a subdirectory named by a hash of
all the kernel's sources (`kernel_fingerprint`), so any change compiles afresh.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> choose_cache_dir(d, {"HOME": "/home/asha"}).path == os.path.join(d, "__pycache__")
True
>>> choose_cache_dir(d, {"CALLBREAK_NUMBA_CACHE_DIR": "/tmp/x"}).why
'CALLBREAK_NUMBA_CACHE_DIR'
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CacheChoice",
    "choose_cache_dir",
    "configure_cache",
    "kernel_fingerprint",
    "user_cache_dir",
    "writable",
]

ENV = "CALLBREAK_NUMBA_CACHE_DIR"
SOURCE_DIR = str(Path(__file__).resolve().parent)
KERNEL_DIR = os.path.join(SOURCE_DIR, "kernel")


@dataclass(frozen=True)
class CacheChoice:
    """The directory numba caches the kernel in, why, and whether numba must be told
    (``explicit``: False when it is numba's own default, the source ``__pycache__``).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     c = choose_cache_dir(env={"CALLBREAK_NUMBA_CACHE_DIR": d})
    ...     print(c.path == d, c.why, c.explicit)
    True CALLBREAK_NUMBA_CACHE_DIR True
    """

    path: str
    why: str
    explicit: bool


def writable(directory: str) -> bool:
    """Whether ``directory`` exists (or can be made) and a file can be written in it
    (numba's own test: a temporary file).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     print(writable(d), writable(d + "/new/sub"), writable("/proc/no-such"))
    True True False
    """
    try:
        os.makedirs(directory, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def user_cache_dir(env: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/callbreak/numba``, default ``~/.cache/callbreak/numba``.

    >>> user_cache_dir({"XDG_CACHE_HOME": "/c", "HOME": "/h"})
    '/c/callbreak/numba'
    >>> user_cache_dir({"HOME": "/h"})
    '/h/.cache/callbreak/numba'
    """
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return os.path.join(base, "callbreak", "numba")


def choose_cache_dir(source_dir: str = SOURCE_DIR, env: Mapping[str, str] | None = None) -> CacheChoice:
    """The cache directory for the kernel whose source is in ``source_dir``.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     c = choose_cache_dir(source_dir=d, env={})
    ...     print(c.path == d + "/__pycache__", c.why, c.explicit)
    ...     print(choose_cache_dir(source_dir=d, env={"NUMBA_CACHE_DIR": d + "/numba"}).why)
    True next to the source False
    NUMBA_CACHE_DIR
    """
    env = os.environ if env is None else env
    skipped: list[str] = []
    for name in (ENV, "NUMBA_CACHE_DIR"):
        if env.get(name):
            if writable(env[name]):
                return CacheChoice(env[name], name, True)
            skipped.append(f"{name}={env[name]}")
    in_tree = os.path.join(source_dir, "__pycache__")
    if not skipped and writable(in_tree):
        return CacheChoice(in_tree, "next to the source", False)
    skipped.append(in_tree)
    user = user_cache_dir(env)
    if writable(user):
        return CacheChoice(user, f"not writable: {', '.join(skipped)}", True)
    skipped.append(user)
    # a read-only home too (a locked-down service account): a directory of this user's in /tmp
    scratch = os.path.join(tempfile.gettempdir(), f"callbreak-numba-{os.getuid()}")
    return CacheChoice(scratch, f"not writable: {', '.join(skipped)}", True)


def kernel_fingerprint(directory: str = KERNEL_DIR) -> str:
    """A short hash of the kernel's sources (every ``*.py`` in ``directory``).

    >>> len(kernel_fingerprint())
    12
    """
    h = hashlib.sha256()
    for p in sorted(Path(directory).glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:12]


_applied: CacheChoice | None = None


def configure_cache() -> CacheChoice:
    """Choose the cache directory (once per process) and tell numba about it.

    Must run before the kernel's functions are decorated: numba picks a cache
    location when ``njit(cache=True)`` wraps a function.  The path is the chosen
    directory's ``kernel-FINGERPRINT`` subdirectory (`kernel_fingerprint`), always
    told to numba; child processes inherit it through ``NUMBA_CACHE_DIR``.

    >>> import os
    >>> c = configure_cache()
    >>> c is configure_cache(), os.path.basename(c.path) == f"kernel-{kernel_fingerprint()}"
    (True, True)
    >>> os.environ["NUMBA_CACHE_DIR"] == c.path, c.explicit
    (True, True)
    """
    global _applied
    if _applied is not None:
        return _applied
    chosen = choose_cache_dir()
    leaf = f"kernel-{kernel_fingerprint()}"
    path = chosen.path if os.path.basename(chosen.path) == leaf else os.path.join(chosen.path, leaf)
    choice = CacheChoice(path, chosen.why, True)
    os.environ["NUMBA_CACHE_DIR"] = path
    numba = sys.modules.get("numba")
    if numba is not None:  # already imported: its config has read the environment
        numba.config.CACHE_DIR = path
    _applied = choice
    return choice
