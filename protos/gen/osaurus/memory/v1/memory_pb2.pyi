import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_SYSTEM: _ClassVar[Role]
    ROLE_USER: _ClassVar[Role]
    ROLE_ASSISTANT: _ClassVar[Role]
    ROLE_TOOL: _ClassVar[Role]

class Scope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCOPE_UNSPECIFIED: _ClassVar[Scope]
    SCOPE_PINNED: _ClassVar[Scope]
    SCOPE_EPISODES: _ClassVar[Scope]
    SCOPE_TRANSCRIPT: _ClassVar[Scope]

class Section(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SECTION_UNSPECIFIED: _ClassVar[Section]
    SECTION_NONE: _ClassVar[Section]
    SECTION_IDENTITY: _ClassVar[Section]
    SECTION_PINNED: _ClassVar[Section]
    SECTION_EPISODES: _ClassVar[Section]
    SECTION_TRANSCRIPT: _ClassVar[Section]

class ItemKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ITEM_KIND_UNSPECIFIED: _ClassVar[ItemKind]
    ITEM_KIND_PINNED_FACT: _ClassVar[ItemKind]
    ITEM_KIND_EPISODE: _ClassVar[ItemKind]
    ITEM_KIND_TRANSCRIPT_TURN: _ClassVar[ItemKind]
    ITEM_KIND_IDENTITY_FACT: _ClassVar[ItemKind]
ROLE_UNSPECIFIED: Role
ROLE_SYSTEM: Role
ROLE_USER: Role
ROLE_ASSISTANT: Role
ROLE_TOOL: Role
SCOPE_UNSPECIFIED: Scope
SCOPE_PINNED: Scope
SCOPE_EPISODES: Scope
SCOPE_TRANSCRIPT: Scope
SECTION_UNSPECIFIED: Section
SECTION_NONE: Section
SECTION_IDENTITY: Section
SECTION_PINNED: Section
SECTION_EPISODES: Section
SECTION_TRANSCRIPT: Section
ITEM_KIND_UNSPECIFIED: ItemKind
ITEM_KIND_PINNED_FACT: ItemKind
ITEM_KIND_EPISODE: ItemKind
ITEM_KIND_TRANSCRIPT_TURN: ItemKind
ITEM_KIND_IDENTITY_FACT: ItemKind

class ItemRef(_message.Message):
    __slots__ = ("kind", "id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    kind: ItemKind
    id: str
    def __init__(self, kind: _Optional[_Union[ItemKind, str]] = ..., id: _Optional[str] = ...) -> None: ...

class Attachment(_message.Message):
    __slots__ = ("mime_type", "data", "uri")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    data: bytes
    uri: str
    def __init__(self, mime_type: _Optional[str] = ..., data: _Optional[bytes] = ..., uri: _Optional[str] = ...) -> None: ...

class ChatMessage(_message.Message):
    __slots__ = ("role", "content", "attachments")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ATTACHMENTS_FIELD_NUMBER: _ClassVar[int]
    role: Role
    content: str
    attachments: _containers.RepeatedCompositeFieldContainer[Attachment]
    def __init__(self, role: _Optional[_Union[Role, str]] = ..., content: _Optional[str] = ..., attachments: _Optional[_Iterable[_Union[Attachment, _Mapping]]] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("user", "assistant")
    USER_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_FIELD_NUMBER: _ClassVar[int]
    user: str
    assistant: str
    def __init__(self, user: _Optional[str] = ..., assistant: _Optional[str] = ...) -> None: ...

class Agent(_message.Message):
    __slots__ = ("agent_id", "display_name", "memory_enabled", "search_memory_enabled", "memory_entry_count", "create_time", "update_time")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    SEARCH_MEMORY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ENTRY_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    display_name: str
    memory_enabled: bool
    search_memory_enabled: bool
    memory_entry_count: int
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, agent_id: _Optional[str] = ..., display_name: _Optional[str] = ..., memory_enabled: _Optional[bool] = ..., search_memory_enabled: _Optional[bool] = ..., memory_entry_count: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class BufferTurnRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "user_message", "assistant_message", "occur_time", "request_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OCCUR_TIME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    user_message: str
    assistant_message: str
    occur_time: _timestamp_pb2.Timestamp
    request_id: str
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., user_message: _Optional[str] = ..., assistant_message: _Optional[str] = ..., occur_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class BufferTurnResponse(_message.Message):
    __slots__ = ("signal_id", "transcript_ids", "distillation_scheduled", "flush_time", "replayed")
    SIGNAL_ID_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_IDS_FIELD_NUMBER: _ClassVar[int]
    DISTILLATION_SCHEDULED_FIELD_NUMBER: _ClassVar[int]
    FLUSH_TIME_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    signal_id: int
    transcript_ids: _containers.RepeatedScalarFieldContainer[int]
    distillation_scheduled: bool
    flush_time: _timestamp_pb2.Timestamp
    replayed: bool
    def __init__(self, signal_id: _Optional[int] = ..., transcript_ids: _Optional[_Iterable[int]] = ..., distillation_scheduled: _Optional[bool] = ..., flush_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., replayed: _Optional[bool] = ...) -> None: ...

class EndSessionRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "wait")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    wait: bool
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., wait: _Optional[bool] = ...) -> None: ...

class EndSessionResponse(_message.Message):
    __slots__ = ("signals_flushed", "outcome", "episode_id")
    SIGNALS_FLUSHED_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    signals_flushed: int
    outcome: str
    episode_id: int
    def __init__(self, signals_flushed: _Optional[int] = ..., outcome: _Optional[str] = ..., episode_id: _Optional[int] = ...) -> None: ...

class IngestRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "turns", "session_time", "skip_extraction")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    SESSION_TIME_FIELD_NUMBER: _ClassVar[int]
    SKIP_EXTRACTION_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    turns: _containers.RepeatedCompositeFieldContainer[Turn]
    session_time: _timestamp_pb2.Timestamp
    skip_extraction: bool
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., turns: _Optional[_Iterable[_Union[Turn, _Mapping]]] = ..., session_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., skip_extraction: _Optional[bool] = ...) -> None: ...

class IngestResponse(_message.Message):
    __slots__ = ("turns_ingested", "distillation", "episode_id")
    TURNS_INGESTED_FIELD_NUMBER: _ClassVar[int]
    DISTILLATION_FIELD_NUMBER: _ClassVar[int]
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    turns_ingested: int
    distillation: str
    episode_id: int
    def __init__(self, turns_ingested: _Optional[int] = ..., distillation: _Optional[str] = ..., episode_id: _Optional[int] = ...) -> None: ...

class SyncNowRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class SessionOutcome(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "outcome", "episode_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    outcome: str
    episode_id: int
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., outcome: _Optional[str] = ..., episode_id: _Optional[int] = ...) -> None: ...

class SyncNowResponse(_message.Message):
    __slots__ = ("outcomes",)
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    outcomes: _containers.RepeatedCompositeFieldContainer[SessionOutcome]
    def __init__(self, outcomes: _Optional[_Iterable[_Union[SessionOutcome, _Mapping]]] = ...) -> None: ...

class AssembleContextRequest(_message.Message):
    __slots__ = ("agent_id", "query", "budget_tokens", "conversation_id", "model_context_tokens")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_CONTEXT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    query: str
    budget_tokens: int
    conversation_id: str
    model_context_tokens: int
    def __init__(self, agent_id: _Optional[str] = ..., query: _Optional[str] = ..., budget_tokens: _Optional[int] = ..., conversation_id: _Optional[str] = ..., model_context_tokens: _Optional[int] = ...) -> None: ...

class GateFeature(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: float
    def __init__(self, name: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...

class SectionScore(_message.Message):
    __slots__ = ("section", "probability")
    SECTION_FIELD_NUMBER: _ClassVar[int]
    PROBABILITY_FIELD_NUMBER: _ClassVar[int]
    section: Section
    probability: float
    def __init__(self, section: _Optional[_Union[Section, str]] = ..., probability: _Optional[float] = ...) -> None: ...

class GateDecision(_message.Message):
    __slots__ = ("model_version", "features", "scores", "budget_tokens")
    MODEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    model_version: str
    features: _containers.RepeatedCompositeFieldContainer[GateFeature]
    scores: _containers.RepeatedCompositeFieldContainer[SectionScore]
    budget_tokens: int
    def __init__(self, model_version: _Optional[str] = ..., features: _Optional[_Iterable[_Union[GateFeature, _Mapping]]] = ..., scores: _Optional[_Iterable[_Union[SectionScore, _Mapping]]] = ..., budget_tokens: _Optional[int] = ...) -> None: ...

class AssembleContextResponse(_message.Message):
    __slots__ = ("block", "section", "reason", "block_tokens", "placed", "cached", "items_considered", "items_dropped", "overrides_tokens", "decision")
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BLOCK_TOKENS_FIELD_NUMBER: _ClassVar[int]
    PLACED_FIELD_NUMBER: _ClassVar[int]
    CACHED_FIELD_NUMBER: _ClassVar[int]
    ITEMS_CONSIDERED_FIELD_NUMBER: _ClassVar[int]
    ITEMS_DROPPED_FIELD_NUMBER: _ClassVar[int]
    OVERRIDES_TOKENS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    block: str
    section: Section
    reason: str
    block_tokens: int
    placed: _containers.RepeatedCompositeFieldContainer[ItemRef]
    cached: bool
    items_considered: int
    items_dropped: int
    overrides_tokens: int
    decision: GateDecision
    def __init__(self, block: _Optional[str] = ..., section: _Optional[_Union[Section, str]] = ..., reason: _Optional[str] = ..., block_tokens: _Optional[int] = ..., placed: _Optional[_Iterable[_Union[ItemRef, _Mapping]]] = ..., cached: _Optional[bool] = ..., items_considered: _Optional[int] = ..., items_dropped: _Optional[int] = ..., overrides_tokens: _Optional[int] = ..., decision: _Optional[_Union[GateDecision, _Mapping]] = ...) -> None: ...

class InjectMemoryRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "messages", "model_context_tokens", "budget_tokens")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    MODEL_CONTEXT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    messages: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    model_context_tokens: int
    budget_tokens: int
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ..., model_context_tokens: _Optional[int] = ..., budget_tokens: _Optional[int] = ...) -> None: ...

class InjectMemoryResponse(_message.Message):
    __slots__ = ("messages", "injected", "section", "reason", "block_tokens", "decision")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    INJECTED_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BLOCK_TOKENS_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    injected: bool
    section: Section
    reason: str
    block_tokens: int
    decision: GateDecision
    def __init__(self, messages: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ..., injected: _Optional[bool] = ..., section: _Optional[_Union[Section, str]] = ..., reason: _Optional[str] = ..., block_tokens: _Optional[int] = ..., decision: _Optional[_Union[GateDecision, _Mapping]] = ...) -> None: ...

class SearchMemoryRequest(_message.Message):
    __slots__ = ("agent_id", "scope", "query", "limit")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    scope: Scope
    query: str
    limit: int
    def __init__(self, agent_id: _Optional[str] = ..., scope: _Optional[_Union[Scope, str]] = ..., query: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("item", "score", "text", "conversation_id", "occur_time", "role", "salience", "topics")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    OCCUR_TIME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SALIENCE_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    item: ItemRef
    score: float
    text: str
    conversation_id: str
    occur_time: _timestamp_pb2.Timestamp
    role: Role
    salience: float
    topics: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, item: _Optional[_Union[ItemRef, _Mapping]] = ..., score: _Optional[float] = ..., text: _Optional[str] = ..., conversation_id: _Optional[str] = ..., occur_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., role: _Optional[_Union[Role, str]] = ..., salience: _Optional[float] = ..., topics: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchMemoryResponse(_message.Message):
    __slots__ = ("hits", "method")
    HITS_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    method: str
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., method: _Optional[str] = ...) -> None: ...

class ListAgentsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAgentsResponse(_message.Message):
    __slots__ = ("agents", "next_page_token")
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.RepeatedCompositeFieldContainer[Agent]
    next_page_token: str
    def __init__(self, agents: _Optional[_Iterable[_Union[Agent, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetAgentRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetAgentResponse(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: Agent
    def __init__(self, agent: _Optional[_Union[Agent, _Mapping]] = ...) -> None: ...

class UpsertAgentRequest(_message.Message):
    __slots__ = ("agent_id", "display_name", "memory_enabled", "search_memory_enabled")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    SEARCH_MEMORY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    display_name: str
    memory_enabled: bool
    search_memory_enabled: bool
    def __init__(self, agent_id: _Optional[str] = ..., display_name: _Optional[str] = ..., memory_enabled: _Optional[bool] = ..., search_memory_enabled: _Optional[bool] = ...) -> None: ...

class UpsertAgentResponse(_message.Message):
    __slots__ = ("agent", "created")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    agent: Agent
    created: bool
    def __init__(self, agent: _Optional[_Union[Agent, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class DeleteAgentRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class DeleteAgentResponse(_message.Message):
    __slots__ = ("rows_deleted", "vectors_deleted")
    ROWS_DELETED_FIELD_NUMBER: _ClassVar[int]
    VECTORS_DELETED_FIELD_NUMBER: _ClassVar[int]
    rows_deleted: int
    vectors_deleted: int
    def __init__(self, rows_deleted: _Optional[int] = ..., vectors_deleted: _Optional[int] = ...) -> None: ...

class Override(_message.Message):
    __slots__ = ("id", "text", "create_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class IdentityFact(_message.Message):
    __slots__ = ("id", "text", "source_agent_id", "source_episode_id", "source_count", "create_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    source_agent_id: str
    source_episode_id: int
    source_count: int
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ..., source_agent_id: _Optional[str] = ..., source_episode_id: _Optional[int] = ..., source_count: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Identity(_message.Message):
    __slots__ = ("overrides", "content", "facts", "model", "generate_time", "version")
    OVERRIDES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    GENERATE_TIME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    overrides: _containers.RepeatedCompositeFieldContainer[Override]
    content: str
    facts: _containers.RepeatedCompositeFieldContainer[IdentityFact]
    model: str
    generate_time: _timestamp_pb2.Timestamp
    version: int
    def __init__(self, overrides: _Optional[_Iterable[_Union[Override, _Mapping]]] = ..., content: _Optional[str] = ..., facts: _Optional[_Iterable[_Union[IdentityFact, _Mapping]]] = ..., model: _Optional[str] = ..., generate_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., version: _Optional[int] = ...) -> None: ...

class GetIdentityRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetIdentityResponse(_message.Message):
    __slots__ = ("identity",)
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    identity: Identity
    def __init__(self, identity: _Optional[_Union[Identity, _Mapping]] = ...) -> None: ...

class AddOverrideRequest(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class AddOverrideResponse(_message.Message):
    __slots__ = ("override",)
    OVERRIDE_FIELD_NUMBER: _ClassVar[int]
    override: Override
    def __init__(self, override: _Optional[_Union[Override, _Mapping]] = ...) -> None: ...

class RemoveOverrideRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RemoveOverrideResponse(_message.Message):
    __slots__ = ("identity",)
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    identity: Identity
    def __init__(self, identity: _Optional[_Union[Identity, _Mapping]] = ...) -> None: ...

class RunConsolidationRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ConsolidationStep(_message.Message):
    __slots__ = ("name", "rows_changed", "vectors_deleted", "duration_ms", "skip_reason", "error")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROWS_CHANGED_FIELD_NUMBER: _ClassVar[int]
    VECTORS_DELETED_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    SKIP_REASON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    name: str
    rows_changed: int
    vectors_deleted: int
    duration_ms: int
    skip_reason: str
    error: str
    def __init__(self, name: _Optional[str] = ..., rows_changed: _Optional[int] = ..., vectors_deleted: _Optional[int] = ..., duration_ms: _Optional[int] = ..., skip_reason: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class ConsolidationReport(_message.Message):
    __slots__ = ("start_time", "duration_ms", "steps", "trigger", "failed_steps")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    FAILED_STEPS_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    duration_ms: int
    steps: _containers.RepeatedCompositeFieldContainer[ConsolidationStep]
    trigger: str
    failed_steps: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., duration_ms: _Optional[int] = ..., steps: _Optional[_Iterable[_Union[ConsolidationStep, _Mapping]]] = ..., trigger: _Optional[str] = ..., failed_steps: _Optional[_Iterable[str]] = ...) -> None: ...

class RunConsolidationResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: ConsolidationReport
    def __init__(self, report: _Optional[_Union[ConsolidationReport, _Mapping]] = ...) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AgentStats(_message.Message):
    __slots__ = ("agent_id", "pinned_facts", "episodes", "transcript_turns", "pending_signals")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PINNED_FACTS_FIELD_NUMBER: _ClassVar[int]
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_TURNS_FIELD_NUMBER: _ClassVar[int]
    PENDING_SIGNALS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    pinned_facts: int
    episodes: int
    transcript_turns: int
    pending_signals: int
    def __init__(self, agent_id: _Optional[str] = ..., pinned_facts: _Optional[int] = ..., episodes: _Optional[int] = ..., transcript_turns: _Optional[int] = ..., pending_signals: _Optional[int] = ...) -> None: ...

class ProcessingStats(_message.Message):
    __slots__ = ("total_calls", "success_rate", "mean_duration_ms", "items_dropped", "superseded_facts")
    class ItemsDroppedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    TOTAL_CALLS_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_RATE_FIELD_NUMBER: _ClassVar[int]
    MEAN_DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    ITEMS_DROPPED_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDED_FACTS_FIELD_NUMBER: _ClassVar[int]
    total_calls: int
    success_rate: float
    mean_duration_ms: float
    items_dropped: _containers.ScalarMap[str, int]
    superseded_facts: int
    def __init__(self, total_calls: _Optional[int] = ..., success_rate: _Optional[float] = ..., mean_duration_ms: _Optional[float] = ..., items_dropped: _Optional[_Mapping[str, int]] = ..., superseded_facts: _Optional[int] = ...) -> None: ...

class GetStatsResponse(_message.Message):
    __slots__ = ("agents", "processing", "database_bytes", "pending_signals", "dead_letter_signals")
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    PROCESSING_FIELD_NUMBER: _ClassVar[int]
    DATABASE_BYTES_FIELD_NUMBER: _ClassVar[int]
    PENDING_SIGNALS_FIELD_NUMBER: _ClassVar[int]
    DEAD_LETTER_SIGNALS_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.RepeatedCompositeFieldContainer[AgentStats]
    processing: ProcessingStats
    database_bytes: int
    pending_signals: int
    dead_letter_signals: int
    def __init__(self, agents: _Optional[_Iterable[_Union[AgentStats, _Mapping]]] = ..., processing: _Optional[_Union[ProcessingStats, _Mapping]] = ..., database_bytes: _Optional[int] = ..., pending_signals: _Optional[int] = ..., dead_letter_signals: _Optional[int] = ...) -> None: ...
