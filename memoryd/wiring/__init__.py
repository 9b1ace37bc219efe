"""Builders app.py composes: one part each (writer, console, store security) from settings."""
