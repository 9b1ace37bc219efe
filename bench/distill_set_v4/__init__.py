"""Blind held-out distillation test set v4 (sessions.jsonl, frozen) and its validator."""
