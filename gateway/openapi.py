"""The gateway's OpenAPI document: `python -m gateway.openapi [--check]` writes (or checks) docs/openapi.json."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gateway.app import create_app
from gateway.config import Settings

COMMITTED = Path(__file__).resolve().parent.parent / "docs" / "openapi.json"


def document() -> dict[str, Any]:
    """The document /openapi.json serves (the API routes; the browser view's pages are left out)."""
    return create_app(Settings()).openapi()


def render(doc: dict[str, Any]) -> str:
    """Stable text of the document, as committed."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write docs/openapi.json, or with --check exit 1 when it differs from what the code serves."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="fail if the committed document is stale")
    parser.add_argument("--out", type=Path, default=COMMITTED)
    args = parser.parse_args(argv)
    text = render(document())
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale; run: python -m gateway.openapi", file=sys.stderr)
            return 1
        return 0
    args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
