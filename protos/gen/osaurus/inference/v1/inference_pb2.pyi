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

class FinishReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINISH_REASON_UNSPECIFIED: _ClassVar[FinishReason]
    FINISH_REASON_STOP: _ClassVar[FinishReason]
    FINISH_REASON_LENGTH: _ClassVar[FinishReason]
    FINISH_REASON_CANCELLED: _ClassVar[FinishReason]

class ModelKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MODEL_KIND_UNSPECIFIED: _ClassVar[ModelKind]
    MODEL_KIND_LLM: _ClassVar[ModelKind]
    MODEL_KIND_EMBEDDING: _ClassVar[ModelKind]

class ModelState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MODEL_STATE_UNSPECIFIED: _ClassVar[ModelState]
    MODEL_STATE_UNLOADED: _ClassVar[ModelState]
    MODEL_STATE_LOADING: _ClassVar[ModelState]
    MODEL_STATE_READY: _ClassVar[ModelState]
    MODEL_STATE_FAILED: _ClassVar[ModelState]
ROLE_UNSPECIFIED: Role
ROLE_SYSTEM: Role
ROLE_USER: Role
ROLE_ASSISTANT: Role
FINISH_REASON_UNSPECIFIED: FinishReason
FINISH_REASON_STOP: FinishReason
FINISH_REASON_LENGTH: FinishReason
FINISH_REASON_CANCELLED: FinishReason
MODEL_KIND_UNSPECIFIED: ModelKind
MODEL_KIND_LLM: ModelKind
MODEL_KIND_EMBEDDING: ModelKind
MODEL_STATE_UNSPECIFIED: ModelState
MODEL_STATE_UNLOADED: ModelState
MODEL_STATE_LOADING: ModelState
MODEL_STATE_READY: ModelState
MODEL_STATE_FAILED: ModelState

class ChatMessage(_message.Message):
    __slots__ = ("role", "content")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    role: Role
    content: str
    def __init__(self, role: _Optional[_Union[Role, str]] = ..., content: _Optional[str] = ...) -> None: ...

class GenerationOptions(_message.Message):
    __slots__ = ("max_tokens", "temperature", "top_p", "stop", "seed")
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    TOP_P_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    max_tokens: int
    temperature: float
    top_p: float
    stop: _containers.RepeatedScalarFieldContainer[str]
    seed: int
    def __init__(self, max_tokens: _Optional[int] = ..., temperature: _Optional[float] = ..., top_p: _Optional[float] = ..., stop: _Optional[_Iterable[str]] = ..., seed: _Optional[int] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("prompt_tokens", "completion_tokens", "duration_ms")
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    prompt_tokens: int
    completion_tokens: int
    duration_ms: int
    def __init__(self, prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., duration_ms: _Optional[int] = ...) -> None: ...

class GenerateRequest(_message.Message):
    __slots__ = ("model", "messages", "options", "json_schema", "only_if_resident")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    ONLY_IF_RESIDENT_FIELD_NUMBER: _ClassVar[int]
    model: str
    messages: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    options: GenerationOptions
    json_schema: str
    only_if_resident: bool
    def __init__(self, model: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ..., options: _Optional[_Union[GenerationOptions, _Mapping]] = ..., json_schema: _Optional[str] = ..., only_if_resident: _Optional[bool] = ...) -> None: ...

class GenerateResponse(_message.Message):
    __slots__ = ("text", "finish_reason", "usage", "model")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    text: str
    finish_reason: FinishReason
    usage: Usage
    model: str
    def __init__(self, text: _Optional[str] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., model: _Optional[str] = ...) -> None: ...

class GenerateStreamRequest(_message.Message):
    __slots__ = ("model", "messages", "options", "json_schema", "only_if_resident")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    ONLY_IF_RESIDENT_FIELD_NUMBER: _ClassVar[int]
    model: str
    messages: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    options: GenerationOptions
    json_schema: str
    only_if_resident: bool
    def __init__(self, model: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ..., options: _Optional[_Union[GenerationOptions, _Mapping]] = ..., json_schema: _Optional[str] = ..., only_if_resident: _Optional[bool] = ...) -> None: ...

class GenerateStreamResponse(_message.Message):
    __slots__ = ("delta", "finish_reason", "usage", "model")
    DELTA_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    delta: str
    finish_reason: FinishReason
    usage: Usage
    model: str
    def __init__(self, delta: _Optional[str] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., model: _Optional[str] = ...) -> None: ...

class EmbedRequest(_message.Message):
    __slots__ = ("model", "texts", "only_if_resident")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    ONLY_IF_RESIDENT_FIELD_NUMBER: _ClassVar[int]
    model: str
    texts: _containers.RepeatedScalarFieldContainer[str]
    only_if_resident: bool
    def __init__(self, model: _Optional[str] = ..., texts: _Optional[_Iterable[str]] = ..., only_if_resident: _Optional[bool] = ...) -> None: ...

class Embedding(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, values: _Optional[_Iterable[float]] = ...) -> None: ...

class EmbedResponse(_message.Message):
    __slots__ = ("embeddings", "dimension", "model")
    EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    embeddings: _containers.RepeatedCompositeFieldContainer[Embedding]
    dimension: int
    model: str
    def __init__(self, embeddings: _Optional[_Iterable[_Union[Embedding, _Mapping]]] = ..., dimension: _Optional[int] = ..., model: _Optional[str] = ...) -> None: ...

class CountTokensRequest(_message.Message):
    __slots__ = ("model", "texts")
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TEXTS_FIELD_NUMBER: _ClassVar[int]
    model: str
    texts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, model: _Optional[str] = ..., texts: _Optional[_Iterable[str]] = ...) -> None: ...

class CountTokensResponse(_message.Message):
    __slots__ = ("counts", "model")
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedScalarFieldContainer[int]
    model: str
    def __init__(self, counts: _Optional[_Iterable[int]] = ..., model: _Optional[str] = ...) -> None: ...

class ModelStatus(_message.Message):
    __slots__ = ("name", "kind", "state", "backend", "queue_depth", "queue_capacity", "context_window_tokens", "embedding_dimension", "error", "is_default")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    QUEUE_DEPTH_FIELD_NUMBER: _ClassVar[int]
    QUEUE_CAPACITY_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_WINDOW_TOKENS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_DIMENSION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_DEFAULT_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: ModelKind
    state: ModelState
    backend: str
    queue_depth: int
    queue_capacity: int
    context_window_tokens: int
    embedding_dimension: int
    error: str
    is_default: bool
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[ModelKind, str]] = ..., state: _Optional[_Union[ModelState, str]] = ..., backend: _Optional[str] = ..., queue_depth: _Optional[int] = ..., queue_capacity: _Optional[int] = ..., context_window_tokens: _Optional[int] = ..., embedding_dimension: _Optional[int] = ..., error: _Optional[str] = ..., is_default: _Optional[bool] = ...) -> None: ...

class GetModelStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetModelStatusResponse(_message.Message):
    __slots__ = ("models",)
    MODELS_FIELD_NUMBER: _ClassVar[int]
    models: _containers.RepeatedCompositeFieldContainer[ModelStatus]
    def __init__(self, models: _Optional[_Iterable[_Union[ModelStatus, _Mapping]]] = ...) -> None: ...

class LoadModelRequest(_message.Message):
    __slots__ = ("model",)
    MODEL_FIELD_NUMBER: _ClassVar[int]
    model: str
    def __init__(self, model: _Optional[str] = ...) -> None: ...

class LoadModelResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: ModelStatus
    def __init__(self, status: _Optional[_Union[ModelStatus, _Mapping]] = ...) -> None: ...

class UnloadModelRequest(_message.Message):
    __slots__ = ("model",)
    MODEL_FIELD_NUMBER: _ClassVar[int]
    model: str
    def __init__(self, model: _Optional[str] = ...) -> None: ...

class UnloadModelResponse(_message.Message):
    __slots__ = ("status",)
    STATUS_FIELD_NUMBER: _ClassVar[int]
    status: ModelStatus
    def __init__(self, status: _Optional[_Union[ModelStatus, _Mapping]] = ...) -> None: ...
