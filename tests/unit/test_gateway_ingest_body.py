"""gateway/ingest_body.py: the fast path's POST /memory/ingest parser takes only what IngestRequest takes, and makes
the message the FastAPI route makes; everything else is left to the route (None)."""

from __future__ import annotations

import json

import pytest

from gateway.errors import GatewayError
from gateway.ingest_body import parse_ingest
from gateway.routes_memory import ingest_message
from gateway.schemas import IngestRequest
from osaurus.memory.v1 import memory_pb2 as mpb

PLAIN: dict[str, object] = {
    "agent_id": "a",
    "conversation_id": "c",
    "turns": [{"user": "Hi, my name is Alice", "assistant": "Hello Alice!"}, {"user": "I work at Acme"}],
}


def _body(**over: object) -> bytes:
    return json.dumps({**PLAIN, **over}).encode()


#: Bodies the fast path must take itself (the common, well-typed forms).
TAKEN = [
    _body(),
    _body(skip_extraction=True),
    _body(skip_extraction=False, session_date=None),
    _body(session_date="2026-03-01"),
    _body(session_date="2026-03-01T09:30:00+02:00"),
    _body(session_date=" 2026-03-01T09:30:00 "),
    _body(agent_id="3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b"),
    _body(turns=[]),
    _body(turns=[{"user": "", "assistant": ""}]),
    json.dumps({**PLAIN, "turns": [{"user": "café ☕ 😀"}]}, ensure_ascii=False).encode(),
    # ensure_ascii writes the emoji as a surrogate pair escape: a valid pair, taken.
    json.dumps({**PLAIN, "turns": [{"user": "café ☕ 😀"}]}, ensure_ascii=True).encode(),
    b'{"agent_id":"a","agent_id":"b","conversation_id":"c","turns":[{"user":"x"}]}',  # last one wins, as pydantic
    b' \n{"agent_id" : "a", "conversation_id":"c", "turns":[{"user":"x"}]}\n',
]

#: Bodies the route must answer (lax forms pydantic coerces, and every error).
LEFT = [
    b"",
    b"{nope",
    b"null",
    b"[]",
    b'"text"',
    b"\xef\xbb\xbf" + _body(),  # UTF-8 byte order mark
    _body().decode().encode("utf-16"),
    b'{"agent_id":"a\\ud800","conversation_id":"c","turns":[{"user":"x"}]}',  # lone surrogate
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x\\udfff"}]}',
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x"}],"session_date":"2026-01-01\\ud800"}',
    b"\xff" + _body(),
    b"[" * 100_000,
    _body(surprise=1),
    _body(skip_extraction=1),
    _body(skip_extraction="true"),
    _body(skip_extraction=None),
    _body(agent_id=7),
    _body(agent_id=None),
    _body(conversation_id=["c"]),
    _body(turns={"user": "x"}),
    _body(turns=None),
    _body(turns=["x"]),
    _body(turns=[{"assistant": "x"}]),
    _body(turns=[{"user": "x", "surprise": 1}]),
    _body(turns=[{"user": 1}]),
    _body(turns=[{"user": "x", "assistant": None}]),
    _body(session_date=20260101),
    _body(session_date="٢٠٢٦-٠١-٠١"),
    json.dumps({"conversation_id": "c", "turns": []}).encode(),
    json.dumps({"agent_id": "a", "turns": []}).encode(),
    json.dumps({"agent_id": "a", "conversation_id": "c"}).encode(),
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x"}],"skip_extraction":NaN}',
]


def _routed(body: bytes) -> mpb.IngestRequest | str:
    """What the FastAPI route makes of a body (Starlette's json.loads, then the model): the message, or why not."""
    try:
        model = IngestRequest.model_validate(json.loads(body))
    except (ValueError, RecursionError) as error:
        return type(error).__name__
    try:
        return ingest_message(model)
    except GatewayError as error:
        return error.reason
    except UnicodeEncodeError:
        return "MALFORMED_JSON"  # the app's handler for a lone surrogate


@pytest.mark.parametrize("body", TAKEN, ids=range(len(TAKEN)))
def test_taken_bodies_make_the_routes_message(body: bytes) -> None:
    message = parse_ingest(body)
    assert message is not None
    assert message == _routed(body)


@pytest.mark.parametrize("body", LEFT, ids=range(len(LEFT)))
def test_other_bodies_are_left_to_the_route(body: bytes) -> None:
    assert parse_ingest(body) is None


def test_left_bodies_include_forms_the_route_accepts() -> None:
    # The fast path is a subset: the route still takes the lax forms (same message shape, coerced values).
    routed = _routed(_body(skip_extraction=1))
    assert isinstance(routed, mpb.IngestRequest) and routed.skip_extraction


@pytest.mark.parametrize("date", ["last tuesday", "2026-13-01", "", "2026-02-30T10:00"])
def test_bad_session_date_is_the_routes_error(date: str) -> None:
    body = _body(session_date=date)
    with pytest.raises(GatewayError) as raised:
        parse_ingest(body)
    assert raised.value.reason == "INVALID_SESSION_DATE" == _routed(body)
    assert raised.value.field_violations[0].field == "session_date"


def test_messages_keep_every_field() -> None:
    message = parse_ingest(_body(skip_extraction=True, session_date="2026-03-01"))
    assert message is not None
    assert (message.agent_id, message.conversation_id, message.skip_extraction) == ("a", "c", True)
    assert [(t.user, t.assistant) for t in message.turns] == [
        ("Hi, my name is Alice", "Hello Alice!"),
        ("I work at Acme", ""),
    ]
    assert message.session_time.ToJsonString() == "2026-03-01T00:00:00Z"
