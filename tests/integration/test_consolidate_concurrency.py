"""A pass running during concurrent writes (BufferTurn over gRPC, writer commits, salience bumps) loses nothing:
every concurrently written row survives, bumps are not undone by decay, and the store stays consistent."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from memoryd.consolidate.report import TRIGGER_MANUAL
from memoryd.storage.distillation import SqliteWriterStore
from memoryd.write.store_protocol import DistillationWrite, FactBump, LogEntry, NewEpisode, NewFact
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.errors import AbortedError
from tests.support.consolidate_rows import (
    DAY_MS,
    consistency_problems,
    insert_episode,
    insert_fact,
    insert_turn,
    mark_learned,
)
from tests.support.consolidate_server import running_consolidating_memoryd

CLIENTS = 4
TURNS_PER_CLIENT = 60
DISTILLATIONS = 40


def test_a_pass_during_concurrent_writes_loses_nothing(tmp_path: Path) -> None:
    with running_consolidating_memoryd(tmp_path) as memoryd:
        store = memoryd.app.store
        now = int(time.time() * 1000)
        old_turns = [
            insert_turn(store, "a", f"ancient message {i}", created_ms=now - 400 * DAY_MS) for i in range(300)
        ]
        mark_learned(store, now - 400 * DAY_MS)  # learned then (live turns), so past retention
        for i in range(50):
            insert_episode(store, "a", f"ancient episode{i} subject{i}", at_ms=now - 400 * DAY_MS)
        doomed = [
            insert_fact(
                store,
                "a",
                f"stale fact {i}",
                salience=0.05,
                created_ms=now - 60 * DAY_MS,
                last_decayed_ms=now,
            )
            for i in range(100)
        ]
        kept = [
            insert_fact(store, "a", f"kept fact {i}", salience=0.6, created_ms=now, last_decayed_ms=now)
            for i in range(100)
        ]
        writer = SqliteWriterStore(store.db, store.tables, store.agents)

        stop = threading.Event()
        errors: list[BaseException] = []
        buffered: list[tuple[int, tuple[int, ...]]] = []
        written: list[tuple[int, tuple[str, ...]]] = []
        passes: list[int] = []

        def client(n: int) -> None:
            try:
                for i in range(TURNS_PER_CLIENT):
                    reply = memoryd.memory.BufferTurn(
                        pb.BufferTurnRequest(
                            agent_id="a",
                            conversation_id=f"live-{n}",
                            user_message=f"turn {n}/{i}",
                            assistant_message="ok",
                        ),
                        timeout=10,
                    )
                    buffered.append((reply.signal_id, tuple(reply.transcript_ids)))
            except BaseException as error:
                errors.append(error)

        def distiller() -> None:
            try:
                for n in range(DISTILLATIONS):
                    episode = NewEpisode(
                        "a",
                        f"conv-{n}",
                        f"episode{n} alpha{n} beta{n} gamma{n}",
                        (f"topic{n}",),
                        (),
                        (),
                        (),
                        0.6,
                        10,
                        "m",
                        int(time.time() * 1000),
                    )
                    result = writer.commit_distillation(
                        DistillationWrite(
                            episode,
                            (),
                            (NewFact(f"new fact {n} delta{n}", 0.7),),
                            (FactBump(str(kept[n]), 0.95),),
                            (),
                            (),
                            LogEntry("a", "success", "t"),
                        )
                    )
                    written.append((result.episode_id, result.fact_ids))
            except BaseException as error:
                errors.append(error)

        def consolidate() -> None:
            while not stop.is_set():
                try:
                    memoryd.consolidator.run(TRIGGER_MANUAL)
                    passes.append(1)
                except AbortedError:
                    pass
                except BaseException as error:
                    errors.append(error)
                    return

        workers = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
        workers.append(threading.Thread(target=distiller))
        background = threading.Thread(target=consolidate)
        background.start()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(120)
        stop.set()
        background.join(120)
        assert errors == []
        assert passes, "no pass completed while the writes ran"
        memoryd.consolidator.run()  # and one more after

        transcript = {r[0] for r in store.db.query("SELECT id FROM transcript")}
        # The writer may have processed some signals meanwhile (short turns fail its novelty gate); none is gone.
        signals = {r[0] for r in store.db.query("SELECT id FROM pending_signals")}
        assert len(buffered) == CLIENTS * TURNS_PER_CLIENT
        for signal_id, turn_ids in buffered:
            assert signal_id in signals
            assert set(turn_ids) <= transcript
        episodes = {r[0] for r in store.db.query("SELECT id FROM episodes")}
        facts = dict(store.db.query("SELECT id, salience FROM pinned_facts"))
        for episode_id, fact_ids in written:
            assert episode_id in episodes
            assert all(int(f) in facts for f in fact_ids)
        for fact_id in kept[
            :DISTILLATIONS
        ]:  # bumped to 0.95 during the passes; decay since is seconds' worth
            assert facts[fact_id] > 0.94
        assert not set(old_turns) & transcript
        assert not set(doomed) & set(facts)
        assert len(episodes) == DISTILLATIONS
        assert consistency_problems(store) == []
