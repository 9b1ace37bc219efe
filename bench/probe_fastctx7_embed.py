"""fastctx7's probe of the query embedding round trip (issue 17 item 4): where the ~11 ms of one query's vector go.

The real all-MiniLM-L6-v2 loaded in this process (inferd's MLX embedder with its numpy query path) and in
`python -m inferd` as its own process (bench_assemble's inferd_process). For bench_assemble's query texts (unique,
~15 tokens), interleaved query by query, each part timed on its own:
- `tokenize`: the tokenizer's encode of one text;
- `forward`: NumpyBert.encode of those ids (the model itself);
- `inline`: MlxEmbedder.embed_inline (tokenize + forward + the thread's BLAS setting), what inferd's Embed runs;
- `reply`: building inferd's EmbedResponse from the (1, 384) array and serialising it, then parsing it and making
  the client's array (the copies on both sides of the wire);
- `rpc`: InferenceClient.embed over gRPC to inferd (loopback);
- `hop`: InferenceClient.count_tokens of one character over gRPC (the same hop with ~no work: the transport, both
  sides' threads, inferd's interceptors and handler);
- `embedder`: memoryd's Embedder.embed_query over gRPC (as the read path calls it; unique texts, so no cache hit);
- `inline_cold`: `inline` right after sweeping a 64 MB array (the weights, 42 MB, no longer in the 32 MB L3);
- `rpc_busy`: `rpc` while another thread of this process runs pure-Python work (as the evidence pass's keyword
  sides do while the query embedding is in flight): the reply must wait for the GIL to be handed over;
- `rpc_uuid4`, `rpc_busy_uuid4`: `rpc` and `rpc_busy` with the request id made as before fastctx7 (uuid4 on the
  calling thread: os.urandom, which lets go of the GIL), alternated with them.

Results (2-core machine shared with other engineers; one run each):
- load 3.1-3.3, 150 queries (17 tokens median), p50 / p95 ms: tokenize 0.09 / 0.19, forward 7.33 / 10.94, inline
  7.50 / 10.43, reply copies 0.09 / 0.14, hop 0.99 / 1.45, rpc 9.51 / 13.90, Embedder 10.32 / 13.74 (its own
  work is 0.014 ms a call: the rest is this run's noise), rpc_busy 22.44 / 34.16. So the round trip is ~80% the
  forward (its matmuls, ~80% of it, stream the 42 MB of weights for every query: no padding, no compile, no copy
  left to cut), ~1 ms the hop, ~0.2 ms tokenizer and copies; a thread running Python in the caller more than
  doubles it (the reply waits for the GIL).
- load 9.6-11.4, 250 queries: request ids without os.urandom (new_request_id) against uuid4 on the calling thread:
  rpc 22.23 / 86.35 -> 19.47 / 71.48 (x0.88 / x0.83), rpc_busy 73.93 / 201.35 -> 56.67 / 177.98 (x0.77 / x0.88).
  inline_cold (weights evicted) 21.12 against inline 25.41: the cold cache costs nothing measurable.

Run: `python -m bench.probe_fastctx7_embed [--queries N]`. A probe: prints its table, writes no figures under
bench/results; nothing is tuned on it.
"""

from __future__ import annotations

import argparse
import contextvars
import os
import random
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.assemble_corpus import QUERY_MODEL, SEED, make_corpus, make_queries
from bench.assemble_services import percentile
from bench.bench_assemble import inferd_process
from inferd.backends.mlx_embed import MlxEmbedder, load_mlx_embedder
from inferd.client import InferenceClient
from inferd.config import MINILM_SOURCE
from inferd.loaders import resolve_source
from osaurus.inference.v1 import inference_pb2 as pb
from servicekit.interceptors import request_id_var


def _busy(stop: threading.Event) -> None:
    """Pure-Python work holding the GIL between the interpreter's switches (as a keyword side's row loop)."""
    while not stop.is_set():
        total = 0
        for i in range(2000):
            total += i * i
        del total


def _timed_rpc(client: InferenceClient, text: str, *, old_id: bool) -> float:
    """ms of one InferenceClient.embed in a fresh context; old_id: its request id made as before fastctx7 (uuid4,
    which reads os.urandom and so lets go of the GIL) on the calling thread, else by the channel (new_request_id)."""

    def call() -> float:
        started = time.perf_counter()
        if old_id:
            request_id_var.set(uuid.uuid4().hex[:16])
        client.embed([text], model=QUERY_MODEL, timeout_s=5.0)
        return (time.perf_counter() - started) * 1000

    return contextvars.Context().run(call)


def _reply_copies(vectors: np.ndarray) -> np.ndarray:
    """What inferd's Embed does with the forward's array and what InferenceClient.embed does with the reply."""
    reply = pb.EmbedResponse(
        embeddings=[pb.Embedding(values=row) for row in vectors.tolist()], dimension=384, model=QUERY_MODEL
    )
    parsed = pb.EmbedResponse.FromString(reply.SerializeToString())
    return np.asarray([list(e.values) for e in parsed.embeddings], dtype=np.float32)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    from memoryd.config import ConfigStore
    from memoryd.vectors.embedding import Embedder

    corpus = make_corpus(random.Random(SEED))
    texts = [q for _, q in make_queries(corpus, random.Random(SEED + 7), max(1, args.queries // 5))]
    model = load_mlx_embedder(resolve_source(MINILM_SOURCE), {})
    assert isinstance(model, MlxEmbedder)
    tokenizer = model._tokenizer
    fast = model._fast
    assert fast is not None
    home = Path(tempfile.mkdtemp(prefix="probe-fastctx7-"))
    (home / "memory").mkdir(parents=True)
    (home / "memory" / "memory.json").write_text(f'{{"embeddingModel": "{QUERY_MODEL}"}}')
    with inferd_process(home / "inferd") as target:
        client = InferenceClient(target, deadline_s=300.0)
        client.embed(["load the model"], model=QUERY_MODEL, timeout_s=300.0)
        embedder = Embedder(client, ConfigStore(home / "memory" / "memory.json"), query_timeout_s=5.0)
        parts: dict[str, Callable[[str], object]] = {
            "tokenize": lambda t: tokenizer.encode(t).ids,
            "forward": lambda t: fast.encode(tokenizer.encode(t).ids),
            "inline": lambda t: model.embed_inline([t]),
            "reply": lambda t: _reply_copies(np.zeros((1, 384), dtype=np.float32) + len(t)),
            "rpc": lambda t: client.embed([t], model=QUERY_MODEL, timeout_s=5.0),
            "hop": lambda t: client.count_tokens([t[:1]], model="fake-llm", timeout_s=5.0),
            "embedder": lambda t: embedder.embed_query(t),
        }
        for t in texts[:20]:  # warm every path (not measured)
            for name, fn in parts.items():
                fn(f"{t} warm {name}")
        ms: dict[str, list[float]] = {
            name: [] for name in [*parts, "rpc_busy", "rpc_busy_uuid4", "rpc_uuid4", "inline_cold"]
        }
        sweep = np.zeros(64 * 1024 * 1024 // 4, dtype=np.float32)  # larger than the 32 MB L3
        tokens: list[int] = []
        load = os.getloadavg()[0]
        for i, text in enumerate(texts):
            tokens.append(len(tokenizer.encode(text).ids))
            order = list(parts) if i % 2 == 0 else list(parts)[::-1]
            for name in order:
                fn = parts[name]
                started = time.perf_counter()
                fn(
                    f"{text} {name}"
                )  # its own text per part: inferd and the Embedder cache nothing across parts
                ms[name].append((time.perf_counter() - started) * 1000)
            busy_arms = ["rpc_busy", "rpc_busy_uuid4"]
            for name in busy_arms if i % 2 == 0 else busy_arms[::-1]:
                stop = threading.Event()
                worker = threading.Thread(target=_busy, args=(stop,))
                worker.start()
                time.sleep(0.001)
                ms[name].append(_timed_rpc(client, f"{text} {name}", old_id=name.endswith("uuid4")))
                stop.set()
                worker.join()
            ms["rpc_uuid4"].append(_timed_rpc(client, f"{text} uuid4", old_id=True))
            sweep += 1.0  # the model's weights out of the caches, as after other work in between queries
            started = time.perf_counter()
            model.embed_inline([f"{text} cold"])
            ms["inline_cold"].append((time.perf_counter() - started) * 1000)
        print(
            f"{len(texts)} queries, tokens median {statistics.median(tokens)} (max {max(tokens)});"
            f" load {load:.1f} -> {os.getloadavg()[0]:.1f}; switch interval {1000 * __import__('sys').getswitchinterval():.1f} ms"
        )
        print("| part | p50 ms | p95 ms | mean ms |")
        print("| --- | --- | --- | --- |")
        for name, values in ms.items():
            print(
                f"| {name} | {statistics.median(values):.2f} | {percentile(values, 0.95):.2f} |"
                f" {statistics.fmean(values):.2f} |"
            )
        client.close()


if __name__ == "__main__":
    main()
