"""A real memoryd on a fake inferd (a peer on a real port) whose agent holds one ingested conversation, turns only."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, running_memoryd


@contextmanager
def memoryd_with_transcript(
    home: Path, agent: str, turns: Sequence[tuple[str, str]], *, index: bool
) -> Iterator[MemorydHandle]:
    """Ingest `turns` (user, assistant) as conversation c1 without extraction; `index` also builds the vector index."""
    with (
        running_fake_inferd() as (server, _state),
        running_memoryd(home, inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
    ):
        handle.memory.Ingest(
            mpb.IngestRequest(
                agent_id=agent,
                conversation_id="c1",
                turns=[mpb.Turn(user=u, assistant=a) for u, a in turns],
                skip_extraction=True,
            ),
            timeout=30,
        )
        if index:
            handle.app.indexer.run_once()
        yield handle
