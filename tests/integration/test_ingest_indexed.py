"""What Ingest acknowledges is searchable by meaning at once, and new vectors drop an agent's cached blocks.

Found by hand (session 12, `make run`): "suggest a dinner recipe" asked right after Ingest of "I am vegetarian …" got
an empty block (pinned chosen, nothing found: the new facts had no vectors yet and share no word with the request),
and the same request within the 10 s cache got the cached empty answer after the indexer had run. Real memoryd on a
real SQLite file, a fake inferd on a real port, no background indexer (so nothing indexes behind the test's back).
"""

from __future__ import annotations

from pathlib import Path

import grpc

from memoryd.app import start
from memoryd.config import ServiceSettings
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.fakes.fake_writer_inferd import EMBED_MODEL, MODEL, digest, start_fake_inferd
from tests.support.transcript_memoryd import memoryd_with_transcript
from tests.support.writer_memoryd import write_config

AGENT = "ingest-indexed"
TURNS = [
    ("I keep a sourdough starter called Bubbles on the kitchen shelf.", "Lovely name for a starter."),
    ("We fly to Reykjavik on the ninth for the aurora tour.", "Exciting, pack warm layers."),
]


def test_what_a_distilling_ingest_stored_has_its_vectors_when_it_answers(tmp_path: Path) -> None:
    server, inferd = start_fake_inferd()
    write_config(tmp_path, coreModel=MODEL, embeddingModel=EMBED_MODEL, summaryDebounceSeconds=3600)
    settings = ServiceSettings(
        listen="127.0.0.1:0", home=tmp_path, inferd_addr=server.target, background_indexing=False
    )
    running, app = start(settings)
    try:
        with grpc.insecure_channel(running.target) as channel:
            memory = mpb_grpc.MemoryServiceStub(channel)
            inferd.set_default(
                digest("The user keeps a starter.", pinned=[("The user keeps a sourdough starter.", 0.8)])
            )
            reply = memory.Ingest(
                mpb.IngestRequest(
                    agent_id=AGENT,
                    conversation_id="c1",
                    turns=[mpb.Turn(user=u, assistant=a) for u, a in TURNS],
                ),
                timeout=30,
            )
            assert reply.distillation == "distilled"
            # Ingest indexed what it stored (turns, episode, fact) itself: nothing is left for the indexer.
            assert app.indexer.run_once() == 0
            # A bulk load (no distillation) is left to the background indexer.
            memory.Ingest(
                mpb.IngestRequest(
                    agent_id=AGENT,
                    conversation_id="c2",
                    turns=[mpb.Turn(user="Bulk history line.", assistant="")],
                    skip_extraction=True,
                ),
                timeout=30,
            )
            assert app.indexer.run_once() == 1
    finally:
        running.stop(grace_s=2)
        app.close()
        server.stop(grace_s=1)


def test_new_vectors_drop_the_agents_cached_blocks(tmp_path: Path) -> None:
    with memoryd_with_transcript(tmp_path, AGENT, TURNS, index=True) as handle:
        request = mpb.AssembleContextRequest(agent_id=AGENT, query="what did I say about the aurora tour?")
        first = handle.memory.AssembleContext(request, timeout=10)
        assert not first.cached
        assert handle.memory.AssembleContext(request, timeout=10).cached
        # A row of this agent gets its vector (what the indexer does after a write): the cached blocks go.
        assert handle.app.indexer.index_rows(AGENT, "transcript", [1]) == 1
        after = handle.memory.AssembleContext(request, timeout=10)
        assert not after.cached
        assert after.block == first.block
        # Another agent's new vectors leave this agent's cache alone.
        handle.memory.Ingest(
            mpb.IngestRequest(
                agent_id="someone-else",
                conversation_id="c1",
                turns=[mpb.Turn(user="The aurora tour leaves at nine.", assistant="Noted.")],
                skip_extraction=True,
            ),
            timeout=30,
        )
        assert handle.memory.AssembleContext(request, timeout=10).cached
