"""Blind held-out distillation test set v6 (sessions.jsonl, frozen) and its validator."""
