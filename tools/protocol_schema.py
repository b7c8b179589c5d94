"""Write the protocol's JSON Schema and error-code table from `callbreak.server.protocol`.

    PYTHONPATH=src python3 tools/protocol_schema.py          # writes both
    PYTHONPATH=src python3 tools/protocol_schema.py --check  # exit 1 when either is stale

``docs/protocol.schema.json`` is `api.schema()` (the WebSocket messages and the HTTP API's bodies); ``docs/protocol.md`` carries
`protocol.error_table()` between the markers ``<!-- error codes: generated -->`` and
``<!-- end of error codes -->``.  ``tests/server/test_protocol.py`` holds both to the types.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from callbreak.server.api import schema
from callbreak.server.protocol import error_table

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "protocol.schema.json"
DOC = ROOT / "docs" / "protocol.md"
BEGIN, END = "<!-- error codes: generated -->\n", "<!-- end of error codes -->"


def schema_text() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def doc_text(doc: str) -> str:
    """``doc`` with the generated error-code table between its markers."""
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + error_table() + END + tail


def main(argv: list[str]) -> int:
    want = {SCHEMA: schema_text(), DOC: doc_text(DOC.read_text(encoding="utf-8"))}
    stale = [p for p, text in want.items() if not p.exists() or p.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for p in stale:
            print(f"{p.relative_to(ROOT)} is stale: run tools/protocol_schema.py", file=sys.stderr)
        return 1 if stale else 0
    for p in stale:
        p.write_text(want[p], encoding="utf-8")
        print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
