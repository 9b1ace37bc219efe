"""POST /memory/ingest's JSON body straight to memoryd's IngestRequest, for the fast path (gateway.fastpath).

Why: pydantic's IngestRequest plus building the message from the model cost about 40-60 µs a request on this
machine, a tenth of the gateway's whole ingest overhead. Here the body is read with the standard library's json
and checked by exact type; the message is built directly.

Only the plain form is taken: a UTF-8 JSON object with no other keys than IngestRequest's, string ids, a list of
{"user", "assistant"?} objects of strings, `session_date` a string or null, `skip_extraction` true or false.
Anything else — lax forms pydantic would coerce (`"skip_extraction": 1`), every error, a string protobuf cannot
hold — is None, and the FastAPI route (IngestRequest) decides, so every error keeps its one 400 JSON. Whatever this
accepts IngestRequest accepts too, and makes the same message (tests/unit/test_gateway_ingest_body.py).
"""

from __future__ import annotations

import json

from gateway.routes_memory import parse_session_date
from osaurus.memory.v1 import memory_pb2 as mpb

_FIELDS = frozenset({"agent_id", "conversation_id", "turns", "session_date", "skip_extraction"})
_TURN_FIELDS = frozenset({"user", "assistant"})


def parse_ingest(body: bytes) -> mpb.IngestRequest | None:
    """The gRPC request of a plain, well-typed body; None for anything the FastAPI route should answer.

    Raises GatewayError (INVALID_SESSION_DATE) for a `session_date` that is no ISO 8601 date, as the route does.
    """
    try:
        # Decoded first: json.loads(bytes) would also guess UTF-16 and UTF-32, which the model refuses.
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if type(data) is not dict or not _FIELDS.issuperset(data):
        return None
    agent_id, conversation_id, turns = data.get("agent_id"), data.get("conversation_id"), data.get("turns")
    skip_extraction = data.get("skip_extraction", False)
    session_date = data.get("session_date")
    if (
        type(agent_id) is not str
        or type(conversation_id) is not str
        or type(turns) is not list
        or type(skip_extraction) is not bool
        # Not ASCII: possibly a lone surrogate, which the model calls malformed JSON; let it say so.
        or (session_date is not None and (type(session_date) is not str or not session_date.isascii()))
    ):
        return None
    message = mpb.IngestRequest(skip_extraction=skip_extraction)
    try:
        message.agent_id = agent_id
        message.conversation_id = conversation_id
        add = message.turns.add
        for turn in turns:
            if type(turn) is not dict or not _TURN_FIELDS.issuperset(turn):
                return None
            user, assistant = turn.get("user"), turn.get("assistant", "")
            if type(user) is not str or type(assistant) is not str:
                return None
            add(user=user, assistant=assistant)
    except ValueError:  # UnicodeEncodeError: a lone surrogate ("\ud800"), malformed JSON to the model
        return None
    if session_date is not None:
        message.session_time.CopyFrom(parse_session_date(session_date))
    return message
