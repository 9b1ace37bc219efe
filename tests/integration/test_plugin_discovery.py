"""Discovery and ReloadPlugins: folder plugins, entry-point plugins, grants changes, code changes, removals."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from tests.fakes.fake_plugin_peers import FakePeers, start_fake_peers
from tests.support.plugin_host_stack import EXAMPLES, TEST_PLUGINS, HostStack, start_host, write_grants


@pytest.fixture(scope="module")
def peers() -> Iterator[FakePeers]:
    started = start_fake_peers()
    yield started
    started.stop()


def _reload(stack: HostStack) -> dict[str, ppb.PluginInfo]:
    reply = stack.stub.ReloadPlugins(ppb.ReloadPluginsRequest(), timeout=60)
    return {p.name: p for p in reply.plugins}


def _pid(stack: HostStack, name: str) -> int | None:
    process = stack.app.host.process(name)
    return process.pid if process is not None else None


def _fake_install(site: Path) -> None:
    """What `pip install examples/daily_brief` leaves in site-packages, built offline."""
    site.mkdir(parents=True)
    shutil.copy(EXAMPLES / "daily_brief" / "daily_brief.py", site / "daily_brief.py")
    dist_info = site / "osaurus_daily_brief-0.1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: osaurus-daily-brief\nVersion: 0.1.0\n")
    (dist_info / "entry_points.txt").write_text("[osaurus.plugins]\ndaily-brief = daily_brief:DailyBrief\n")


def test_entry_point_plugin_is_discovered_probed_and_run(peers: FakePeers, tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    _fake_install(site)
    peers.memory.recall_agents.add("planner")
    episode = mpb.SearchHit(
        item=mpb.ItemRef(kind=mpb.ITEM_KIND_EPISODE, id="3"), text="Agreed to ship v2 on Monday"
    )
    episode.occur_time.FromSeconds(1_780_000_000)
    peers.memory.hits[("planner", mpb.SCOPE_EPISODES)] = [episode]
    grants = {"daily-brief": {"permissions": ["inference", "memory_search"], "agents": ["planner"]}}
    stack = start_host(
        tmp_path / "home", peers, [], grants, extra_args=["--plugin-site", str(site)], entry_points=True
    )
    try:
        info = stack.plugin("daily-brief")
        assert (info.state, info.version, info.source) == (
            ppb.PLUGIN_STATE_RUNNING,
            "0.1.0",
            "entry_point:daily-brief",
        )
        assert [c.name for c in info.commands] == ["brief"]

        result = stack.invoke("daily-brief", "brief", {"focus": "the release"}, agent="planner")

        assert result["episodes_used"] == 1 and result["memory_search"] == "ok"
        assert "[2026-05-28] Agreed to ship v2 on Monday" in result["brief"]
        assert result["brief"].startswith("ECHO: ")
    finally:
        stack.close()


def test_reload_starts_restarts_and_stops_what_changed(peers: FakePeers, tmp_path: Path) -> None:
    home = tmp_path / "home"
    plugins = home / "plugins"
    plugins.mkdir(parents=True)
    shutil.copytree(TEST_PLUGINS / "echo", plugins / "echo")
    grants: dict[str, dict[str, object]] = {"echo": {"permissions": ["inference"], "agents": ["*"]}}
    stack = start_host(home, peers, [], grants)
    try:
        first = _pid(stack, "echo")
        assert first is not None

        assert _reload(stack)["echo"].state == ppb.PLUGIN_STATE_RUNNING
        assert _pid(stack, "echo") == first, "an unchanged plugin keeps running"

        shutil.copytree(TEST_PLUGINS / "crashy", plugins / "crashy")
        grants["crashy"] = {"agents": ["*"]}
        write_grants(home, grants)
        listed = _reload(stack)
        assert listed["crashy"].state == ppb.PLUGIN_STATE_RUNNING
        assert _pid(stack, "echo") == first

        module = plugins / "echo" / "echo_plugin.py"
        module.write_text(module.read_text() + "\n# changed\n")
        assert _reload(stack)["echo"].state == ppb.PLUGIN_STATE_RUNNING
        assert _pid(stack, "echo") not in (None, first), "changed code restarts the plugin"

        crashy_pid = _pid(stack, "crashy")
        shutil.rmtree(plugins / "crashy")
        del grants["echo"]
        write_grants(home, grants)
        listed = _reload(stack)
        assert "crashy" not in listed
        assert (listed["echo"].state, listed["echo"].last_error) == (
            ppb.PLUGIN_STATE_STOPPED, "not granted in config/plugins.json"
        )  # fmt: skip
        assert crashy_pid is not None and not Path(f"/proc/{crashy_pid}").exists()

        (plugins / "bad").mkdir()
        (plugins / "bad" / "plugin.json").write_text(json.dumps({"name": "Bad Name", "entry_point": "x:y"}))
        (home / "config" / "plugins.json").write_text("{not json")
        listed = _reload(stack)
        assert listed["bad"].state == ppb.PLUGIN_STATE_FAILED
        assert listed["bad"].last_error.startswith("bad manifest: name 'Bad Name'")
        assert listed["echo"].last_error.startswith("config/plugins.json is invalid")
    finally:
        stack.close()
