"""Cost of opt-in encryption (issue 10): store open time (plaintext, key file, passphrase KDF), conversion time per
row count, and encrypted vs plaintext read/write latency measured in the same run.

Run alone: `python -m bench.bench_security`. Environment: OSAURUS_BENCH_SECURITY_ROWS (default "10000,50000").
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.report import BenchResult
from memoryd.security.convert import convert_live
from memoryd.security.keys import MODE_PASSPHRASE, KeyStore
from memoryd.security.opener import open_memory_store
from memoryd.security.quarantine import StorePaths
from memoryd.storage.store import Store, open_store

ISSUE = 10
WORDS = [
    "harbour",
    "lighthouse",
    "keeper",
    "marathon",
    "recipe",
    "garden",
    "invoice",
    "meeting",
    "travel",
    "kyoto",
    "guitar",
]


def _paths(home: Path) -> StorePaths:
    return StorePaths(
        home / "memory" / "memory.sqlite", home / "memory" / "vectors", home / "keys", home / "q"
    )


def _fill(store: Store, rows: int) -> None:
    with store.db.write():
        store.db.execute("INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES ('a', 1, 1)")
        for i in range(rows):
            text = " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(12)) + f" turn {i}"
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
                "created_at_ms) VALUES ('a', ?, ?, 'user', ?, 16, 1)",
                (f"c{i // 50}", i, text),
            )


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    return f"p50 {statistics.median(ordered) * 1000:.2f} ms, p95 {ordered[int(len(ordered) * 0.95) - 1] * 1000:.2f} ms"


def _time(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return samples


def _open_times(root: Path) -> list[tuple[str, str]]:
    """open_memory_store end to end (sniff, key lookup, migrations check) for the three postures."""
    rows: list[tuple[str, str]] = []
    for mode in ("plaintext", "key_file", "passphrase"):
        home = root / f"open-{mode}"
        (home / "memory").mkdir(parents=True)
        keys = KeyStore(home / "keys", passphrase_file=home / "pass")
        (home / "pass").write_text("correct horse battery\n")
        store = open_store(home / "memory" / "memory.sqlite")
        _fill(store, 100)
        if mode != "plaintext":
            target = (
                keys.new_key_file()
                if mode == "key_file"
                else keys.new_passphrase_key("correct horse battery")
            )
            convert_live(store.db, home / "memory" / ".c", None, target.key)
            keys.set_posture(MODE_PASSPHRASE if mode == "passphrase" else "key_file", target.key_id)
        store.close()

        def reopen(home: Path = home) -> None:
            fresh = KeyStore(home / "keys", passphrase_file=home / "pass")  # nothing cached between opens
            opened = open_memory_store(_paths(home), fresh)
            assert opened.failure is None
            opened.store.close()

        rows.append((mode, _ms(_time(reopen, 10))))
    return rows


def _conversions(root: Path, counts: list[int]) -> list[tuple[int, str, str, str, str]]:
    out = []
    for count in counts:
        home = root / f"convert-{count}"
        store = open_store(home / "memory" / "memory.sqlite")
        _fill(store, count)
        size_mb = store.db.file_bytes() / 1e6
        staged = home / "memory" / ".converting"
        encrypt = convert_live(store.db, staged, None, b"k" * 32)
        rekey = convert_live(store.db, staged, b"k" * 32, b"j" * 32)
        decrypt = convert_live(store.db, staged, b"j" * 32, None)
        store.close()
        out.append(
            (
                count,
                f"{size_mb:.1f} MB",
                f"{encrypt.copy_s + encrypt.swap_s:.2f} s",
                f"{rekey.copy_s + rekey.swap_s:.2f} s",
                f"{decrypt.copy_s + decrypt.swap_s:.2f} s",
            )
        )
    return out


def _latency(root: Path) -> tuple[str, str, str, str]:
    """FTS query and single-row insert latency, plaintext vs encrypted, on the same 20k-row data."""
    results: dict[str, tuple[list[float], list[float]]] = {}
    for mode in ("plaintext", "encrypted"):
        home = root / f"latency-{mode}"
        store = open_store(home / "memory" / "memory.sqlite")
        _fill(store, 20_000)
        if mode == "encrypted":
            convert_live(store.db, home / "memory" / ".c", None, b"k" * 32)
        queries = iter([f"{WORDS[i % len(WORDS)]} {WORDS[(i * 3) % len(WORDS)]}" for i in range(200)])
        chunks = iter(range(200))

        def search(store: Store = store, queries: Iterator[str] = queries) -> None:
            store.db.query(
                "SELECT rowid, bm25(fts_transcript) FROM fts_transcript WHERE fts_transcript MATCH ? "
                "ORDER BY bm25(fts_transcript) LIMIT 20",
                (next(queries),),
            )

        def insert(store: Store = store, chunks: Iterator[int] = chunks) -> None:
            with store.db.write():
                store.db.execute(
                    "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
                    "created_at_ms) VALUES ('a', 'bench', ?, 'user', 'a new turn about the harbour', 8, 1)",
                    (next(chunks),),
                )

        results[mode] = (_time(search, 200), _time(insert, 200))
        store.close()
    plain, enc = results["plaintext"], results["encrypted"]
    return _ms(plain[0]), _ms(enc[0]), _ms(plain[1]), _ms(enc[1])


def run() -> list[BenchResult]:
    """Measure and return the headline results (with a markdown detail section)."""
    counts = [int(c) for c in os.environ.get("OSAURUS_BENCH_SECURITY_ROWS", "10000,50000").split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        root = Path(tmp)
        opens = _open_times(root)
        conversions = _conversions(root, counts)
        search_plain, search_enc, insert_plain, insert_enc = _latency(root)
    lines = ["| store | open (sniff + key + migrations check) |", "| --- | --- |"]
    lines += [f"| {mode} | {value} |" for mode, value in opens]
    lines += ["", "| transcript rows | file | encrypt | rekey | decrypt |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {c} | {size} | {e} | {r} | {d} |" for c, size, e, r, d in conversions]
    lines += [
        "",
        "| 20k rows | plaintext | encrypted |",
        "| --- | --- | --- |",
        f"| FTS5 bm25 query | {search_plain} | {search_enc} |",
        f"| one-row write transaction | {insert_plain} | {insert_enc} |",
        "",
        "Key files open with a raw 32-byte key (no per-connection PBKDF2); a passphrase costs one scrypt "
        "(n=2^15, r=8) per open. Conversion = sqlcipher_export to a new file + fsync + atomic rename.",
    ]
    detail = "\n".join(lines)
    largest = conversions[-1]
    return [
        BenchResult(ISSUE, "open encrypted store (key file)", opens[1][1], "no KDF per connection", detail),
        BenchResult(ISSUE, "open encrypted store (passphrase, scrypt)", opens[2][1], "< 0.5 s"),
        BenchResult(
            ISSUE, f"encrypt {largest[0]} rows ({largest[1]})", largest[2], "one command, atomic swap"
        ),
        BenchResult(ISSUE, "FTS query plaintext → encrypted", f"{search_plain} → {search_enc}", "same order"),
    ]


if __name__ == "__main__":
    for result in run():
        print(f"{result.metric}: {result.value} (target {result.target})")
        if result.detail:
            print(result.detail)
