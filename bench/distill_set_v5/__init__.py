"""Blind held-out distillation test set v5 (sessions.jsonl, frozen) and its validator."""
