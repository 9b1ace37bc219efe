"""Root test configuration: make the generated protos importable even without an editable install."""

from __future__ import annotations

import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
for _path in (_REPO, _REPO / "protos" / "gen"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
