"""servicekit.validate collects every bad field into one INVALID_ARGUMENT with a BadRequest."""

from __future__ import annotations

import pytest

from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.errors import InvalidArgumentError
from servicekit.validate import Violations


def test_collects_all_violations_and_uses_first_reason() -> None:
    v = Violations()
    v.require_id("", "agent_id", max_chars=128, reason="INVALID_AGENT_ID")
    v.require_text("x" * 11, "user_message", max_chars=10)
    v.require_enum(42, pb.Scope.DESCRIPTOR, "scope")
    with pytest.raises(InvalidArgumentError) as caught:
        v.check()
    error = caught.value
    assert error.reason == "INVALID_AGENT_ID"
    assert [f.field for f in error.field_violations] == ["agent_id", "user_message", "scope"]
    assert [f.reason for f in error.field_violations] == [
        "INVALID_AGENT_ID",
        "FIELD_TOO_LONG",
        "INVALID_ENUM",
    ]


def test_ids_are_checked_and_uuids_canonicalised() -> None:
    v = Violations()
    assert v.require_id("0f8fad5b-d9cb-469f-a165-70867728950e", "a", max_chars=128, reason="R") == (
        "0F8FAD5B-D9CB-469F-A165-70867728950E"
    )
    v.require_id("has space", "b", max_chars=128, reason="R")
    v.require_id("a" * 300, "c", max_chars=128, reason="R")
    v.require_id("nul\x00", "d", max_chars=128, reason="R")
    assert [f.field for f in v.items] == ["b", "c", "d"]


def test_unspecified_enum_only_rejected_when_required() -> None:
    v = Violations()
    v.require_enum(0, pb.Scope.DESCRIPTOR, "scope", required=False)
    assert not v.items
    v.require_enum(0, pb.Scope.DESCRIPTOR, "scope")
    assert v.items[0].reason == "MISSING_FIELD"


def test_no_violation_no_error() -> None:
    with Violations() as v:
        v.require_text("fine", "t", max_chars=10)
        v.require_range(0.5, "salience_floor", 0.0, 1.0, "CONFIG_OUT_OF_RANGE")


def _id(value: str) -> tuple[str, list[str]]:
    v = Violations()
    result = v.require_id(value, "agent_id", max_chars=128, reason="INVALID_AGENT_ID")
    return result, [f.reason for f in v.items]


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("ａｇｅｎｔ１", "agent1"),  # fullwidth forms
        ("ﬁle-agent", "file-agent"),  # a ligature
        ("agent-\u212b", "agent-\u00c5"),  # the Angstrom sign is the letter Å
    ],
)
def test_ids_are_nfkc_normalised(given: str, canonical: str) -> None:
    assert _id(given) == (canonical, [])


@pytest.mark.parametrize(
    "bad",
    [
        "agent\u200b1",  # zero-width space
        "agent\u200d1",  # zero-width joiner
        "\ufeffagent",  # byte-order mark
        "agent\u202etxt.exe",  # right-to-left override
        "agent\u2066x\u2069",  # bidi isolates
        "agent\u00ad1",  # soft hyphen (invisible)
        "аgent",  # Cyrillic а among Latin letters
        "agent-ο",  # Greek omicron among Latin letters
        "agent\u00a01",  # non-breaking space (already refused before normalisation)
    ],
)
def test_invisible_bidi_and_mixed_script_ids_are_rejected(bad: str) -> None:
    assert _id(bad)[1] == ["INVALID_AGENT_ID"]


@pytest.mark.parametrize("fine", ["агент", "αβγ-1", "エージェント", "agent-日本", "Agent_42.v2"])
def test_single_script_ids_are_kept(fine: str) -> None:
    assert _id(fine) == (fine, [])
