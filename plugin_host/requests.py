"""Validation of the turn-shaped requests (RunAgent, Complete, StreamComplete) into TurnRequest dataclasses."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.client import MAX_AGENT_ID_CHARS, MAX_CONVERSATION_ID_CHARS
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from plugin_host import convert
from plugin_host.chat import TurnRequest, latest_user_index
from plugin_host.grants import canonical_agent
from servicekit.tenancy import DEFAULT_TENANT
from servicekit.validate import Violations

MAX_MESSAGES = 1000
MAX_MESSAGE_CHARS = 200_000
#: memoryd's limit on a recorded user message.
MAX_USER_CHARS = 50_000
MAX_SCHEMA_CHARS = 100_000
MAX_QUERY_CHARS = 2000


def check_ids(v: Violations, agent_id: str, conversation_id: str) -> tuple[str, str]:
    """Agent (memoryd's limit, UUIDs upper-cased) and conversation ids."""
    agent = v.require_id(agent_id, "agent_id", max_chars=MAX_AGENT_ID_CHARS, reason="INVALID_AGENT_ID")
    conversation = v.require_id(
        conversation_id,
        "conversation_id",
        max_chars=MAX_CONVERSATION_ID_CHARS,
        reason="INVALID_CONVERSATION_ID",
    )
    return canonical_agent(agent), conversation


def turn_request(
    agent_id: str,
    conversation_id: str,
    messages: Sequence[mpb.ChatMessage],
    options: ppb.GenerationOptions,
    json_schema: str = "",
    record: bool | None = None,
    tenant: str = DEFAULT_TENANT,
) -> TurnRequest:
    """Validate one turn; raises one INVALID_ARGUMENT naming every bad field. `record` None means the default:
    a plain chat call is recorded, a call with a JSON schema is not (see should_record). `tenant` (already
    validated) is whose memory the turn uses."""
    with Violations() as v:
        agent, conversation = check_ids(v, agent_id, conversation_id)
        if not messages:
            v.add("messages", "is required (the chat, ending with the user's message)", "MISSING_FIELD")
        elif len(messages) > MAX_MESSAGES:
            v.add(
                "messages",
                f"has {len(messages)} messages; at most {MAX_MESSAGES} allowed",
                "TOO_MANY_MESSAGES",
            )
        else:
            for index, message in enumerate(messages):
                field = f"messages[{index}]"
                v.require_enum(message.role, mpb.Role.DESCRIPTOR, f"{field}.role", reason="INVALID_ROLE")
                v.require_text(
                    message.content, f"{field}.content", max_chars=MAX_MESSAGE_CHARS, required=False
                )
        v.require_range(options.max_tokens, "options.max_tokens", 0, 8192, "INVALID_OPTION")
        v.require_range(options.temperature, "options.temperature", 0.0, 2.0, "INVALID_OPTION")
        v.require_range(
            options.model_context_tokens, "options.model_context_tokens", 0, 10_000_000, "INVALID_OPTION"
        )
        v.require_text(json_schema, "json_schema", max_chars=MAX_SCHEMA_CHARS, required=False)
        v.check()  # the checks below need valid roles
        chat = tuple(convert.messages_from_proto(messages))
        latest = latest_user_index(chat)
        if latest is None:
            v.add("messages", "must contain a user message", "MISSING_USER_MESSAGE")
        elif not chat[latest].content.strip() and not chat[latest].is_multimodal:
            v.add(f"messages[{latest}].content", "the latest user message is empty", "MISSING_FIELD")
        elif len(chat[latest].content) > MAX_USER_CHARS:
            v.add(
                f"messages[{latest}].content", f"is longer than {MAX_USER_CHARS} characters", "FIELD_TOO_LONG"
            )
    return TurnRequest(
        agent,
        conversation,
        chat,
        convert.options_from_proto(options),
        json_schema,
        should_record(record, json_schema),
        tenant,
    )


def should_record(record: bool | None, json_schema: str) -> bool:
    """Whether a plugin's model call becomes a turn of the agent's memory: as asked, else only plain chat calls.

    A call with a JSON schema is a plugin's own utility call (a title, a classification, an extraction) whose
    user message the plugin wrote, not the user: memory must learn only what the user said."""
    if record is not None:
        return record
    return not json_schema
