"""Cost of opt-in encryption (issue 10): store open time (plaintext, key file, passphrase KDF), conversion time per
row count, encrypted vs plaintext read/write latency measured in the same run, live conversions under concurrent
readers (failed reads: target 0; the longest read), and the per-statement cost of swap-safe connections.

Run alone: `python -m bench.bench_security`. Environment: OSAURUS_BENCH_SECURITY_ROWS (default "10000,50000").
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.report import BenchResult
from memoryd.security.keys import MODE_PASSPHRASE, KeyStore
from memoryd.security.opener import open_memory_store
from memoryd.security.quarantine import StorePaths
from memoryd.storage.conversion import convert_live
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


def _swaps_under_reads(root: Path, readers: int = 4, swaps: int = 6) -> tuple[str, int, str, int]:
    """Live conversions of a 20k-row store while `readers` threads query it: (median conversion, failed reads,
    longest read, reads done)."""
    store = open_store(root / "swaps" / "memory.sqlite")
    _fill(store, 20_000)
    stop, failures, longest, done = threading.Event(), [0], [0.0], [0]

    def read() -> None:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                store.db.scalar("SELECT count(*) FROM transcript")
                store.db.query("SELECT id, content FROM transcript ORDER BY id DESC LIMIT 50")
                with store.db.read():
                    store.db.query("SELECT id FROM transcript WHERE agent_id = 'a' LIMIT 20")
                done[0] += 1
            except Exception:  # counted: the target is zero
                failures[0] += 1
            longest[0] = max(longest[0], time.perf_counter() - started)
        store.db.close()

    threads = [threading.Thread(target=read) for _ in range(readers)]
    for thread in threads:
        thread.start()
    keys: list[bytes | None] = [b"a" * 32, b"b" * 32, None] * (swaps // 3)
    current: bytes | None = None
    took: list[float] = []
    try:
        for new in keys:
            time.sleep(0.1)
            started = time.perf_counter()
            convert_live(store.db, root / "swaps" / ".c", current, new)
            took.append(time.perf_counter() - started)
            current = new
    finally:
        stop.set()
        for thread in threads:
            thread.join(60)
    store.close()
    return f"{statistics.median(took):.2f} s", failures[0], f"{longest[0] * 1000:.0f} ms", done[0]


def _statement_cost(root: Path) -> tuple[str, str]:
    """Median µs of one small SELECT: the swap-safe Database vs a bare sqlite3 connection on the same file."""
    store = open_store(root / "stmt" / "memory.sqlite")
    _fill(store, 1_000)
    raw = sqlite3.connect(str(root / "stmt" / "memory.sqlite"), isolation_level=None)

    def batch(action: Callable[[], object]) -> float:
        started = time.perf_counter()
        for _ in range(2_000):
            action()
        return (time.perf_counter() - started) / 2_000 * 1e6

    sql = "SELECT count(*) FROM agents"
    guarded = statistics.median(batch(lambda: store.db.scalar(sql)) for _ in range(9))
    bare = statistics.median(batch(lambda: raw.execute(sql).fetchone()) for _ in range(9))
    raw.close()
    store.close()
    return f"{guarded:.1f} µs", f"{bare:.1f} µs"


def run() -> list[BenchResult]:
    """Measure and return the headline results (with a markdown detail section)."""
    counts = [int(c) for c in os.environ.get("OSAURUS_BENCH_SECURITY_ROWS", "10000,50000").split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        root = Path(tmp)
        opens = _open_times(root)
        conversions = _conversions(root, counts)
        search_plain, search_enc, insert_plain, insert_enc = _latency(root)
        swap_median, failed_reads, longest_read, reads = _swaps_under_reads(root)
        guarded_us, bare_us = _statement_cost(root)
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
        "",
        "| live conversions, 20k rows, 4 reader threads | value |",
        "| --- | --- |",
        f"| conversion (median of 6: encrypt, rekey, decrypt ×2) | {swap_median} |",
        f"| reads done / failed | {reads} / {failed_reads} |",
        f"| longest read (waits for the swap) | {longest_read} |",
        f"| one small SELECT: swap-safe Database vs bare sqlite3 | {guarded_us} vs {bare_us} |",
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
        BenchResult(
            ISSUE,
            "reads failed during 6 live conversions (4 readers)",
            f"{failed_reads} of {reads + failed_reads}, longest read {longest_read}",
            "0 failed",
        ),
    ]


if __name__ == "__main__":
    for result in run():
        print(f"{result.metric}: {result.value} (target {result.target})")
        if result.detail:
            print(result.detail)
