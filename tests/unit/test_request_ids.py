"""Request ids (servicekit.interceptors.new_request_id): the format uuid4().hex[:16] had, distinct across threads,
no system call per id (os.urandom let go of the GIL on every RPC), and a forked child does not repeat its parent."""

from __future__ import annotations

import os
import re
import threading

import pytest

from servicekit.interceptors import new_request_id


def test_ids_are_16_lowercase_hex_digits_and_distinct_across_threads() -> None:
    found: list[list[str]] = [[] for _ in range(4)]

    def make(out: list[str]) -> None:
        out.extend(new_request_id() for _ in range(5000))

    threads = [threading.Thread(target=make, args=(out,)) for out in found]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = [i for out in found for i in out]
    assert all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_no_system_call_per_id(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(n: int) -> bytes:
        raise AssertionError("os.urandom called for a request id")

    monkeypatch.setattr(os, "urandom", refuse)
    assert new_request_id() != new_request_id()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_does_not_repeat_its_parents_ids() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, then out
        os.close(read)
        os.write(write, new_request_id().encode())
        os._exit(0)
    os.close(write)
    parent_next = new_request_id()
    child_next = os.read(read, 64).decode()
    os.close(read)
    os.waitpid(pid, 0)
    assert re.fullmatch(r"[0-9a-f]{16}", child_next)
    assert child_next != parent_next
