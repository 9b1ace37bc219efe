"""A Node.js client (@grpc/grpc-js + @grpc/proto-loader) loads our .proto files and round-trips through memoryd."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.support.procs import REPO, ServiceProcess

NODE_DIR = REPO / "tests" / "node"


@pytest.mark.e2e
def test_node_client_round_trip(stack: dict[str, ServiceProcess]) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the second-language client test needs Node.js")
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").exists():
        pytest.fail("tests/node/node_modules is missing: `make install` runs npm there")
    result = subprocess.run(
        [node, str(NODE_DIR / "roundtrip.js"), stack["memoryd"].target, "node-agent"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    assert int(reply["signal_id"]) > 0
    assert any("linden honey" in hit["text"] for hit in reply["hits"])
    assert reply["bad_input"]["code"] == 3  # INVALID_ARGUMENT
