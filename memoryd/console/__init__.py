"""The Memory Console's domain logic: inspect, search, diagnose, export and import.

Its servicer is memoryd.api.console_service; nothing here imports protobuf."""
