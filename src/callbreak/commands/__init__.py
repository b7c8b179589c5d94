"""Subcommands of the ``callbreak`` command, the top layer: each may import anything below."""
