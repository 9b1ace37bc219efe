"""The browser Memory view (the spec's "Managing Memory"): one page and its JSON API over memoryd's gRPC services.

`gateway.view.routes.router` serves GET /memory and /memory/view/api/...; the app includes it.
"""
