"""Export and Import orchestration: stream the JSON Lines export; validate, write, index and re-embed an import."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

import numpy as np

from memoryd.console.core import Console, embedding_model
from memoryd.console.export import export_lines
from memoryd.console.import_apply import Applied, ImportApplier
from memoryd.console.import_parse import ImportReader, VectorRecord
from memoryd.console.queries import ConsoleStore
from memoryd.console.records import ImportResult
from memoryd.vectors.codec import from_blob

_log = logging.getLogger("memoryd.console")

#: Rows embedded per inferd call while importing.
EMBED_BATCH = 64


def export(console: Console, agent_id: str | None) -> Iterator[str]:
    """All memory (agent_id None, identity included) or one agent's, as JSON Lines records."""
    deps = console.deps
    return export_lines(
        deps.store.transfer,
        agent_id,
        schema_version=deps.store.schema_version,
        embedding_model=embedding_model(deps.config),
    )


def _store_vectors(console: Console, vectors: list[VectorRecord]) -> int:
    """Put carried-over vectors into the embeddings table and the agents' faiss indexes; how many were stored."""
    groups: dict[tuple[str, str, str, int], list[VectorRecord]] = {}
    for vector in vectors:
        groups.setdefault((vector.agent_id, vector.kind, vector.model, vector.dimension), []).append(vector)
    stored = 0
    deps = console.deps
    for (agent, kind, model, dimension), items in groups.items():
        count = ConsoleStore(deps.store.console_rows).put_vectors(
            kind, agent, model, dimension, [(v.row_id, v.blob, v.created_at_ms) for v in items]
        )
        stored += count
        matrix = np.vstack([from_blob(v.blob, dimension) for v in items])
        deps.vectors.add(agent, kind, model, [v.row_id for v in items], matrix)
    return stored


def _rescan(indexer: object) -> None:
    """Make the background indexer look at every row again: imported rows keep ids below its scan marks."""
    rescan = getattr(indexer, "rescan", None)
    if callable(rescan):
        rescan()
    elif hasattr(indexer, "_marks_model"):
        # Compatibility until memoryd.vectors.indexer.Indexer grows a public rescan(): a model mismatch resets its marks.
        indexer._marks_model = None


def _reembed(console: Console, applied: Applied) -> int:
    """Embed imported rows that came without a vector in the current model; the rest is left to the indexer."""
    indexer = console.deps.indexer
    if indexer is None or not applied.to_embed:
        return 0
    done = 0
    for (agent, kind), ids in applied.to_embed.items():
        for start in range(0, len(ids), EMBED_BATCH):
            embedded = indexer.index_rows(agent, kind, ids[start : start + EMBED_BATCH])
            if embedded is None:  # inferd unavailable: the background indexer catches up later
                indexer.notify(agent)
                return done
            done += embedded
    return done


def import_lines(console: Console, lines: Iterable[str]) -> ImportResult:
    """Validate every line first (nothing is written for a bad file), then write, index and re-embed."""
    deps = console.deps
    reader = ImportReader(deps.store.transfer)
    for line in lines:
        reader.feed(line)
    plan = reader.finish()
    applied = ImportApplier(deps.store.transfer, embedding_model(deps.config)).apply(plan)
    if applied.vectors:
        applied.imported["embedding"] += _store_vectors(console, applied.vectors)
    reembedded = _reembed(console, applied)
    if applied.new_rows and deps.indexer is not None:
        _rescan(deps.indexer)
    agents = {agent for agent, _kind in applied.new_rows} | {v.agent_id for v in applied.vectors}
    for agent in sorted(agents):
        console.changed(agent)
    if plan.identity is not None:
        console.changed(None)
    _log.info(
        "import: %s, %d skipped, %d re-embedded",
        ", ".join(f"{k}={v}" for k, v in sorted(applied.imported.items())) or "nothing new",
        applied.skipped,
        reembedded,
    )
    return ImportResult(imported=dict(applied.imported), skipped=applied.skipped, reembedded=reembedded)


__all__ = ["EMBED_BATCH", "export", "import_lines"]
