"""Record the gate's probes with the current features (gate-v12): the live read path's features for the questions of
tests/integration/test_gate_sparse_agent.py, tests/integration/test_gate_answer_section.py and (gate-v8)
tests/integration/test_gate_personal_request.py, with the agents those tests seed (real memoryd, fake inferd, as the
tests run them).

A committed probe file never moves: a new feature means new files (this writes bench/gate_sparse_probe_v12.json,
bench/gate_answer_probe_v12.json and bench/gate_personal_probe_v12.json, with gate-v12's duty features; the v11
files are what gate-v11 was chosen with, the v10 files gate-v10's, the v9 files gate-v9's, the v8 files gate-v8's,
the v7 files gate-v7's; the tests check the new ones against the live read path, bench/train_gate.py only chooses a
candidate whose first choice is the expected section for every row).

Run: `python -m bench.gate_probe_record`.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.fakes.fake_inferd import running_fake_inferd
from tests.integration import test_gate_answer_section as answer_test
from tests.integration import test_gate_personal_request as personal_test
from tests.integration import test_gate_sparse_agent as sparse_test
from tests.support.memoryd_server import running_memoryd

BENCH = Path(__file__).resolve().parent
SPARSE_PROBE = BENCH / "gate_sparse_probe_v12.json"
ANSWER_PROBE = BENCH / "gate_answer_probe_v12.json"
PERSONAL_PROBE = BENCH / "gate_personal_probe_v12.json"


def _features(reply: Any) -> dict[str, float]:
    return {f.name: f.value for f in reply.decision.features}


def record() -> None:
    """Seed each test's agents in a real memoryd and write the two probe files."""
    with tempfile.TemporaryDirectory(prefix="gate-probe-") as tmp:
        home = Path(tmp)
        with (
            running_fake_inferd() as (server, _state),
            running_memoryd(home / "sparse", inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
        ):
            for agent, facts in sparse_test.AGENTS.items():
                sparse_test.seed(handle, agent, facts)
            rows = [
                {
                    "agent": agent,
                    "query": sparse_test.QUESTION,
                    "expected": "pinned",
                    "features": _features(sparse_test._assemble(handle, agent, sparse_test.QUESTION)),
                }
                for agent in sparse_test.AGENTS
            ]
        SPARSE_PROBE.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
        fixture = answer_test.memoryd.__wrapped__  # type: ignore[attr-defined]
        for handle in fixture(home / "answer"):
            rows = [
                {
                    "agent": answer_test.AGENT,
                    "query": query,
                    "expected": want,
                    "features": _features(answer_test._assemble(handle, query)),
                }
                for query, want in answer_test.PROBE_QUERIES
            ]
        ANSWER_PROBE.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
        with (
            running_fake_inferd() as (server, _state),
            running_memoryd(home / "personal", inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
        ):
            personal_test.seed(handle)
            rows = [
                {
                    "agent": personal_test.AGENT,
                    "query": query,
                    "expected": want,
                    "features": _features(personal_test.assemble(handle, query)),
                }
                for query, want in personal_test.PROBE_QUERIES
            ]
        PERSONAL_PROBE.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    record()
