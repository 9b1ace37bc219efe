"""Tenants: one memoryd serving many users, each with a whole service graph (store, caches, identity) of its own.

layout: where a tenant's data lives; handlers: a tenant's gRPC method handlers; registry: open tenants (lazy, LRU
capped); router: the generic handler dispatching each call to its tenant's handler.
"""
