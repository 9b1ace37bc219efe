"""Pure parts of the composed path and the supervisor: splicing the block, skip rules, backoff, watchdog."""

from __future__ import annotations

import time

import pytest

from plugin_host.chat import Attachment, ChatMessage
from plugin_host.injection import prepend_block, skip_reason
from plugin_host.runner.watchdog import Watchdog
from plugin_host.supervisor import backoff_delay

BLOCK = "[Memory]\n- likes tea\n[/Memory]"


def test_block_goes_to_the_latest_user_message_only() -> None:
    messages = (
        ChatMessage("system", "sys"),
        ChatMessage("user", "first"),
        ChatMessage("assistant", "reply"),
        ChatMessage("user", "second"),
        ChatMessage("tool", "tool output"),
    )

    out = prepend_block(messages, BLOCK)

    assert [m.content for m in out] == ["sys", "first", "reply", f"{BLOCK}\n\nsecond", "tool output"]
    assert messages[3].content == "second", "the input is not modified"


@pytest.mark.parametrize("block", ["", "   \n"])
def test_blank_block_changes_nothing(block: str) -> None:
    messages = (ChatMessage("user", "hi"),)
    assert prepend_block(messages, block) == messages


def test_no_user_message_changes_nothing() -> None:
    messages = (ChatMessage("system", "sys"),)
    assert prepend_block(messages, BLOCK) == messages


@pytest.mark.parametrize(
    ("messages", "context_tokens", "expected"),
    [
        ((ChatMessage("user", "hi"),), 0, None),
        ((ChatMessage("user", "hi"),), 8192, None),
        ((ChatMessage("user", "hi"),), 2048, None),
        ((ChatMessage("user", "hi"),), 2047, "context_too_small:2047"),
        ((ChatMessage("user", "hi"),), 1024, "context_too_small:1024"),
        ((ChatMessage("user", "see", (Attachment("image/png", b"x"),)),), 0, "multimodal"),
        ((ChatMessage("assistant", "only"),), 0, "no_user_message"),
    ],
)
def test_skip_rules(messages: tuple[ChatMessage, ...], context_tokens: int, expected: str | None) -> None:
    assert skip_reason(messages, context_tokens) == expected


def test_backoff_doubles_and_caps() -> None:
    assert [backoff_delay(n, 0.5, 4.0) for n in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


def test_watchdog_reports_only_commands_past_the_limit() -> None:
    watchdog = Watchdog(limit_s=0.05)
    with watchdog.track("slow"):
        assert watchdog.overdue() is None
        time.sleep(0.08)
        assert watchdog.overdue() == "slow"
    assert watchdog.overdue() is None
