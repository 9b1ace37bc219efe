from osaurus.memory.v1 import memory_pb2 as _memory_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Permission(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PERMISSION_UNSPECIFIED: _ClassVar[Permission]
    PERMISSION_INFERENCE: _ClassVar[Permission]
    PERMISSION_MEMORY_SEARCH: _ClassVar[Permission]

class PluginState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLUGIN_STATE_UNSPECIFIED: _ClassVar[PluginState]
    PLUGIN_STATE_STOPPED: _ClassVar[PluginState]
    PLUGIN_STATE_STARTING: _ClassVar[PluginState]
    PLUGIN_STATE_RUNNING: _ClassVar[PluginState]
    PLUGIN_STATE_BACKOFF: _ClassVar[PluginState]
    PLUGIN_STATE_FAILED: _ClassVar[PluginState]
PERMISSION_UNSPECIFIED: Permission
PERMISSION_INFERENCE: Permission
PERMISSION_MEMORY_SEARCH: Permission
PLUGIN_STATE_UNSPECIFIED: PluginState
PLUGIN_STATE_STOPPED: PluginState
PLUGIN_STATE_STARTING: PluginState
PLUGIN_STATE_RUNNING: PluginState
PLUGIN_STATE_BACKOFF: PluginState
PLUGIN_STATE_FAILED: PluginState

class CommandInfo(_message.Message):
    __slots__ = ("name", "description", "payload_schema")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    payload_schema: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., payload_schema: _Optional[str] = ...) -> None: ...

class PluginInfo(_message.Message):
    __slots__ = ("name", "version", "state", "requested_permissions", "granted_permissions", "allowed_agents", "commands", "restart_count", "last_error", "source")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    GRANTED_PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_AGENTS_FIELD_NUMBER: _ClassVar[int]
    COMMANDS_FIELD_NUMBER: _ClassVar[int]
    RESTART_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    state: PluginState
    requested_permissions: _containers.RepeatedScalarFieldContainer[Permission]
    granted_permissions: _containers.RepeatedScalarFieldContainer[Permission]
    allowed_agents: _containers.RepeatedScalarFieldContainer[str]
    commands: _containers.RepeatedCompositeFieldContainer[CommandInfo]
    restart_count: int
    last_error: str
    source: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., state: _Optional[_Union[PluginState, str]] = ..., requested_permissions: _Optional[_Iterable[_Union[Permission, str]]] = ..., granted_permissions: _Optional[_Iterable[_Union[Permission, str]]] = ..., allowed_agents: _Optional[_Iterable[str]] = ..., commands: _Optional[_Iterable[_Union[CommandInfo, _Mapping]]] = ..., restart_count: _Optional[int] = ..., last_error: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class ListPluginsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListPluginsResponse(_message.Message):
    __slots__ = ("plugins",)
    PLUGINS_FIELD_NUMBER: _ClassVar[int]
    plugins: _containers.RepeatedCompositeFieldContainer[PluginInfo]
    def __init__(self, plugins: _Optional[_Iterable[_Union[PluginInfo, _Mapping]]] = ...) -> None: ...

class InvokePluginRequest(_message.Message):
    __slots__ = ("plugin", "command", "payload_json", "agent_id", "conversation_id")
    PLUGIN_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    plugin: str
    command: str
    payload_json: str
    agent_id: str
    conversation_id: str
    def __init__(self, plugin: _Optional[str] = ..., command: _Optional[str] = ..., payload_json: _Optional[str] = ..., agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ...) -> None: ...

class InvokePluginResponse(_message.Message):
    __slots__ = ("result_json",)
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    result_json: str
    def __init__(self, result_json: _Optional[str] = ...) -> None: ...

class GenerationOptions(_message.Message):
    __slots__ = ("max_tokens", "temperature", "model", "model_context_tokens")
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MODEL_CONTEXT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    max_tokens: int
    temperature: float
    model: str
    model_context_tokens: int
    def __init__(self, max_tokens: _Optional[int] = ..., temperature: _Optional[float] = ..., model: _Optional[str] = ..., model_context_tokens: _Optional[int] = ...) -> None: ...

class RunAgentRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "messages", "options")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    messages: _containers.RepeatedCompositeFieldContainer[_memory_pb2.ChatMessage]
    options: GenerationOptions
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[_memory_pb2.ChatMessage, _Mapping]]] = ..., options: _Optional[_Union[GenerationOptions, _Mapping]] = ...) -> None: ...

class MemoryTrace(_message.Message):
    __slots__ = ("injected", "section", "reason", "block_tokens", "recorded")
    INJECTED_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BLOCK_TOKENS_FIELD_NUMBER: _ClassVar[int]
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    injected: bool
    section: _memory_pb2.Section
    reason: str
    block_tokens: int
    recorded: bool
    def __init__(self, injected: _Optional[bool] = ..., section: _Optional[_Union[_memory_pb2.Section, str]] = ..., reason: _Optional[str] = ..., block_tokens: _Optional[int] = ..., recorded: _Optional[bool] = ...) -> None: ...

class RunAgentResponse(_message.Message):
    __slots__ = ("reply", "memory", "prompt_tokens", "completion_tokens")
    REPLY_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    reply: str
    memory: MemoryTrace
    prompt_tokens: int
    completion_tokens: int
    def __init__(self, reply: _Optional[str] = ..., memory: _Optional[_Union[MemoryTrace, _Mapping]] = ..., prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ...) -> None: ...

class RunAgentStreamRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "messages", "options")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    messages: _containers.RepeatedCompositeFieldContainer[_memory_pb2.ChatMessage]
    options: GenerationOptions
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[_memory_pb2.ChatMessage, _Mapping]]] = ..., options: _Optional[_Union[GenerationOptions, _Mapping]] = ...) -> None: ...

class RunAgentStreamResponse(_message.Message):
    __slots__ = ("delta", "done", "memory", "prompt_tokens", "completion_tokens")
    DELTA_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    delta: str
    done: bool
    memory: MemoryTrace
    prompt_tokens: int
    completion_tokens: int
    def __init__(self, delta: _Optional[str] = ..., done: _Optional[bool] = ..., memory: _Optional[_Union[MemoryTrace, _Mapping]] = ..., prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ...) -> None: ...

class ReloadPluginsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReloadPluginsResponse(_message.Message):
    __slots__ = ("plugins",)
    PLUGINS_FIELD_NUMBER: _ClassVar[int]
    plugins: _containers.RepeatedCompositeFieldContainer[PluginInfo]
    def __init__(self, plugins: _Optional[_Iterable[_Union[PluginInfo, _Mapping]]] = ...) -> None: ...

class CompleteRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "messages", "options", "json_schema", "record", "invocation")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    INVOCATION_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    messages: _containers.RepeatedCompositeFieldContainer[_memory_pb2.ChatMessage]
    options: GenerationOptions
    json_schema: str
    record: bool
    invocation: str
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[_memory_pb2.ChatMessage, _Mapping]]] = ..., options: _Optional[_Union[GenerationOptions, _Mapping]] = ..., json_schema: _Optional[str] = ..., record: _Optional[bool] = ..., invocation: _Optional[str] = ...) -> None: ...

class CompleteResponse(_message.Message):
    __slots__ = ("text", "memory")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    text: str
    memory: MemoryTrace
    def __init__(self, text: _Optional[str] = ..., memory: _Optional[_Union[MemoryTrace, _Mapping]] = ...) -> None: ...

class StreamCompleteRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "messages", "options", "record", "invocation")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RECORD_FIELD_NUMBER: _ClassVar[int]
    INVOCATION_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    messages: _containers.RepeatedCompositeFieldContainer[_memory_pb2.ChatMessage]
    options: GenerationOptions
    record: bool
    invocation: str
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[_memory_pb2.ChatMessage, _Mapping]]] = ..., options: _Optional[_Union[GenerationOptions, _Mapping]] = ..., record: _Optional[bool] = ..., invocation: _Optional[str] = ...) -> None: ...

class StreamCompleteResponse(_message.Message):
    __slots__ = ("delta", "memory", "done")
    DELTA_FIELD_NUMBER: _ClassVar[int]
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    delta: str
    memory: MemoryTrace
    done: bool
    def __init__(self, delta: _Optional[str] = ..., memory: _Optional[_Union[MemoryTrace, _Mapping]] = ..., done: _Optional[bool] = ...) -> None: ...

class SearchMemoryRequest(_message.Message):
    __slots__ = ("agent_id", "scope", "query", "limit", "invocation")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    INVOCATION_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    scope: _memory_pb2.Scope
    query: str
    limit: int
    invocation: str
    def __init__(self, agent_id: _Optional[str] = ..., scope: _Optional[_Union[_memory_pb2.Scope, str]] = ..., query: _Optional[str] = ..., limit: _Optional[int] = ..., invocation: _Optional[str] = ...) -> None: ...

class SearchMemoryResponse(_message.Message):
    __slots__ = ("hits",)
    HITS_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[_memory_pb2.SearchHit]
    def __init__(self, hits: _Optional[_Iterable[_Union[_memory_pb2.SearchHit, _Mapping]]] = ...) -> None: ...

class DescribeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeResponse(_message.Message):
    __slots__ = ("commands",)
    COMMANDS_FIELD_NUMBER: _ClassVar[int]
    commands: _containers.RepeatedCompositeFieldContainer[CommandInfo]
    def __init__(self, commands: _Optional[_Iterable[_Union[CommandInfo, _Mapping]]] = ...) -> None: ...

class InvokeRequest(_message.Message):
    __slots__ = ("command", "payload_json", "agent_id", "conversation_id", "invocation")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_JSON_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    INVOCATION_FIELD_NUMBER: _ClassVar[int]
    command: str
    payload_json: str
    agent_id: str
    conversation_id: str
    invocation: str
    def __init__(self, command: _Optional[str] = ..., payload_json: _Optional[str] = ..., agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., invocation: _Optional[str] = ...) -> None: ...

class InvokeResponse(_message.Message):
    __slots__ = ("result_json",)
    RESULT_JSON_FIELD_NUMBER: _ClassVar[int]
    result_json: str
    def __init__(self, result_json: _Optional[str] = ...) -> None: ...
