"""gateway: the HTTP face of osaurus (REST memory API, composed agent runs, OpenAI-compatible /v1) over gRPC."""
