"""fastctx7's GIL probe (issue 17 item 4): which Python work of memoryd runs while the query embedding is in flight,
and how long a thread waiting for the GIL then waits.

memoryd's read path (as memoryd builds it, over probe_place_cost's store, in-process, every call a cache miss) with a
sampler thread: it sleeps `--every-ms` (time.sleep releases the GIL) and, when it holds the GIL again, records how
late it woke (the GIL wait a returning embedding reply would also see) and where every other thread of the process
is: its innermost frame in this repository's code (memoryd/, servicekit/, inferd/), or "waiting" when the thread is
parked in a lock, queue or pool. Samples are split by whether the query embedding was in flight (RealQueryVectors'
call on the evidence pass's helper thread).

Printed: the GIL wait (p50/p95/mean) in flight and not, and the places threads were at while the embedding was in
flight, by share of samples. A place running Python in many samples is what competes with the embedding's reply for
the GIL (SQLite statements release it, so `execute` shares mostly do not). Sampling has a bias: the sampler only
runs when it gets the GIL, and it takes it from whoever had it.

Results (150 calls, load 9.0, machine shared): the sampler's wait is no longer with the embedding in flight (mean
0.72 ms, p95 3.70) than without (0.77, 2.08). While it is in flight the other threads are mostly parked; when busy,
they are in SQLite statements (execute: keyword helper 18%, evidence thread 16%, main thread 14% of samples;
fetchall 14%, 9%, 2%), which let go of the GIL while SQLite works; Python proper (query terms, BM25 re-scoring)
shows in under 1% of samples each. So little Python holds the GIL while the embedding is in flight; what slows it in
the read path (in-process embed ~14 ms against ~11.4 alone in bench_assemble) is more likely the cores: two or three
memoryd threads in SQLite beside inferd's forward on a 2-core machine. Before the request-id change, the embedding
thread itself showed up in `uuid4` (4-6% of in-flight samples): os.urandom let go of the GIL before the request left.

Run: `python -m bench.probe_fastctx7_gil [--home DIR] [--queries N] [--every-ms 0.5]`. A probe: prints, writes no
figures under bench/results.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType

from bench import probe_fastctx6 as fc6
from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.assemble_services import percentile
from bench.bench_assemble import RealQueryVectors, inferd_process
from inferd.client import Embeddings, InferenceClient
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter

_REPO = str(Path(__file__).resolve().parents[1])
_OURS = tuple(os.path.join(_REPO, part) for part in ("memoryd", "servicekit", "inferd"))
_WAITING = {"wait", "acquire", "get", "result", "_worker", "sleep", "join", "_wait_for_tstate_lock"}


class FlaggedVectors(RealQueryVectors):
    """RealQueryVectors that says when an embedding is in flight."""

    in_flight = 0

    def embed(self, texts: object, *, model: str = "", timeout_s: float | None = None) -> Embeddings:
        FlaggedVectors.in_flight += 1
        try:
            return super().embed(texts, model=model, timeout_s=timeout_s)  # type: ignore[arg-type]
        finally:
            FlaggedVectors.in_flight -= 1


def place_of(frame: FrameType | None) -> str:
    """The innermost frame in this repository's code, or "waiting" when the thread is parked."""
    innermost = frame
    if (
        innermost is not None
        and innermost.f_code.co_name in _WAITING
        and not innermost.f_code.co_filename.startswith(_OURS)
    ):
        return "waiting"
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_OURS):
            top = innermost.f_code.co_name if innermost is not None else "?"
            where = f"{os.path.relpath(name, _REPO)}:{frame.f_code.co_name}:{frame.f_lineno}"
            return where if innermost is frame else f"{where} > {top}"
        frame = frame.f_back
    return "other"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-fastctx7"))
    parser.add_argument("--queries", type=int, default=20, help="per intended section")
    parser.add_argument("--every-ms", type=float, default=0.5)
    args = parser.parse_args()
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home: Path = args.home
    store_home = home / "sqlite"
    if not (store_home / "seeded").exists():
        raise SystemExit(f"seed {home} first: python -m bench.probe_place_cost --home {home} --queries 1")
    (home / "inferd" / "inferd.port").unlink(missing_ok=True)
    with inferd_process(home / "inferd") as target:
        app = build_app(
            ServiceSettings(
                listen="127.0.0.1:0", home=store_home, inferd_addr=target, background_indexing=False
            )
        )
        client = InferenceClient(target, deadline_s=300.0)
        counter_client = InferenceClient(target, deadline_s=5.0)
        lines = LineTokenCounter(InferdTokenCounter(counter_client, "fake-llm"))
        try:
            now_ms = int((store_home / "now_ms").read_text())
            corpus = make_corpus(random.Random(SEED))
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            lines.calibration(lines.model)
            LineTokenFiller(app.store, lines).run_once()
            arm = fc6.make_arm("new", app, client, lines, now_ms)
            flagged = FlaggedVectors(client)
            arm.real = flagged
            arm.search._embedder._client = flagged  # type: ignore[union-attr]
            rng = random.Random(SEED + 23)
            for _, q in make_queries(corpus, rng, 2):
                fc6.call(arm, q, 0.005)
            waits: dict[bool, list[float]] = {True: [], False: []}
            places: Counter[str] = Counter()
            #: The same, only for samples whose wake was at least 2 ms late (someone held the GIL that long).
            long_places: Counter[str] = Counter()
            flight_samples = long_samples = 0
            stop = threading.Event()
            every_s = args.every_ms / 1000

            def sample() -> None:
                nonlocal flight_samples, long_samples
                me = threading.get_ident()  # the sampler itself
                while not stop.is_set():
                    before = time.perf_counter()
                    time.sleep(every_s)
                    late = (time.perf_counter() - before - every_s) * 1000
                    flying = FlaggedVectors.in_flight > 0
                    waits[flying].append(late)
                    if flying:
                        flight_samples += 1
                        long_samples += late >= 2.0
                        names = {t.ident: t.name.split("_")[0] for t in threading.enumerate()}
                        for ident, frame in sys._current_frames().items():
                            if ident != me:
                                where = f"[{names.get(ident, '?')}] {place_of(frame)}"
                                places[where] += 1
                                if late >= 2.0:
                                    long_places[where] += 1

            sampler = threading.Thread(target=sample, daemon=True)
            queries = [q for _, q in make_queries(corpus, rng, args.queries)]
            load = os.getloadavg()[0]
            sampler.start()
            for q in queries:
                fc6.call(arm, q, 0.005)
            stop.set()
            sampler.join()
            print(
                f"{len(queries)} calls, load {load:.1f} -> {os.getloadavg()[0]:.1f}; sampler every {args.every_ms} ms"
            )
            for flying, values in waits.items():
                if values:
                    print(
                        f"GIL wait of the sampler, embedding {'in flight' if flying else 'not in flight'}:"
                        f" {len(values)} samples, p50 {statistics.median(values):.2f} ms, p95"
                        f" {percentile(values, 0.95):.2f} ms, mean {statistics.fmean(values):.2f} ms"
                    )
            print(
                f"Where the other threads were while the embedding was in flight ({flight_samples} samples):"
            )
            for where, n in places.most_common(25):
                print(f"  {n / max(flight_samples, 1):6.1%}  {where}")
            print(f"The same, samples at least 2 ms late ({long_samples}):")
            for where, n in long_places.most_common(20):
                print(f"  {n / max(long_samples, 1):6.1%}  {where}")
            arm.reader.inner.close()
            arm.search.close()
        finally:
            lines.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
