"""JSON-schema constrained decoding with llguidance, as an mlx-lm logits processor that runs on the CPU.

llguidance's own mlx helper uses a Metal kernel; this one turns the token bitmask into a boolean vector with numpy,
so it works on Linux CPU and on macOS alike. Near the token budget it switches to "closing mode": tokens that close
strings, arrays and objects get a large bonus, so the reply still parses and validates when max_tokens is short.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import llguidance
import llguidance.hf
import mlx.core as mx
import numpy as np
from llguidance.numpy import allocate_token_bitmask, fill_next_token_bitmask

from inferd.backends.base import BackendRequestError, ModelCrashError

# Closing-mode bonuses. Inside a string: tokens that end it ('"', '"]', '"}', '",' ...). Outside: tokens made only
# of ']' and '}' first, then the shortest values, then ',' (which only wins where the grammar allows nothing shorter).
_IN_STRING_BONUS = 1.0e4
_CLOSE_BONUS, _VALUE_BONUS, _COMMA_BONUS = 1.0e4, 5.0e3, 2.0e3
_SHORT_VALUES = frozenset({"0", "[]", '""', "false", "null", "{}"})


@functools.lru_cache(maxsize=64)
def _grammar(schema_json: str) -> str:
    # Compact JSON (no free whitespace): small models otherwise loop on newlines and spaces between tokens.
    return str(
        llguidance.LLMatcher.grammar_from_json_schema(schema_json, overrides={"whitespace_flexible": False})
    )


class GrammarTokenizer:
    """The llguidance view of a model's tokenizer plus the closing-mode bonus vectors; build once per model."""

    def __init__(self, hf_tokenizer: Any, vocab_size: int, eos_token_ids: Sequence[int]) -> None:
        self.ll = llguidance.hf.from_tokenizer(
            hf_tokenizer, n_vocab=vocab_size, eos_token=list(eos_token_ids)
        )
        self.vocab_size = vocab_size
        self.token_bytes: list[bytes] = []
        in_string = np.zeros(vocab_size, dtype=np.float32)
        outside = np.zeros(vocab_size, dtype=np.float32)
        for token_id in range(vocab_size):
            special = token_id >= self.ll.vocab_size or self.ll.is_special_token(token_id)
            raw = b"" if special else self.ll.decode_bytes([token_id])
            self.token_bytes.append(raw)
            text = raw.decode("utf-8", "replace")
            if not text:
                continue
            if text[0] == '"' and set(text[1:]) <= set("]},"):
                in_string[token_id] = _IN_STRING_BONUS
            if set(text) <= set("]}"):
                outside[token_id] = _CLOSE_BONUS
            elif text in _SHORT_VALUES:
                outside[token_id] = _VALUE_BONUS
            elif text == ",":
                outside[token_id] = _COMMA_BONUS
        self.bonus_in_string = mx.array(in_string)
        self.bonus_outside = mx.array(outside)


class _JsonLexState:
    """Tracks whether the text so far ends inside a JSON string (to pick the right closing bonus)."""

    def __init__(self) -> None:
        self.in_string = False
        self._escaped = False

    def feed(self, raw: bytes) -> None:
        for byte in raw:
            if self.in_string:
                if self._escaped:
                    self._escaped = False
                elif byte == 0x5C:  # backslash
                    self._escaped = True
                elif byte == 0x22:  # quote
                    self.in_string = False
            elif byte == 0x22:
                self.in_string = True


class JsonSchemaProcessor:
    """Logits processor for one request: masks every token the schema forbids, consuming sampled tokens as it goes.

    mlx-lm calls it as processor(tokens, logits) before each sample; `tokens` ends with the previous sample.
    """

    def __init__(
        self, tokenizer: GrammarTokenizer, schema: dict[str, Any], closing_after_tokens: int
    ) -> None:
        self._tok = tokenizer
        self._matcher = llguidance.LLMatcher(
            tokenizer.ll, _grammar(json.dumps(schema, sort_keys=False)), log_level=0
        )
        if self._matcher.is_error():
            raise BackendRequestError(
                "INVALID_JSON_SCHEMA", f"schema not usable: {self._matcher.get_error()}", "json_schema"
            )
        self._bitmask = allocate_token_bitmask(1, tokenizer.ll.vocab_size)
        self._closing_after = closing_after_tokens
        self._started = False
        self._lex = _JsonLexState()
        self.generated = 0

    @property
    def is_closing(self) -> bool:
        return self.generated >= self._closing_after

    def is_done(self) -> bool:
        """The grammar is complete (only end-of-sequence is allowed now)."""
        return bool(self._matcher.is_stopped())

    def __call__(self, tokens: mx.array, logits: mx.array) -> mx.array:
        if self._started:
            self._consume(int(tokens[-1].item()))  # type: ignore[arg-type]
        self._started = True
        if self._matcher.is_stopped():
            allowed = np.zeros(self._tok.vocab_size, dtype=bool)
            allowed[list(self._tok.ll.eos_tokens)] = True
        else:
            fill_next_token_bitmask(self._matcher, self._bitmask)
            bits = np.unpackbits(self._bitmask.view(np.uint8), bitorder="little")
            allowed = np.zeros(self._tok.vocab_size, dtype=bool)
            count = min(self._tok.vocab_size, bits.shape[0])
            allowed[:count] = bits[:count].astype(bool)
        width = logits.shape[-1]
        mask = mx.array(
            allowed[:width] if width <= allowed.shape[0] else np.pad(allowed, (0, width - allowed.shape[0]))
        )
        if self.is_closing:
            bonus = self._tok.bonus_in_string if self._lex.in_string else self._tok.bonus_outside
            logits = logits + bonus[:width]
        return mx.where(mask, logits, mx.array(-np.inf, dtype=logits.dtype))

    def _consume(self, token: int) -> None:
        self.generated += 1
        if token < len(self._tok.token_bytes):
            self._lex.feed(self._tok.token_bytes[token])
        if not self._matcher.consume_token(token):
            # Only a masked-out token gets here, which the mask forbids: a bug, reported as a model failure.
            raise ModelCrashError(f"constrained decoding rejected token {token}: {self._matcher.get_error()}")
