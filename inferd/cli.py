"""inferd's command line: inspect and drive a running inferd, or convert a GGUF offline (`python -m inferd.cli`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from inferd.client import GenerateOptions, InferenceClient, Message
from inferd.config import client_target, default_home
from servicekit.errors import ServiceError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m inferd.cli", description=__doc__)
    parser.add_argument("--target", help="inferd address (default $OSAURUS_INFERD_ADDR or 127.0.0.1:50052)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("status", help="list models and their state")
    for name in ("load", "unload"):
        sub.add_parser(name, help=f"{name} a model").add_argument("model")
    gen = sub.add_parser("generate", help="one reply to a user message")
    gen.add_argument("text")
    gen.add_argument("--model", default="")
    gen.add_argument("--system", default="")
    gen.add_argument("--schema-file", type=Path, help="constrain the reply to this JSON schema")
    gen.add_argument("--max-tokens", type=int, default=0)
    gen.add_argument("--temperature", type=float, default=0.0)
    gen.add_argument("--stream", action="store_true", help="print deltas as they arrive")
    emb = sub.add_parser("embed", help="print vector norms and pairwise cosines")
    emb.add_argument("texts", nargs="+")
    emb.add_argument("--model", default="")
    conv = sub.add_parser("convert", help="convert a GGUF into an mlx-lm folder (offline, no server)")
    conv.add_argument("gguf", type=Path)
    conv.add_argument("--out", type=Path, help="folder (default $OSAURUS_HOME/models/<gguf stem>)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; exit 1 with the error's reason on a service error."""
    args = _parser().parse_args(argv)
    if args.command == "convert":
        from inferd.backends.gguf_convert import convert_gguf

        out = args.out or default_home() / "models" / args.gguf.stem
        print(convert_gguf(args.gguf, out))
        return 0
    client = InferenceClient(client_target(args.target), deadline_s=600)
    try:
        return _run(client, args)
    except ServiceError as error:
        print(f"error: {type(error).__name__} {error.reason}: {error.message}", file=sys.stderr)
        return 1
    finally:
        client.close()


def _run(client: InferenceClient, args: argparse.Namespace) -> int:
    if args.command == "status":
        for m in client.models():
            default = " (default)" if m.is_default else ""
            extra = f" error={m.error}" if m.error else ""
            print(
                f"{m.name:28} {m.kind:9} {m.backend:6} {m.state:8} queue {m.queue_depth}/{m.queue_capacity}{default}{extra}"
            )
    elif args.command in ("load", "unload"):
        info = client.load_model(args.model) if args.command == "load" else client.unload_model(args.model)
        print(f"{info.name}: {info.state}")
    elif args.command == "generate":
        messages = ([Message("system", args.system)] if args.system else []) + [Message("user", args.text)]
        schema = args.schema_file.read_text() if args.schema_file else ""
        options = GenerateOptions(max_tokens=args.max_tokens, temperature=args.temperature)
        if args.stream:
            for event in client.stream(messages, model=args.model, json_schema=schema, options=options):
                print(event.delta, end="", flush=True)
            print()
        else:
            reply = client.generate(messages, model=args.model, json_schema=schema, options=options)
            print(reply.text)
            print(
                f"[{reply.model}: {reply.prompt_tokens} prompt + {reply.completion_tokens} tokens, "
                f"{reply.finish_reason}, {reply.duration_ms} ms]",
                file=sys.stderr,
            )
    elif args.command == "embed":
        emb = client.embed(args.texts, model=args.model)
        print(json.dumps({"model": emb.model, "dimension": emb.dimension}))
        for i, row in enumerate(emb.vectors @ emb.vectors.T):
            print(" ".join(f"{x:6.3f}" for x in row), "", args.texts[i][:60])
    return 0


if __name__ == "__main__":
    sys.exit(main())
