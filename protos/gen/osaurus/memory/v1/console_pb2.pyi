import datetime

from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from osaurus.memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ConsoleScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONSOLE_SCOPE_UNSPECIFIED: _ClassVar[ConsoleScope]
    CONSOLE_SCOPE_ALL: _ClassVar[ConsoleScope]
    CONSOLE_SCOPE_PINNED: _ClassVar[ConsoleScope]
    CONSOLE_SCOPE_EPISODES: _ClassVar[ConsoleScope]
    CONSOLE_SCOPE_TRANSCRIPT: _ClassVar[ConsoleScope]

class ExtractionMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXTRACTION_MODE_UNSPECIFIED: _ClassVar[ExtractionMode]
    EXTRACTION_MODE_SESSION_END: _ClassVar[ExtractionMode]
    EXTRACTION_MODE_MANUAL: _ClassVar[ExtractionMode]

class RelevanceGateMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RELEVANCE_GATE_MODE_UNSPECIFIED: _ClassVar[RelevanceGateMode]
    RELEVANCE_GATE_MODE_OFF: _ClassVar[RelevanceGateMode]
    RELEVANCE_GATE_MODE_HEURISTIC: _ClassVar[RelevanceGateMode]
    RELEVANCE_GATE_MODE_LLM: _ClassVar[RelevanceGateMode]

class EmbeddingBackend(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EMBEDDING_BACKEND_UNSPECIFIED: _ClassVar[EmbeddingBackend]
    EMBEDDING_BACKEND_MLX: _ClassVar[EmbeddingBackend]
    EMBEDDING_BACKEND_NONE: _ClassVar[EmbeddingBackend]

class StoreState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STORE_STATE_UNSPECIFIED: _ClassVar[StoreState]
    STORE_STATE_HEALTHY: _ClassVar[StoreState]
    STORE_STATE_DEGRADED: _ClassVar[StoreState]
    STORE_STATE_FULL: _ClassVar[StoreState]
    STORE_STATE_READ_ONLY: _ClassVar[StoreState]

class RecoveryAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECOVERY_ACTION_UNSPECIFIED: _ClassVar[RecoveryAction]
    RECOVERY_ACTION_RETRY: _ClassVar[RecoveryAction]
    RECOVERY_ACTION_RESET: _ClassVar[RecoveryAction]

class StoreFileKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STORE_FILE_KIND_UNSPECIFIED: _ClassVar[StoreFileKind]
    STORE_FILE_KIND_MISSING: _ClassVar[StoreFileKind]
    STORE_FILE_KIND_PLAINTEXT: _ClassVar[StoreFileKind]
    STORE_FILE_KIND_ENCRYPTED: _ClassVar[StoreFileKind]

class KeySource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KEY_SOURCE_UNSPECIFIED: _ClassVar[KeySource]
    KEY_SOURCE_KEY_FILE: _ClassVar[KeySource]
    KEY_SOURCE_PASSPHRASE_FILE: _ClassVar[KeySource]
    KEY_SOURCE_PASSPHRASE_REQUEST: _ClassVar[KeySource]
    KEY_SOURCE_PASSPHRASE_MEMORY: _ClassVar[KeySource]

class EncryptionMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENCRYPTION_MODE_UNSPECIFIED: _ClassVar[EncryptionMode]
    ENCRYPTION_MODE_PLAINTEXT: _ClassVar[EncryptionMode]
    ENCRYPTION_MODE_KEY_FILE: _ClassVar[EncryptionMode]
    ENCRYPTION_MODE_PASSPHRASE: _ClassVar[EncryptionMode]
CONSOLE_SCOPE_UNSPECIFIED: ConsoleScope
CONSOLE_SCOPE_ALL: ConsoleScope
CONSOLE_SCOPE_PINNED: ConsoleScope
CONSOLE_SCOPE_EPISODES: ConsoleScope
CONSOLE_SCOPE_TRANSCRIPT: ConsoleScope
EXTRACTION_MODE_UNSPECIFIED: ExtractionMode
EXTRACTION_MODE_SESSION_END: ExtractionMode
EXTRACTION_MODE_MANUAL: ExtractionMode
RELEVANCE_GATE_MODE_UNSPECIFIED: RelevanceGateMode
RELEVANCE_GATE_MODE_OFF: RelevanceGateMode
RELEVANCE_GATE_MODE_HEURISTIC: RelevanceGateMode
RELEVANCE_GATE_MODE_LLM: RelevanceGateMode
EMBEDDING_BACKEND_UNSPECIFIED: EmbeddingBackend
EMBEDDING_BACKEND_MLX: EmbeddingBackend
EMBEDDING_BACKEND_NONE: EmbeddingBackend
STORE_STATE_UNSPECIFIED: StoreState
STORE_STATE_HEALTHY: StoreState
STORE_STATE_DEGRADED: StoreState
STORE_STATE_FULL: StoreState
STORE_STATE_READ_ONLY: StoreState
RECOVERY_ACTION_UNSPECIFIED: RecoveryAction
RECOVERY_ACTION_RETRY: RecoveryAction
RECOVERY_ACTION_RESET: RecoveryAction
STORE_FILE_KIND_UNSPECIFIED: StoreFileKind
STORE_FILE_KIND_MISSING: StoreFileKind
STORE_FILE_KIND_PLAINTEXT: StoreFileKind
STORE_FILE_KIND_ENCRYPTED: StoreFileKind
KEY_SOURCE_UNSPECIFIED: KeySource
KEY_SOURCE_KEY_FILE: KeySource
KEY_SOURCE_PASSPHRASE_FILE: KeySource
KEY_SOURCE_PASSPHRASE_REQUEST: KeySource
KEY_SOURCE_PASSPHRASE_MEMORY: KeySource
ENCRYPTION_MODE_UNSPECIFIED: EncryptionMode
ENCRYPTION_MODE_PLAINTEXT: EncryptionMode
ENCRYPTION_MODE_KEY_FILE: EncryptionMode
ENCRYPTION_MODE_PASSPHRASE: EncryptionMode

class MemoryConfig(_message.Message):
    __slots__ = ("enabled", "embedding_backend", "embedding_model", "extraction_mode", "relevance_gate_mode", "memory_budget_tokens", "summary_debounce_seconds", "consolidation_interval_hours", "salience_floor", "episode_retention_days", "core_model")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_BACKEND_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    EXTRACTION_MODE_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_GATE_MODE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_DEBOUNCE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    CONSOLIDATION_INTERVAL_HOURS_FIELD_NUMBER: _ClassVar[int]
    SALIENCE_FLOOR_FIELD_NUMBER: _ClassVar[int]
    EPISODE_RETENTION_DAYS_FIELD_NUMBER: _ClassVar[int]
    CORE_MODEL_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    embedding_backend: EmbeddingBackend
    embedding_model: str
    extraction_mode: ExtractionMode
    relevance_gate_mode: RelevanceGateMode
    memory_budget_tokens: int
    summary_debounce_seconds: int
    consolidation_interval_hours: int
    salience_floor: float
    episode_retention_days: int
    core_model: str
    def __init__(self, enabled: _Optional[bool] = ..., embedding_backend: _Optional[_Union[EmbeddingBackend, str]] = ..., embedding_model: _Optional[str] = ..., extraction_mode: _Optional[_Union[ExtractionMode, str]] = ..., relevance_gate_mode: _Optional[_Union[RelevanceGateMode, str]] = ..., memory_budget_tokens: _Optional[int] = ..., summary_debounce_seconds: _Optional[int] = ..., consolidation_interval_hours: _Optional[int] = ..., salience_floor: _Optional[float] = ..., episode_retention_days: _Optional[int] = ..., core_model: _Optional[str] = ...) -> None: ...

class InspectRequest(_message.Message):
    __slots__ = ("item", "agent_id")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    agent_id: str
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class InspectResponse(_message.Message):
    __slots__ = ("item", "agent_id", "preview", "metadata", "disabled", "create_time", "redactions", "has_vector", "source_turns")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ITEM_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    REDACTIONS_FIELD_NUMBER: _ClassVar[int]
    HAS_VECTOR_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TURNS_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    agent_id: str
    preview: str
    metadata: _containers.ScalarMap[str, str]
    disabled: bool
    create_time: _timestamp_pb2.Timestamp
    redactions: _containers.RepeatedScalarFieldContainer[str]
    has_vector: bool
    source_turns: _containers.RepeatedCompositeFieldContainer[SourceTurn]
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., agent_id: _Optional[str] = ..., preview: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., disabled: _Optional[bool] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., redactions: _Optional[_Iterable[str]] = ..., has_vector: _Optional[bool] = ..., source_turns: _Optional[_Iterable[_Union[SourceTurn, _Mapping]]] = ...) -> None: ...

class SourceTurn(_message.Message):
    __slots__ = ("item", "role", "preview", "create_time")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    role: str
    preview: str
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., role: _Optional[str] = ..., preview: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("query", "scope", "agent_id", "include_disabled", "limit")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_DISABLED_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    query: str
    scope: ConsoleScope
    agent_id: str
    include_disabled: bool
    limit: int
    def __init__(self, query: _Optional[str] = ..., scope: _Optional[_Union[ConsoleScope, str]] = ..., agent_id: _Optional[str] = ..., include_disabled: _Optional[bool] = ..., limit: _Optional[int] = ...) -> None: ...

class ConsoleHit(_message.Message):
    __slots__ = ("item", "agent_id", "preview", "score", "disabled", "create_time")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    agent_id: str
    preview: str
    score: float
    disabled: bool
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., agent_id: _Optional[str] = ..., preview: _Optional[str] = ..., score: _Optional[float] = ..., disabled: _Optional[bool] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("hits",)
    HITS_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[ConsoleHit]
    def __init__(self, hits: _Optional[_Iterable[_Union[ConsoleHit, _Mapping]]] = ...) -> None: ...

class ListItemsRequest(_message.Message):
    __slots__ = ("agent_id", "kind", "page_size", "page_token", "include_disabled")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_DISABLED_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    kind: _memory_pb2.ItemKind
    page_size: int
    page_token: str
    include_disabled: bool
    def __init__(self, agent_id: _Optional[str] = ..., kind: _Optional[_Union[_memory_pb2.ItemKind, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., include_disabled: _Optional[bool] = ...) -> None: ...

class ListedItem(_message.Message):
    __slots__ = ("item", "preview", "salience", "use_count", "status", "create_time", "occur_time", "redactions", "topics")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_FIELD_NUMBER: _ClassVar[int]
    SALIENCE_FIELD_NUMBER: _ClassVar[int]
    USE_COUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    OCCUR_TIME_FIELD_NUMBER: _ClassVar[int]
    REDACTIONS_FIELD_NUMBER: _ClassVar[int]
    TOPICS_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    preview: str
    salience: float
    use_count: int
    status: str
    create_time: _timestamp_pb2.Timestamp
    occur_time: _timestamp_pb2.Timestamp
    redactions: _containers.RepeatedScalarFieldContainer[str]
    topics: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., preview: _Optional[str] = ..., salience: _Optional[float] = ..., use_count: _Optional[int] = ..., status: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., occur_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., redactions: _Optional[_Iterable[str]] = ..., topics: _Optional[_Iterable[str]] = ...) -> None: ...

class ListItemsResponse(_message.Message):
    __slots__ = ("items", "next_page_token", "total_size")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SIZE_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ListedItem]
    next_page_token: str
    total_size: int
    def __init__(self, items: _Optional[_Iterable[_Union[ListedItem, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_size: _Optional[int] = ...) -> None: ...

class DisableRequest(_message.Message):
    __slots__ = ("item", "agent_id")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    agent_id: str
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class DisableResponse(_message.Message):
    __slots__ = ("changed",)
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    changed: bool
    def __init__(self, changed: _Optional[bool] = ...) -> None: ...

class EnableRequest(_message.Message):
    __slots__ = ("item", "agent_id")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    agent_id: str
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class EnableResponse(_message.Message):
    __slots__ = ("changed",)
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    changed: bool
    def __init__(self, changed: _Optional[bool] = ...) -> None: ...

class ForgetRequest(_message.Message):
    __slots__ = ("item", "agent_id")
    ITEM_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    item: _memory_pb2.ItemRef
    agent_id: str
    def __init__(self, item: _Optional[_Union[_memory_pb2.ItemRef, _Mapping]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class ForgetResponse(_message.Message):
    __slots__ = ("vector_removed",)
    VECTOR_REMOVED_FIELD_NUMBER: _ClassVar[int]
    vector_removed: bool
    def __init__(self, vector_removed: _Optional[bool] = ...) -> None: ...

class DiagnoseRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TableCount(_message.Message):
    __slots__ = ("table", "agent_id", "rows")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    table: str
    agent_id: str
    rows: int
    def __init__(self, table: _Optional[str] = ..., agent_id: _Optional[str] = ..., rows: _Optional[int] = ...) -> None: ...

class FtsHealth(_message.Message):
    __slots__ = ("fts_table", "source_table", "source_rows", "fts_rows", "healthy", "problem")
    FTS_TABLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TABLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ROWS_FIELD_NUMBER: _ClassVar[int]
    FTS_ROWS_FIELD_NUMBER: _ClassVar[int]
    HEALTHY_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    fts_table: str
    source_table: str
    source_rows: int
    fts_rows: int
    healthy: bool
    problem: str
    def __init__(self, fts_table: _Optional[str] = ..., source_table: _Optional[str] = ..., source_rows: _Optional[int] = ..., fts_rows: _Optional[int] = ..., healthy: _Optional[bool] = ..., problem: _Optional[str] = ...) -> None: ...

class VectorIndexState(_message.Message):
    __slots__ = ("agent_id", "model", "dimension", "vectors", "rows", "stale", "problem")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    STALE_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    model: str
    dimension: int
    vectors: int
    rows: int
    stale: bool
    problem: str
    def __init__(self, agent_id: _Optional[str] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ..., vectors: _Optional[int] = ..., rows: _Optional[int] = ..., stale: _Optional[bool] = ..., problem: _Optional[str] = ...) -> None: ...

class StorageError(_message.Message):
    __slots__ = ("occur_time", "operation", "message")
    OCCUR_TIME_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    occur_time: _timestamp_pb2.Timestamp
    operation: str
    message: str
    def __init__(self, occur_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., operation: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class DiagnoseResponse(_message.Message):
    __slots__ = ("schema_version", "table_counts", "pending_signals", "dead_letter_signals", "processing", "fts", "vector_indexes", "database_bytes", "recent_errors", "store_state", "degraded_reason", "recovery_actions", "encrypted", "degraded_store", "last_consolidation")
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    TABLE_COUNTS_FIELD_NUMBER: _ClassVar[int]
    PENDING_SIGNALS_FIELD_NUMBER: _ClassVar[int]
    DEAD_LETTER_SIGNALS_FIELD_NUMBER: _ClassVar[int]
    PROCESSING_FIELD_NUMBER: _ClassVar[int]
    FTS_FIELD_NUMBER: _ClassVar[int]
    VECTOR_INDEXES_FIELD_NUMBER: _ClassVar[int]
    DATABASE_BYTES_FIELD_NUMBER: _ClassVar[int]
    RECENT_ERRORS_FIELD_NUMBER: _ClassVar[int]
    STORE_STATE_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_REASON_FIELD_NUMBER: _ClassVar[int]
    RECOVERY_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTED_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_STORE_FIELD_NUMBER: _ClassVar[int]
    LAST_CONSOLIDATION_FIELD_NUMBER: _ClassVar[int]
    schema_version: int
    table_counts: _containers.RepeatedCompositeFieldContainer[TableCount]
    pending_signals: int
    dead_letter_signals: int
    processing: _memory_pb2.ProcessingStats
    fts: _containers.RepeatedCompositeFieldContainer[FtsHealth]
    vector_indexes: _containers.RepeatedCompositeFieldContainer[VectorIndexState]
    database_bytes: int
    recent_errors: _containers.RepeatedCompositeFieldContainer[StorageError]
    store_state: StoreState
    degraded_reason: str
    recovery_actions: _containers.RepeatedScalarFieldContainer[RecoveryAction]
    encrypted: bool
    degraded_store: DegradedStore
    last_consolidation: _memory_pb2.ConsolidationReport
    def __init__(self, schema_version: _Optional[int] = ..., table_counts: _Optional[_Iterable[_Union[TableCount, _Mapping]]] = ..., pending_signals: _Optional[int] = ..., dead_letter_signals: _Optional[int] = ..., processing: _Optional[_Union[_memory_pb2.ProcessingStats, _Mapping]] = ..., fts: _Optional[_Iterable[_Union[FtsHealth, _Mapping]]] = ..., vector_indexes: _Optional[_Iterable[_Union[VectorIndexState, _Mapping]]] = ..., database_bytes: _Optional[int] = ..., recent_errors: _Optional[_Iterable[_Union[StorageError, _Mapping]]] = ..., store_state: _Optional[_Union[StoreState, str]] = ..., degraded_reason: _Optional[str] = ..., recovery_actions: _Optional[_Iterable[_Union[RecoveryAction, str]]] = ..., encrypted: _Optional[bool] = ..., degraded_store: _Optional[_Union[DegradedStore, _Mapping]] = ..., last_consolidation: _Optional[_Union[_memory_pb2.ConsolidationReport, _Mapping]] = ...) -> None: ...

class KeyAttempt(_message.Message):
    __slots__ = ("source", "keys_tried")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    KEYS_TRIED_FIELD_NUMBER: _ClassVar[int]
    source: KeySource
    keys_tried: int
    def __init__(self, source: _Optional[_Union[KeySource, str]] = ..., keys_tried: _Optional[int] = ...) -> None: ...

class DegradedStore(_message.Message):
    __slots__ = ("file_kind", "file_bytes", "key_attempts", "passphrase_keys_untried", "quarantine_folder")
    FILE_KIND_FIELD_NUMBER: _ClassVar[int]
    FILE_BYTES_FIELD_NUMBER: _ClassVar[int]
    KEY_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    PASSPHRASE_KEYS_UNTRIED_FIELD_NUMBER: _ClassVar[int]
    QUARANTINE_FOLDER_FIELD_NUMBER: _ClassVar[int]
    file_kind: StoreFileKind
    file_bytes: int
    key_attempts: _containers.RepeatedCompositeFieldContainer[KeyAttempt]
    passphrase_keys_untried: int
    quarantine_folder: str
    def __init__(self, file_kind: _Optional[_Union[StoreFileKind, str]] = ..., file_bytes: _Optional[int] = ..., key_attempts: _Optional[_Iterable[_Union[KeyAttempt, _Mapping]]] = ..., passphrase_keys_untried: _Optional[int] = ..., quarantine_folder: _Optional[str] = ...) -> None: ...

class RecoverStoreRequest(_message.Message):
    __slots__ = ("action", "confirm", "passphrase")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    PASSPHRASE_FIELD_NUMBER: _ClassVar[int]
    action: RecoveryAction
    confirm: bool
    passphrase: str
    def __init__(self, action: _Optional[_Union[RecoveryAction, str]] = ..., confirm: _Optional[bool] = ..., passphrase: _Optional[str] = ...) -> None: ...

class RecoverStoreResponse(_message.Message):
    __slots__ = ("store_state", "degraded_reason", "degraded_store")
    STORE_STATE_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_REASON_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_STORE_FIELD_NUMBER: _ClassVar[int]
    store_state: StoreState
    degraded_reason: str
    degraded_store: DegradedStore
    def __init__(self, store_state: _Optional[_Union[StoreState, str]] = ..., degraded_reason: _Optional[str] = ..., degraded_store: _Optional[_Union[DegradedStore, _Mapping]] = ...) -> None: ...

class PreviewContextRequest(_message.Message):
    __slots__ = ("agent_id", "query", "max_tokens")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    query: str
    max_tokens: int
    def __init__(self, agent_id: _Optional[str] = ..., query: _Optional[str] = ..., max_tokens: _Optional[int] = ...) -> None: ...

class PreviewContextResponse(_message.Message):
    __slots__ = ("block", "section", "reason", "block_tokens")
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BLOCK_TOKENS_FIELD_NUMBER: _ClassVar[int]
    block: str
    section: _memory_pb2.Section
    reason: str
    block_tokens: int
    def __init__(self, block: _Optional[str] = ..., section: _Optional[_Union[_memory_pb2.Section, str]] = ..., reason: _Optional[str] = ..., block_tokens: _Optional[int] = ...) -> None: ...

class ClearAllRequest(_message.Message):
    __slots__ = ("confirm",)
    CONFIRM_FIELD_NUMBER: _ClassVar[int]
    confirm: bool
    def __init__(self, confirm: _Optional[bool] = ...) -> None: ...

class ClearAllResponse(_message.Message):
    __slots__ = ("rows_deleted",)
    ROWS_DELETED_FIELD_NUMBER: _ClassVar[int]
    rows_deleted: int
    def __init__(self, rows_deleted: _Optional[int] = ...) -> None: ...

class GetConfigRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetConfigResponse(_message.Message):
    __slots__ = ("config",)
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: MemoryConfig
    def __init__(self, config: _Optional[_Union[MemoryConfig, _Mapping]] = ...) -> None: ...

class UpdateConfigRequest(_message.Message):
    __slots__ = ("config", "update_mask")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    config: MemoryConfig
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, config: _Optional[_Union[MemoryConfig, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateConfigResponse(_message.Message):
    __slots__ = ("config",)
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: MemoryConfig
    def __init__(self, config: _Optional[_Union[MemoryConfig, _Mapping]] = ...) -> None: ...

class ExportRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class ExportResponse(_message.Message):
    __slots__ = ("line",)
    LINE_FIELD_NUMBER: _ClassVar[int]
    line: str
    def __init__(self, line: _Optional[str] = ...) -> None: ...

class ImportRequest(_message.Message):
    __slots__ = ("line",)
    LINE_FIELD_NUMBER: _ClassVar[int]
    line: str
    def __init__(self, line: _Optional[str] = ...) -> None: ...

class ImportResponse(_message.Message):
    __slots__ = ("imported", "skipped", "reembedded")
    class ImportedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    REEMBEDDED_FIELD_NUMBER: _ClassVar[int]
    imported: _containers.ScalarMap[str, int]
    skipped: int
    reembedded: int
    def __init__(self, imported: _Optional[_Mapping[str, int]] = ..., skipped: _Optional[int] = ..., reembedded: _Optional[int] = ...) -> None: ...

class ReindexRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class ReindexResponse(_message.Message):
    __slots__ = ("vector_indexes", "fts_rebuilt")
    VECTOR_INDEXES_FIELD_NUMBER: _ClassVar[int]
    FTS_REBUILT_FIELD_NUMBER: _ClassVar[int]
    vector_indexes: _containers.RepeatedCompositeFieldContainer[VectorIndexState]
    fts_rebuilt: bool
    def __init__(self, vector_indexes: _Optional[_Iterable[_Union[VectorIndexState, _Mapping]]] = ..., fts_rebuilt: _Optional[bool] = ...) -> None: ...

class SetEncryptionRequest(_message.Message):
    __slots__ = ("mode", "passphrase")
    MODE_FIELD_NUMBER: _ClassVar[int]
    PASSPHRASE_FIELD_NUMBER: _ClassVar[int]
    mode: EncryptionMode
    passphrase: str
    def __init__(self, mode: _Optional[_Union[EncryptionMode, str]] = ..., passphrase: _Optional[str] = ...) -> None: ...

class SetEncryptionResponse(_message.Message):
    __slots__ = ("mode",)
    MODE_FIELD_NUMBER: _ClassVar[int]
    mode: EncryptionMode
    def __init__(self, mode: _Optional[_Union[EncryptionMode, str]] = ...) -> None: ...

class RotateKeyRequest(_message.Message):
    __slots__ = ("new_passphrase",)
    NEW_PASSPHRASE_FIELD_NUMBER: _ClassVar[int]
    new_passphrase: str
    def __init__(self, new_passphrase: _Optional[str] = ...) -> None: ...

class RotateKeyResponse(_message.Message):
    __slots__ = ("mode",)
    MODE_FIELD_NUMBER: _ClassVar[int]
    mode: EncryptionMode
    def __init__(self, mode: _Optional[_Union[EncryptionMode, str]] = ...) -> None: ...
