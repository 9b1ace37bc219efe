"""memoryctl commands for the store's protection: encrypt, decrypt, rekey, recover, export-plaintext, certs init.

encrypt/decrypt/rekey/recover call the running memoryd (it owns the file). export-plaintext and certs init work
locally on $OSAURUS_HOME, with or without memoryd running. Passphrases come from a file, stdin or a terminal
prompt — never from the command line, where other users could read them (`recover retry --passphrase` prompts once,
`--passphrase-file F` / `--passphrase-stdin` for scripts; the passphrase travels in RecoverStoreRequest, which
memoryd never logs or stores).
"""

from __future__ import annotations

import argparse
import getpass
from pathlib import Path
from typing import TextIO

from memoryd.client import MemoryClient
from memoryd.console.records import DegradedStoreInfo
from memoryd.ctl.plumbing import (
    EXIT_OK,
    EXIT_PRECONDITION,
    EXIT_UNHEALTHY,
    IO,
    Handler,
    UsageError,
    confirmed,
)
from memoryd.ctl.render import pairs, size
from memoryd.ctl.settings import ctl_home
from memoryd.security.encryption import export_plaintext
from memoryd.security.keys import KeyStore
from memoryd.security.opener import StoreOpenError, file_kind, find_key
from servicekit.certs import init_certs


def _passphrase(args: argparse.Namespace, io: IO, *, required: bool, existing: bool = False) -> str:
    """From --passphrase-file, --passphrase-stdin, or a terminal prompt (twice for a new passphrase, once for an
    `existing` one); "" when none was asked for."""
    if args.passphrase_file:
        text = Path(args.passphrase_file).expanduser().read_text(encoding="utf-8")
        return text.splitlines()[0] if text else ""
    if args.passphrase_stdin:
        return io.stdin.readline().rstrip("\r\n")
    if not args.passphrase:
        return ""
    if not io.stdin.isatty():
        raise UsageError("--passphrase needs a terminal; use --passphrase-file or --passphrase-stdin")
    if existing:
        return getpass.getpass("Passphrase of the memory store: ")
    first = getpass.getpass("New passphrase: ")
    if first != getpass.getpass("Repeat it: "):
        raise UsageError("the passphrases differ")
    if required and not first:
        raise UsageError("an empty passphrase is not allowed")
    return first


def _passphrase_args(
    parser: argparse.ArgumentParser, text: str = "derive the key from a passphrase (prompted)"
) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--passphrase", action="store_true", help=text)
    group.add_argument("--passphrase-file", help="read the passphrase from the first line of this file")
    group.add_argument("--passphrase-stdin", action="store_true", help="read the passphrase from stdin")


def encrypt(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    passphrase = _passphrase(args, io, required=True)
    mode = client.set_encryption("passphrase" if passphrase else "key_file", passphrase)
    io.emit({"mode": mode}, lambda out: print(f"store encrypted ({mode})", file=out))
    return EXIT_OK


def decrypt(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    if not confirmed(args, io, "Store memory as plaintext SQLite (key files are kept)?"):
        return EXIT_PRECONDITION
    mode = client.set_encryption("plaintext")
    io.emit({"mode": mode}, lambda out: print("store decrypted (plaintext)", file=out))
    return EXIT_OK


def rekey(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    mode = client.rotate_key(_passphrase(args, io, required=True))
    io.emit({"mode": mode}, lambda out: print(f"store re-encrypted under a new key ({mode})", file=out))
    return EXIT_OK


_LOOKS = {
    "encrypted": "encrypted (no plaintext SQLite header): it needs the key it was encrypted with",
    "plaintext": "plaintext SQLite: damaged or a newer schema, not a key problem",
    "missing": "no database file (nothing was quarantined)",
}
_SOURCES = {
    "key_file": "key file(s)",
    "passphrase_file": "passphrase key(s) with OSAURUS_MEMORY_PASSPHRASE_FILE",
    "passphrase_request": "passphrase key(s) with the given passphrase",
    "passphrase_memory": "passphrase key(s) with the passphrase memoryd holds",
}


def degraded_pairs(info: DegradedStoreInfo | None) -> list[tuple[str, object]]:
    """Diagnose/recover lines about a degraded store: what the file looks like, which keys were tried."""
    if info is None:
        return []
    lines: list[tuple[str, object]] = [
        ("degraded file", f"{_LOOKS.get(info.file_kind, info.file_kind)} ({size(info.file_bytes)})")
    ]
    if info.file_kind == "encrypted":
        tried = ", ".join(f"{n} {_SOURCES.get(source, source)}" for source, n in info.key_attempts)
        lines.append(("keys tried", tried or "none (no key available)"))
        if info.passphrase_keys_untried:
            lines.append(
                (
                    "not tried",
                    f"{info.passphrase_keys_untried} passphrase key(s), no passphrase: run "
                    "`memoryctl recover retry --passphrase` or set OSAURUS_MEMORY_PASSPHRASE_FILE",
                )
            )
    if info.quarantine_folder:
        lines.append(("quarantine", info.quarantine_folder))
    return lines


def recover(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    if args.action == "reset" and not confirmed(
        args, io, "Start an EMPTY memory store? The degraded one stays in quarantine."
    ):
        return EXIT_PRECONDITION
    passphrase = _passphrase(args, io, required=False, existing=True)
    if passphrase and args.action != "retry":
        raise UsageError("a passphrase is only used with `recover retry`")
    result = client.recover_store(args.action, confirm=args.action == "reset", passphrase=passphrase)

    def human(out: TextIO) -> None:
        print(
            result.store_state + (f": {result.degraded_reason}" if result.degraded_reason else ""), file=out
        )
        pairs(out, degraded_pairs(result.degraded_store))

    io.emit(result, human)
    return EXIT_OK if result.store_state == "healthy" else EXIT_UNHEALTHY


def export_plain(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    home = ctl_home(args.home)
    database = home / "memory" / "memory.sqlite"
    target = Path(args.output).expanduser()
    if file_kind(database) == "missing":
        raise UsageError(f"no memory store at {database}")
    if target.exists():
        raise UsageError(f"{target} exists; export-plaintext never overwrites a file")
    keys = KeyStore(home / "keys")
    passphrase = _passphrase(args, io, required=False)
    if passphrase:
        keys.remember_passphrase(passphrase)
    try:
        key = find_key(database, keys) if file_kind(database) == "encrypted" else None
    except StoreOpenError as error:
        print(f"memoryctl: {error.reason}", file=io.err)
        return EXIT_PRECONDITION
    rows = export_plaintext(database, key.key if key is not None else None, target)
    io.emit(
        {"output": str(target), "rows": rows},
        lambda out: print(f"wrote a plaintext copy ({rows} rows, mode 0600) to {target}", file=out),
    )
    return EXIT_OK


def certs_init(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    directory = Path(args.dir).expanduser() if args.dir else ctl_home(args.home) / "certs"
    files = init_certs(directory, hosts=args.host or None, days=args.days)
    env = {
        "OSAURUS_TLS_CERT": str(files.server_cert),
        "OSAURUS_TLS_KEY": str(files.server_key),
        "OSAURUS_TLS_CLIENT_CA": str(files.ca_cert),
        "OSAURUS_TLS_CA": str(files.ca_cert),
    }

    def human(out: TextIO) -> None:
        print(f"local CA, server and client certificates written to {directory}", file=out)
        print("servers (mTLS):", file=out)
        for name, value in env.items():
            print(f"  export {name}={value}", file=out)
        print(
            f"clients: OSAURUS_TLS_CA={files.ca_cert} OSAURUS_TLS_CERT={files.client_cert} ", end="", file=out
        )
        print(f"OSAURUS_TLS_KEY={files.client_key}", file=out)

    io.emit({"directory": str(directory), "server_env": env, "client_cert": str(files.client_cert)}, human)
    return EXIT_OK


def certs_usage(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    raise UsageError("usage: memoryctl certs init [--dir DIR] [--host NAME ...] [--days N]")


def _add(sub: argparse._SubParsersAction, name: str, handler: Handler, text: str) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    parser: argparse.ArgumentParser = sub.add_parser(name, help=text, description=text)
    parser.set_defaults(handler=handler)
    return parser


def add_security_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register encrypt, decrypt, rekey, recover, export-plaintext and certs."""
    _passphrase_args(
        _add(sub, "encrypt", encrypt, "encrypt the store (SQLCipher) with a new key file or passphrase")
    )
    _add(sub, "decrypt", decrypt, "convert the store back to plaintext SQLite").add_argument(
        "--yes", action="store_true", help="do not ask for confirmation"
    )
    _passphrase_args(_add(sub, "rekey", rekey, "re-encrypt the store (and vector files) under a new key"))
    recovery = _add(sub, "recover", recover, "recover a degraded store: retry opening it, or reset to empty")
    recovery.add_argument("action", choices=("retry", "reset"))
    recovery.add_argument("--yes", action="store_true", help="do not ask for confirmation (reset)")
    _passphrase_args(recovery, "retry: prompt for the store's passphrase (sent to memoryd, never stored)")
    export = _add(sub, "export-plaintext", export_plain, "write a plaintext SQLite copy of the store (local)")
    export.add_argument("output", help="file to create (must not exist); written 0600")
    export.add_argument("--home", help="OSAURUS_HOME (default $OSAURUS_HOME or ~/.osaurus)")
    _passphrase_args(export)
    certs = _add(sub, "certs", certs_usage, "TLS certificates for non-loopback listening (certs init)")
    commands = certs.add_subparsers(dest="certs_command", metavar="COMMAND")
    init = _add(commands, "init", certs_init, "create a local CA plus server and client certificates")
    init.add_argument("--dir", help="output folder (default $OSAURUS_HOME/certs)")
    init.add_argument("--home", help="OSAURUS_HOME (default $OSAURUS_HOME or ~/.osaurus)")
    init.add_argument(
        "--host", action="append", help="server name or IP (repeatable; default localhost, loopback)"
    )
    init.add_argument("--days", type=int, default=825, help="validity in days (default 825)")


__all__ = ["add_security_commands", "degraded_pairs"]
