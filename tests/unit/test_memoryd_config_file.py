"""memoryd.config's file: clamping, defaults, hand edits, and the reasons validation gives."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.config import ConfigStore, from_json_object, validate_changes


def test_config_file_clamping_and_defaults(tmp_path: Path) -> None:
    config = from_json_object(
        {
            "summaryDebounceSeconds": 1,
            "consolidationIntervalHours": 500.0,
            "episodeRetentionDays": -1,
            "embeddingBackend": 3,
            "coreModel": "x",
        }
    )
    assert (config.summary_debounce_seconds, config.consolidation_interval_hours) == (10, 168)
    assert (
        config.episode_retention_days == 0 and config.embedding_backend == "mlx" and config.core_model == "x"
    )
    store = ConfigStore(tmp_path / "memory.json", recheck_s=0)
    assert store.get().memory_budget_tokens == 800
    (tmp_path / "memory.json").write_text("{not json")
    assert store.get().enabled is True  # unreadable file = defaults
    (tmp_path / "memory.json").write_text(json.dumps({"memoryBudgetTokens": 300}))
    assert store.get().memory_budget_tokens == 300  # hand edits are picked up


def test_config_validation_reasons() -> None:
    problems = {
        p.attr: p.reason
        for p in validate_changes(
            {
                "memory_budget_tokens": 99,
                "enabled": "yes",
                "extraction_mode": "sometimes",
                "salience_floor": 0.5,
                "nonsense": 1,
            }
        )
    }
    assert problems == {
        "memory_budget_tokens": "CONFIG_OUT_OF_RANGE",
        "enabled": "INVALID_TYPE",
        "extraction_mode": "INVALID_ENUM",
        "nonsense": "UNKNOWN_FIELD",
    }


def test_the_database_url_and_schema_come_from_the_environment_or_flags() -> None:
    from memoryd.config import parse_settings

    default = parse_settings([], env={})
    assert (default.database_url, default.database_schema, default.is_postgres) == ("", "public", False)
    env = {
        "OSAURUS_MEMORYD_DATABASE_URL": " postgresql://m@db/memory ",
        "OSAURUS_MEMORYD_DATABASE_SCHEMA": "t1",
    }
    from_env = parse_settings([], env=env)
    assert (from_env.database_url, from_env.database_schema, from_env.is_postgres) == (
        "postgresql://m@db/memory",
        "t1",
        True,
    )
    flags = parse_settings(["--database-url", "postgres://x/y", "--database-schema", "t2"], env=env)
    assert (flags.database_url, flags.database_schema) == ("postgres://x/y", "t2")
