"""HTTP request and response bodies (pydantic models), which also make the OpenAPI document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    """Our own resources: unknown fields are a client mistake worth a 400."""

    model_config = ConfigDict(extra="forbid")


class _Lenient(BaseModel):
    """OpenAI-shaped requests: clients send fields we do not use (user, logprobs…); accept and ignore them."""

    model_config = ConfigDict(extra="allow")


# ------------------------------------------------------------------------------------------ memory ingest
class IngestTurn(_Strict):
    """One user message and the assistant's reply."""

    user: str = Field(description="What the user said. Required.")
    assistant: str = Field(default="", description="What the assistant answered; may be empty.")


class IngestRequest(_Strict):
    """Body of POST /memory/ingest (the spec's)."""

    agent_id: str = Field(
        description="Agent whose memory is populated; a UUID is canonicalised (upper case)."
    )
    conversation_id: str = Field(description="Conversation (session) id; the unit of idempotency.")
    turns: list[IngestTurn] = Field(description="The turns, in order: at least one, at most 10,000.")
    session_date: str | None = Field(
        default=None, description="ISO 8601 date or date-time of the whole batch, used as the episode time."
    )
    skip_extraction: bool = Field(
        default=False, description="Only insert transcript rows; skip distillation and the synchronous wait."
    )


class IngestResponse(BaseModel):
    """Response of POST /memory/ingest (the spec's)."""

    status: Literal["ok"] = "ok"
    turns_ingested: int = Field(description="Number of turns stored.")
    distillation: str | None = Field(
        default=None,
        description="Outcome token, omitted when skip_extraction is set: distilled, no_signals, "
        "skipped:<reason>, empty:<reason>, dead_letter:<attempts> or error:<message>.",
    )
    episode_id: int | None = Field(default=None, description="Episode written; present only when distilled.")


# ------------------------------------------------------------------------------------------ agents
class Agent(BaseModel):
    """One agent (a memory partition) with its toggles and stored-memory count."""

    agent_id: str
    display_name: str
    memory_enabled: bool = Field(description="Memory: passive injection and transcript recording.")
    search_memory_enabled: bool = Field(description="Memory Recall: the search_memory tool.")
    memory_entry_count: int = Field(description="Stored memory: active episodes plus active pinned facts.")
    create_time: str | None = Field(default=None, description="RFC 3339, when the agent was first seen.")
    update_time: str | None = Field(default=None, description="RFC 3339, when its settings last changed.")


class AgentList(BaseModel):
    """Every known agent, ordered by agent_id."""

    agents: list[Agent]


class AgentSettings(BaseModel):
    """An agent's settings resource: the memory toggles and the display name."""

    display_name: str
    memory_enabled: bool
    search_memory_enabled: bool


class AgentSettingsPut(_Strict):
    """PUT /agents/{id}/settings: the whole settings resource (display_name optional, kept when absent)."""

    memory_enabled: bool
    search_memory_enabled: bool
    display_name: str | None = None


class AgentSettingsPatch(_Strict):
    """PATCH /agents/{id}/settings: only the fields present change."""

    memory_enabled: bool | None = None
    search_memory_enabled: bool | None = None
    display_name: str | None = None


# ------------------------------------------------------------------------------------------ identity
class Override(BaseModel):
    """One explicit, user-authored identity fact, always surfaced in context."""

    id: str
    text: str
    create_time: str | None = None


class OverrideCreate(_Strict):
    """POST /identity/overrides."""

    text: str = Field(description="The fact, at most 2,000 characters.")


class OverrideList(BaseModel):
    """The overrides, oldest first."""

    overrides: list[Override]


class IdentityFact(BaseModel):
    """An identity-grade fact derived from a session."""

    id: str
    text: str
    source_agent_id: str
    source_count: int


class Identity(BaseModel):
    """The identity: overrides (global), narrative and facts (global or one agent's)."""

    overrides: list[Override]
    content: str = Field(description="The narrative.")
    facts: list[IdentityFact]
    model: str
    version: int
    generate_time: str | None = None


# ------------------------------------------------------------------------------------------ agent run
class RunMessage(_Strict):
    """One chat message of an agent run."""

    role: Literal["system", "user", "assistant"]
    content: str


class RunRequest(_Strict):
    """POST /agents/{id}/run: one turn of the composed agent surface (memory injected, turn recorded)."""

    conversation_id: str = Field(description="Conversation the turn belongs to. Required.")
    messages: list[RunMessage] = Field(description="The chat so far, ending with the user's message.")
    stream: bool = Field(
        default=False, description="Answer with server-sent events (as does Accept: text/event-stream)."
    )
    model: str = Field(default="", description="Model name; empty uses inferd's default core model.")
    max_tokens: int = Field(
        default=0, ge=0, le=8192, description="Maximum new tokens; 0 is the model's default."
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    model_context_tokens: int = Field(
        default=0,
        ge=0,
        description="Context window of the model; 0 asks inferd. At 8192 or less no memory is injected.",
    )


class MemoryTrace(BaseModel):
    """What memory did for the model call."""

    injected: bool
    section: str
    reason: str
    block_tokens: int
    recorded: bool


class RunUsage(BaseModel):
    """Token counts of the model call."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class RunResponse(BaseModel):
    """The agent's reply and what memory did."""

    agent_id: str
    conversation_id: str
    reply: str
    memory: MemoryTrace
    usage: RunUsage


# ------------------------------------------------------------------------------------------ OpenAI /v1
class ChatMessageIn(_Lenient):
    """An OpenAI chat message; content is text or a list of text parts."""

    role: str
    content: str | list[dict[str, Any]] | None = None


class StreamOptions(_Lenient):
    """OpenAI stream_options."""

    include_usage: bool = False


class ChatCompletionRequest(_Lenient):
    """POST /v1/chat/completions (OpenAI's shape). Strict: no memory, prompts, skills or tools are added."""

    model: str = ""
    messages: list[ChatMessageIn]
    stream: bool = False
    max_tokens: int | None = Field(default=None, ge=1, le=8192)
    max_completion_tokens: int | None = Field(default=None, ge=1, le=8192)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    stop: str | list[str] | None = None
    seed: int | None = None
    n: int | None = Field(default=None, ge=1)
    stream_options: StreamOptions | None = None
    tools: list[Any] | None = None
    response_format: dict[str, Any] | None = None


class ChatCompletionMessage(BaseModel):
    """The assistant's reply."""

    role: Literal["assistant"] = "assistant"
    content: str


class ChatCompletionChoice(BaseModel):
    """One choice (the gateway always returns exactly one)."""

    index: int
    message: ChatCompletionMessage
    finish_reason: str
    logprobs: None = None


class CompletionUsage(BaseModel):
    """Token counts."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """OpenAI chat.completion object."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatCompletionChoice]
    usage: CompletionUsage


class ModelCard(BaseModel):
    """OpenAI model object, plus inferd's kind, state and backend."""

    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "osaurus"
    kind: str
    state: str
    backend: str
    context_window_tokens: int
    embedding_dimension: int
    is_default: bool


class ModelList(BaseModel):
    """OpenAI model list."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


class EmbeddingRequest(_Lenient):
    """POST /v1/embeddings (OpenAI's shape): text input only."""

    model: str = ""
    input: str | list[str] | list[int] | list[list[int]]
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(default=None, ge=1)


class EmbeddingItem(BaseModel):
    """One vector, as floats or base64 of little-endian float32."""

    object: Literal["embedding"] = "embedding"
    index: int
    embedding: list[float] | str


class EmbeddingUsage(BaseModel):
    """inferd's Embed reports no token counts; both are 0."""

    prompt_tokens: int = 0
    total_tokens: int = 0


class EmbeddingList(BaseModel):
    """OpenAI embedding list."""

    object: Literal["list"] = "list"
    data: list[EmbeddingItem]
    model: str
    usage: EmbeddingUsage = Field(default_factory=EmbeddingUsage)


class ErrorDetail(BaseModel):
    """See gateway.errors: OpenAI's fields plus the gRPC status and ErrorInfo."""

    message: str
    type: str
    code: str
    param: str | None
    status: str
    grpc_code: int
    reason: str
    domain: str
    field_violations: list[dict[str, str]] | None = None


class ErrorBody(BaseModel):
    """Every error response."""

    error: ErrorDetail
