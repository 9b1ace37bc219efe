"""Test plugin that cannot even be imported."""

raise ImportError("this plugin is broken at import time")
