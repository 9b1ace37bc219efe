"""Shared plumbing for the three services: errors, interceptors, server builder, channels, logging, validation.

Nothing in this package imports memoryd, inferd or plugin_host.
"""
