"""MLX text generation on mlx-lm: loads any mlx-lm folder (or a GGUF, converted once), streams, constrains to JSON."""

from __future__ import annotations

import gc
import logging
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import mlx.core as mx
import mlx_lm
from mlx_lm.generate import generate_step
from mlx_lm.sample_utils import make_sampler
from mlx_lm.utils import dequantize_model

from inferd.backends.base import (
    BackendRequestError,
    Finished,
    FinishReason,
    GenerateCall,
    GenerationEvent,
    LoadedInfo,
    ModelLoadError,
    ShouldStop,
    TextDelta,
)
from inferd.backends.constrained import GrammarTokenizer, JsonSchemaProcessor
from inferd.backends.gguf_convert import convert_gguf

_log = logging.getLogger("inferd.mlx_llm")

#: Constrained replies get this many tokens (at most) of "closing mode" before max_tokens, and may overrun
#: max_tokens by at most _CLOSING_OVERRUN tokens while the grammar closes what is open.
_CLOSING_RESERVE = 64
_CLOSING_OVERRUN = 256


def _safe_dirname(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:100] or "model"


def load_mlx_llm(name: str, source: Path, models_dir: Path, options: Mapping[str, Any]) -> MlxLLM:
    """Load `source` (an mlx-lm folder, or a .gguf converted once into models_dir/<name>) as an MlxLLM.

    options: dequantize ("auto" | true | false; auto = on the CPU, where fp32 + OpenBLAS beats the 4-bit kernels),
    context_window_tokens (override).
    """
    started = time.monotonic()
    folder = source
    if source.is_file() and source.suffix == ".gguf":
        folder = convert_gguf(source, models_dir / _safe_dirname(name))
    if not (folder / "config.json").exists():
        raise ModelLoadError(f"{folder} is not an mlx-lm model folder (no config.json)")
    try:
        loaded: Any = mlx_lm.load(str(folder), return_config=True)
        model, tokenizer, config = loaded
    except (OSError, ValueError, KeyError) as error:
        raise ModelLoadError(f"mlx-lm could not load {folder.name}: {error}") from error
    dequantize = options.get("dequantize", "auto")
    if dequantize == "auto":
        dequantize = mx.default_device() == mx.cpu
    if dequantize and "quantization" in config:
        model = dequantize_model(model)
        model.set_dtype(mx.float32)
        mx.eval(model.parameters())
    context = int(options.get("context_window_tokens") or config.get("max_position_embeddings") or 4096)
    _log.info(
        "loaded %s from %s in %.2fs (dequantized: %s)", name, folder, time.monotonic() - started, dequantize
    )
    return MlxLLM(model, tokenizer, context, int(config.get("vocab_size", 0)))


class MlxLLM:
    """One mlx-lm model and tokenizer. Not thread-safe for generation: its worker calls it from one thread."""

    def __init__(self, model: Any, tokenizer: Any, context_window_tokens: int, vocab_size: int) -> None:
        self._model = model
        self._tokenizer = tokenizer
        self._context = context_window_tokens
        self._vocab_size = vocab_size or len(tokenizer.vocab)
        self._grammar_tokenizer: GrammarTokenizer | None = None

    def info(self) -> LoadedInfo:
        return LoadedInfo(context_window_tokens=self._context)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(self._tokenizer.encode(text, add_special_tokens=False)) for text in texts]

    def close(self) -> None:
        self._model = None
        self._grammar_tokenizer = None
        gc.collect()
        mx.clear_cache()

    def prompt_tokens(self, call: GenerateCall) -> list[int]:
        """The chat template applied to the messages, ending with the assistant turn's opening."""
        messages = [{"role": m.role, "content": m.content} for m in call.messages]
        ids = self._tokenizer.apply_chat_template(messages, add_generation_prompt=True)
        return list(ids["input_ids"] if isinstance(ids, Mapping) else ids)

    def _grammar(self) -> GrammarTokenizer:
        if self._grammar_tokenizer is None:
            self._grammar_tokenizer = GrammarTokenizer(
                self._tokenizer._tokenizer, self._vocab_size, sorted(self._tokenizer.eos_token_ids)
            )
        return self._grammar_tokenizer

    def generate(self, call: GenerateCall, should_stop: ShouldStop) -> Iterator[GenerationEvent]:
        prompt = self.prompt_tokens(call)
        room = self._context - len(prompt)
        if room < 1:
            raise BackendRequestError(
                "PROMPT_TOO_LONG",
                f"prompt is {len(prompt)} tokens; the context window is {self._context}",
                "messages",
            )
        params = call.params
        max_tokens = min(params.max_tokens, room)
        processor: JsonSchemaProcessor | None = None
        hard_cap = max_tokens
        if call.json_schema is not None:
            closing_after = max(0, max_tokens - min(_CLOSING_RESERVE, max_tokens // 4))
            processor = JsonSchemaProcessor(self._grammar(), call.json_schema, closing_after)
            hard_cap = min(room, max_tokens + _CLOSING_OVERRUN)
        if params.seed:
            mx.random.seed(params.seed)
        sampler = make_sampler(temp=params.temperature, top_p=params.top_p if params.top_p < 1.0 else 0.0)
        eos = self._tokenizer.eos_token_ids
        detokenizer = self._tokenizer.detokenizer
        detokenizer.reset()
        stops = () if processor is not None else params.stop
        held = _StopScanner(stops)
        finish: FinishReason = "length"
        generated = 0
        steps = generate_step(
            mx.array(prompt),
            self._model,
            max_tokens=-1,
            sampler=sampler,
            logits_processors=[processor] if processor is not None else None,
        )
        try:
            for token, _ in steps:
                if should_stop():
                    finish = "cancelled"
                    break
                if token in eos:
                    finish = "stop"
                    break
                generated += 1
                detokenizer.add_token(token)
                emit, stopped = held.feed(detokenizer.last_segment)
                if emit:
                    yield TextDelta(emit)
                if stopped:
                    finish = "stop"
                    break
                if processor is not None and processor.is_done():
                    finish = "stop" if generated <= max_tokens else "length"
                    break
                if generated >= hard_cap:
                    break
        finally:
            steps.close()
        if finish != "stop" or not held.stopped:
            detokenizer.finalize()
            tail = held.flush(detokenizer.last_segment)
            if tail and finish != "cancelled":
                yield TextDelta(tail)
        yield Finished(finish, len(prompt), generated)


class _StopScanner:
    """Holds back just enough text to recognise stop sequences that span token boundaries."""

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = [s for s in stops if s]
        self._keep = max((len(s) for s in self._stops), default=1) - 1
        self._pending = ""
        self.stopped = False

    def feed(self, text: str) -> tuple[str, bool]:
        """Text safe to emit now, and whether a stop sequence was reached (text before it is included)."""
        self._pending += text
        if not self._stops:
            out, self._pending = self._pending, ""
            return out, False
        hits = [i for i in (self._pending.find(s) for s in self._stops) if i >= 0]
        if hits:
            out, self._pending, self.stopped = self._pending[: min(hits)], "", True
            return out, True
        cut = max(0, len(self._pending) - self._keep)
        out, self._pending = self._pending[:cut], self._pending[cut:]
        return out, False

    def flush(self, text: str) -> str:
        out, stopped = self.feed(text)
        if stopped:
            return out
        out, self._pending = out + self._pending, ""
        return out
