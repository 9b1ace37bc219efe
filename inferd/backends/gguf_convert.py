"""Converts a llama-family GGUF (Q4_0/Q4_1/Q8_0/F16/F32) once into an mlx-lm model folder under the models dir."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import mlx.core as mx

from inferd.backends.base import ModelLoadError
from inferd.backends.gguf_tokenizer import write_tokenizer

_log = logging.getLogger("inferd.gguf")

#: Bump when the folder layout changes, so old conversions are redone.
CONVERTER_VERSION = 1
MARKER = "osaurus-convert.json"
_SUPPORTED_ARCHS = ("llama",)
_LAYER_NAMES = {
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
}
_TOP_NAMES = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
_BLOCK = re.compile(r"^blk\.(\d+)\.([a-z_]+)\.(weight|scales|biases|bias)$")
_TOP = re.compile(r"^([a-z_]+)\.(weight|scales|biases|bias)$")


def mlx_name(gguf_name: str) -> str:
    """The mlx-lm llama parameter name for a GGUF tensor name; ModelLoadError for tensors we do not know."""
    if match := _BLOCK.match(gguf_name):
        layer, part, suffix = match.groups()
        if part in _LAYER_NAMES:
            return f"model.layers.{layer}.{_LAYER_NAMES[part]}.{suffix}"
    elif (match := _TOP.match(gguf_name)) and match.group(1) in _TOP_NAMES:
        return f"{_TOP_NAMES[match.group(1)]}.{match.group(2)}"
    raise ModelLoadError(f"GGUF tensor {gguf_name!r} has no llama equivalent")


def _scalar(meta: Mapping[str, Any], key: str, default: Any = None) -> Any:
    value = meta.get(key, default)
    return value.item() if hasattr(value, "item") else value


def model_config(meta: Mapping[str, Any], weights: Mapping[str, mx.array]) -> dict[str, Any]:
    """config.json for mlx_lm.models.llama from GGUF hyper-parameters and the weights' quantization."""
    arch = _scalar(meta, "general.architecture")
    if arch not in _SUPPORTED_ARCHS:
        raise ModelLoadError(
            f"GGUF architecture {arch!r} is not supported (supported: {', '.join(_SUPPORTED_ARCHS)})"
        )

    def hp(key: str, default: Any = None) -> Any:
        value = _scalar(meta, f"{arch}.{key}", default)
        if value is None:
            raise ModelLoadError(f"GGUF metadata lacks {arch}.{key}")
        return value

    heads = int(hp("attention.head_count"))
    hidden = int(hp("embedding_length"))
    config: dict[str, Any] = {
        "model_type": "llama",
        "hidden_size": hidden,
        "num_hidden_layers": int(hp("block_count")),
        "intermediate_size": int(hp("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(hp("attention.head_count_kv", heads)),
        "rms_norm_eps": float(hp("attention.layer_norm_rms_epsilon", 1e-5)),
        "vocab_size": int(_scalar(meta, f"{arch}.vocab_size", len(meta["tokenizer.ggml.tokens"]))),
        "rope_theta": float(hp("rope.freq_base", 10000.0)),
        "max_position_embeddings": int(hp("context_length", 4096)),
        "head_dim": int(hp("rope.dimension_count", hidden // heads)),
        # llama.cpp's converter permutes q/k rows for GGML's interleaved RoPE, hence the traditional layout.
        "rope_traditional": True,
        "tie_word_embeddings": "output.weight" not in weights,
        "bos_token_id": _scalar(meta, "tokenizer.ggml.bos_token_id"),
        "eos_token_id": _scalar(meta, "tokenizer.ggml.eos_token_id"),
    }
    quantization = _quantization(weights)
    if quantization:
        config["quantization"] = quantization
    return config


def _quantization(weights: Mapping[str, mx.array]) -> dict[str, Any]:
    """Per-tensor bits from packed shapes: GGML blocks are 32 wide, so bits = packed uint32 cols / scale cols."""
    found: dict[str, int] = {}
    for name in weights:
        if name.endswith(".scales"):
            base = name.removesuffix(".scales")
            packed, scales = weights[f"{base}.weight"], weights[name]
            found[mlx_name(f"{base}.weight").removesuffix(".weight")] = packed.shape[-1] // scales.shape[-1]
    if not found:
        return {}
    bits_common = max(set(found.values()), key=list(found.values()).count)
    quantization: dict[str, Any] = {"group_size": 32, "bits": bits_common}
    for path, bits in found.items():
        if bits != bits_common:
            quantization[path] = {"group_size": 32, "bits": bits}
    return quantization


def _fingerprint(gguf: Path) -> dict[str, Any]:
    stat = gguf.stat()
    return {
        "source": str(gguf.resolve()),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "version": CONVERTER_VERSION,
    }


def is_converted(folder: Path, gguf: Path) -> bool:
    """True when `folder` holds a conversion of this exact GGUF file by this converter version."""
    try:
        return bool(json.loads((folder / MARKER).read_text()) == _fingerprint(gguf))
    except (OSError, json.JSONDecodeError):
        return False


def convert_gguf(gguf: Path, folder: Path) -> Path:
    """Convert `gguf` into `folder` unless already done; atomic (tmp folder + rename). Returns the folder."""
    if is_converted(folder, gguf):
        return folder
    started = time.monotonic()
    try:
        weights, meta = mx.load(str(gguf), return_metadata=True)
    except (RuntimeError, ValueError) as error:
        raise ModelLoadError(
            f"cannot read {gguf.name}: {error} (MLX reads GGUF Q4_0, Q4_1, Q8_0, F16, F32)"
        ) from error
    assert isinstance(weights, dict) and isinstance(meta, dict)
    config = model_config(meta, weights)
    renamed = {mlx_name(name): array for name, array in weights.items()}
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.with_name(f".{folder.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        mx.save_safetensors(str(tmp / "model.safetensors"), renamed, metadata={"format": "mlx"})
        (tmp / "config.json").write_text(json.dumps(config, indent=2))
        write_tokenizer(meta, tmp)
        (tmp / MARKER).write_text(json.dumps(_fingerprint(gguf)))
        shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _log.info("converted %s into %s in %.2fs", gguf.name, folder, time.monotonic() - started)
    return folder
