"""Unit tests for the GGUF → mlx-lm conversion: tensor names, config and quantization, tokenizer rebuild."""

from __future__ import annotations

from typing import Any

# isort: off
import inferd.backends  # noqa: F401 - preloads OpenBLAS before mlx.core (inferd/backends/blas.py)
import mlx.core as mx

# isort: on
import numpy as np
import pytest
from tokenizers import pre_tokenizers

from inferd.backends.base import ModelLoadError
from inferd.backends.gguf_convert import mlx_name, model_config
from inferd.backends.gguf_tokenizer import build_tokenizer


@pytest.mark.parametrize(
    ("gguf", "mlx"),
    [
        ("token_embd.weight", "model.embed_tokens.weight"),
        ("token_embd.scales", "model.embed_tokens.scales"),
        ("output_norm.weight", "model.norm.weight"),
        ("output.weight", "lm_head.weight"),
        ("blk.0.attn_q.weight", "model.layers.0.self_attn.q_proj.weight"),
        ("blk.12.attn_output.biases", "model.layers.12.self_attn.o_proj.biases"),
        ("blk.3.ffn_gate.scales", "model.layers.3.mlp.gate_proj.scales"),
        ("blk.29.ffn_down.weight", "model.layers.29.mlp.down_proj.weight"),
        ("blk.1.attn_norm.weight", "model.layers.1.input_layernorm.weight"),
        ("blk.1.ffn_norm.weight", "model.layers.1.post_attention_layernorm.weight"),
    ],
)
def test_tensor_names(gguf: str, mlx: str) -> None:
    assert mlx_name(gguf) == mlx


def test_unknown_tensor_is_a_load_error() -> None:
    with pytest.raises(ModelLoadError):
        mlx_name("blk.0.attn_qkv.weight")


def _meta(**extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "general.architecture": "llama",
        "llama.embedding_length": mx.array(64, dtype=mx.uint32),
        "llama.block_count": mx.array(2, dtype=mx.uint32),
        "llama.feed_forward_length": mx.array(128, dtype=mx.uint32),
        "llama.attention.head_count": mx.array(4, dtype=mx.uint32),
        "llama.attention.head_count_kv": mx.array(2, dtype=mx.uint32),
        "llama.rope.freq_base": mx.array(100000.0),
        "llama.context_length": mx.array(2048, dtype=mx.uint32),
        "tokenizer.ggml.tokens": ["a"] * 100,
        "tokenizer.ggml.bos_token_id": mx.array(1, dtype=mx.uint32),
        "tokenizer.ggml.eos_token_id": mx.array(2, dtype=mx.uint32),
    }
    meta.update(extra)
    return meta


def test_config_and_mixed_quantization() -> None:
    weights = {
        "token_embd.weight": mx.zeros((100, 16), dtype=mx.uint32),  # 8-bit: 16 packed cols / 2 scale cols
        "token_embd.scales": mx.zeros((100, 2), dtype=mx.float16),
        "blk.0.attn_q.weight": mx.zeros((64, 8), dtype=mx.uint32),  # 4-bit: 8 / 2
        "blk.0.attn_q.scales": mx.zeros((64, 2), dtype=mx.float16),
        "blk.0.attn_k.weight": mx.zeros((32, 8), dtype=mx.uint32),
        "blk.0.attn_k.scales": mx.zeros((32, 2), dtype=mx.float16),
        "output_norm.weight": mx.ones((64,)),
    }
    config = model_config(_meta(), weights)
    assert config["model_type"] == "llama" and config["rope_traditional"] is True
    assert (config["hidden_size"], config["num_hidden_layers"], config["num_key_value_heads"]) == (64, 2, 2)
    assert (
        config["head_dim"] == 16
        and config["rope_theta"] == 100000.0
        and config["max_position_embeddings"] == 2048
    )
    assert config["tie_word_embeddings"] is True  # no output.weight in the file
    assert config["quantization"] == {
        "group_size": 32,
        "bits": 4,
        "model.embed_tokens": {"group_size": 32, "bits": 8},
    }


def test_other_architectures_are_refused() -> None:
    with pytest.raises(ModelLoadError, match="architecture 'gemma3'"):
        model_config(_meta(**{"general.architecture": "gemma3"}), {})


def _tiny_bpe_meta(add_bos: bool) -> dict[str, Any]:
    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    merged = ["he", "ll", "hell", "hello", "Ġw", "Ġwo"]
    tokens = specials + alphabet + merged
    types = [3] * len(specials) + [1] * (len(alphabet) + len(merged))
    return {
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": "smollm",
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.token_type": np.array(types, dtype=np.int32),
        "tokenizer.ggml.merges": ["h e", "l l", "he ll", "hell o", "Ġ w", "Ġw o"],
        "tokenizer.ggml.bos_token_id": 1,
        "tokenizer.ggml.eos_token_id": 2,
        "tokenizer.ggml.add_bos_token": add_bos,
        "tokenizer.chat_template": "{% for m in messages %}{{ m['content'] }}{% endfor %}",
        "llama.context_length": 512,
    }


def test_tokenizer_rebuilt_from_metadata() -> None:
    tokenizer, config = build_tokenizer(_tiny_bpe_meta(add_bos=False))
    ids = tokenizer.encode("hello world 42<|im_end|>").ids
    vocab = tokenizer.get_vocab()
    assert ids[0] == vocab["hello"] and ids[1] == vocab["Ġwo"]
    assert ids[-1] == 2 and vocab["4"] in ids and vocab["2"] in ids  # specials whole, digits one by one
    assert tokenizer.decode(ids, skip_special_tokens=True) == "hello world 42"
    assert config["eos_token"] == "<|im_end|>" and config["bos_token"] == "<|im_start|>"
    assert config["chat_template"].startswith("{% for m in messages")
    assert config["model_max_length"] == 512 and config["add_bos_token"] is False


def test_tokenizer_adds_bos_when_the_gguf_says_so() -> None:
    tokenizer, _ = build_tokenizer(_tiny_bpe_meta(add_bos=True))
    assert tokenizer.encode("hello").ids[0] == 1


def test_unsupported_tokenizers_are_refused() -> None:
    meta = _tiny_bpe_meta(add_bos=False)
    with pytest.raises(ModelLoadError, match="'llama'"):
        build_tokenizer({**meta, "tokenizer.ggml.model": "llama"})
    with pytest.raises(ModelLoadError, match="pre-tokenizer 'mystery'"):
        build_tokenizer({**meta, "tokenizer.ggml.pre": "mystery"})
