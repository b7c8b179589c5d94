"""The command line's value types that argparse does not have: each refuses a bad value
before anything runs, with a message that says what is needed (argparse prints it and
exits with status 2)."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["bot_url", "history_folder", "output_file", "port_option", "positive_float", "positive_int", "seed_option"]


def _whole(text: str, lo: int, hi: int | None, needed: str) -> int:
    """``text`` as a whole number from ``lo`` to ``hi`` (None: no top), else the error saying what is ``needed``."""
    try:
        value = int(text)
    except ValueError:
        value = lo - 1
    if value < lo or (hi is not None and value > hi):
        raise argparse.ArgumentTypeError(f"{needed} is needed, not {text!r}")
    return value


def seed_option(text: str) -> int:
    """``--seed`` and ``--process``: a whole number from 0.

    >>> seed_option("42")
    42
    >>> seed_option("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a whole number from 0 is needed, not '-1'
    """
    return _whole(text, 0, None, "a whole number from 0")


def port_option(text: str) -> int:
    """``--port``: a TCP port, 1 to 65535, or 0 for any free one.

    >>> port_option("8000"), port_option("0")
    (8000, 0)
    >>> port_option("99999")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a port from 0 (any free one) to 65535 is needed, not '99999'
    """
    return _whole(text, 0, 65535, "a port from 0 (any free one) to 65535")


def positive_int(text: str) -> int:
    """A count of at least 1 (matches, positions, updates).

    >>> positive_int("3")
    3
    >>> positive_int("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a whole number from 1 is needed, not '0'
    """
    return _whole(text, 1, None, "a whole number from 1")


def positive_float(text: str) -> float:
    """A positive number of seconds.

    >>> positive_float("1.5")
    1.5
    >>> positive_float("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a number of seconds above 0 is needed, not '0'
    """
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"a number of seconds above 0 is needed, not {text!r}")
    return value


def output_file(text: str) -> str:
    """A file to write when the run is over, checked before it starts: its folder must
    exist, and the path must not be a folder.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     output_file(d + "/out.json") == d + "/out.json"
    True
    >>> output_file("/no/such/folder/out.json")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: cannot write /no/such/folder/out.json: no folder /no/such/folder
    """
    path = Path(text)
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: no folder {path.parent}")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text}: it is a folder")
    return text


def history_folder(text: str) -> str:
    """A folder to write files into while the run goes on, checked before it starts: a folder,
    or a new one whose parent exists (the run makes it); an existing file is refused.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     history_folder(d + "/games") == d + "/games", Path(d + "/games").exists()
    (True, False)
    >>> history_folder("/no/such/folder/games")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: cannot write into /no/such/folder/games: no folder /no/such/folder
    """
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write into {text}: it is a file")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write into {text}: no folder {path.parent}")
    return text


def bot_url(text: str) -> str:
    """The base URL of a bot over HTTP: ``http://`` or ``https://`` and a host.

    >>> bot_url("http://127.0.0.1:7000")
    'http://127.0.0.1:7000'
    >>> bot_url("127.0.0.1:7000")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a bot's URL starts with http:// or https://, as in http://127.0.0.1:7000
    """
    scheme, _, rest = text.partition("://")
    if scheme not in ("http", "https") or not rest.strip("/"):
        raise argparse.ArgumentTypeError(
            f"a bot's URL starts with http:// or https://, as in http://{rest or text}"
        )
    return text
