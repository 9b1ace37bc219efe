"""Rebuilds a Hugging Face fast tokenizer (tokenizer.json + tokenizer_config.json) from GGUF BPE metadata."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, processors

from inferd.backends.base import ModelLoadError

_CONTROL, _USER_DEFINED = 3, 4
# llama.cpp's pre-tokenizer names (tokenizer.ggml.pre) → the split regexes its converter used.
_LLAMA3_REGEX = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
_QWEN2_REGEX = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"


def _pre_tokenizer(pre: str) -> pre_tokenizers.PreTokenizer:
    if pre == "smollm":
        return pre_tokenizers.Sequence(
            [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
        )
    if pre in ("gpt2", "default", ""):
        return pre_tokenizers.ByteLevel(add_prefix_space=False)
    regex = {"llama-bpe": _LLAMA3_REGEX, "llama3": _LLAMA3_REGEX, "qwen2": _QWEN2_REGEX}.get(pre)
    if regex is None:
        raise ModelLoadError(
            f"GGUF pre-tokenizer {pre!r} is not supported (supported: smollm, gpt2, llama-bpe, qwen2)"
        )
    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(regex), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def _scalar(meta: Mapping[str, Any], key: str, default: Any = None) -> Any:
    value = meta.get(key, default)
    return value.item() if hasattr(value, "item") else value


def build_tokenizer(meta: Mapping[str, Any]) -> tuple[Tokenizer, dict[str, Any]]:
    """The tokenizer and its tokenizer_config.json dict (chat template, bos/eos) from GGUF metadata."""
    if _scalar(meta, "tokenizer.ggml.model") != "gpt2":
        raise ModelLoadError(
            f"GGUF tokenizer model {_scalar(meta, 'tokenizer.ggml.model')!r} is not supported (only BPE 'gpt2')"
        )
    tokens: list[str] = list(meta["tokenizer.ggml.tokens"])
    raw_types: Any = meta.get("tokenizer.ggml.token_type", [])
    types: list[int] = raw_types.tolist() if hasattr(raw_types, "tolist") else list(raw_types)
    merges = [tuple(m.split(" ", 1)) for m in meta.get("tokenizer.ggml.merges", [])]
    vocab = {token: index for index, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, fuse_unk=False, byte_fallback=False))
    tokenizer.pre_tokenizer = _pre_tokenizer(str(_scalar(meta, "tokenizer.ggml.pre", "default")))
    tokenizer.decoder = decoders.ByteLevel()
    specials = [
        AddedToken(tokens[i], special=types[i] == _CONTROL, normalized=False)
        for i in range(min(len(types), len(tokens)))
        if types[i] in (_CONTROL, _USER_DEFINED)
    ]
    tokenizer.add_tokens(specials)

    def token_at(key: str) -> str | None:
        index = _scalar(meta, key)
        return tokens[int(index)] if index is not None and 0 <= int(index) < len(tokens) else None

    bos, eos = token_at("tokenizer.ggml.bos_token_id"), token_at("tokenizer.ggml.eos_token_id")
    add_bos = bool(_scalar(meta, "tokenizer.ggml.add_bos_token", False))
    if add_bos and bos is not None:
        bos_id = vocab[bos]
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, bos_id)]
        )
    else:
        tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    config: dict[str, Any] = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": False,
        "add_bos_token": add_bos,
        "model_max_length": int(_scalar(meta, "llama.context_length", 8192)),
    }
    for key, value in (
        ("bos_token", bos),
        ("eos_token", eos),
        ("unk_token", token_at("tokenizer.ggml.unknown_token_id")),
        ("pad_token", token_at("tokenizer.ggml.padding_token_id")),
    ):
        if value is not None:
            config[key] = value
    template = _scalar(meta, "tokenizer.chat_template")
    if template:
        config["chat_template"] = template
    return tokenizer, config


def write_tokenizer(meta: Mapping[str, Any], folder: Path) -> None:
    """Write tokenizer.json and tokenizer_config.json into an mlx-lm model folder."""
    tokenizer, config = build_tokenizer(meta)
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
