"""Constrained decoding without a real model: random logits through the llguidance processor still give valid JSON."""

from __future__ import annotations

import json
from typing import Any

# isort: off
import inferd.backends  # noqa: F401 - preloads OpenBLAS before mlx.core (inferd/backends/blas.py)
import mlx.core as mx

# isort: on
import numpy as np
import pytest
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

from inferd.backends.constrained import GrammarTokenizer, JsonSchemaProcessor, _JsonLexState
from inferd.backends.mlx_llm import _StopScanner
from inferd.jsonschema_lite import validate
from memoryd.write.digest_schema import DISTILLATION_SCHEMA

EOS = 0


@pytest.fixture(scope="module")
def grammar_tokenizer() -> GrammarTokenizer:
    """A byte-level BPE with every byte plus a few JSON-ish merges: any JSON text can be spelled with it."""
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    merges = [('"', "]"), ('"', "}"), ("]", "}"), ("{", '"'), ('"', ":"), ('"', ",")]
    vocab = {"<eos>": EOS, **{c: i + 1 for i, c in enumerate(alphabet)}}
    for a, b in merges:
        vocab[a + b] = len(vocab)
    backend = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens(["<eos>"])
    hf = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<eos>")
    return GrammarTokenizer(hf, len(vocab), [EOS])


def _decode(
    tok: GrammarTokenizer, schema: dict[str, Any], max_tokens: int, closing_after: int, seed: int
) -> tuple[str, int]:
    """A random 'model' (Gumbel noise over uniform logits) decoding under the processor, as mlx-lm would."""
    rng = np.random.default_rng(seed)
    processor = JsonSchemaProcessor(tok, schema, closing_after)
    tokens = [EOS]  # stands in for the prompt
    out: list[int] = []
    while len(out) < max_tokens:
        logits = mx.array(rng.gumbel(size=(1, tok.vocab_size)).astype(np.float32))
        masked = processor(mx.array(tokens), logits)
        token = int(mx.argmax(masked, axis=-1).item())
        if token == EOS:
            break
        tokens.append(token)
        out.append(token)
        if processor.is_done():
            break
    return b"".join(tok.token_bytes[t] for t in out).decode("utf-8", "replace"), len(out)


SMALL = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 12},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 6}, "maxItems": 3},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "ok": {"type": "boolean"},
    },
    "required": ["name", "tags", "score", "ok"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("seed", range(8))
def test_random_model_output_always_validates(grammar_tokenizer: GrammarTokenizer, seed: int) -> None:
    text, _ = _decode(grammar_tokenizer, SMALL, max_tokens=400, closing_after=400, seed=seed)
    assert validate(json.loads(text), SMALL) == [], text


@pytest.mark.parametrize("seed", range(6))
def test_closing_mode_finishes_the_distillation_schema_within_budget(
    grammar_tokenizer: GrammarTokenizer, seed: int
) -> None:
    # Closing starts after 20 tokens; a random model would otherwise wander for thousands of bytes.
    text, used = _decode(grammar_tokenizer, DISTILLATION_SCHEMA, max_tokens=300, closing_after=20, seed=seed)
    assert validate(json.loads(text), DISTILLATION_SCHEMA) == [], text
    assert used < 300


def test_json_lex_state_tracks_strings_and_escapes() -> None:
    lex = _JsonLexState()
    for chunk, inside in ((b'{"a', True), (b'":', False), (b'"x\\"', True), (b"y\\\\", True), (b'"', False)):
        lex.feed(chunk)
        assert lex.in_string is inside, chunk


def test_stop_scanner_holds_back_partial_matches() -> None:
    scanner = _StopScanner(["STOP"])
    assert scanner.feed("hello ST") == ("hello", False)  # "ST" might start "STOP": held back
    assert scanner.feed("OP and more") == (" ", True)
    scanner = _StopScanner(["END"])
    assert scanner.feed("abc E") == ("abc", False)
    assert scanner.flush("N") == " EN"
    assert _StopScanner([]).feed("anything") == ("anything", False)
