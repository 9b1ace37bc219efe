"""Blind held-out distillation test set v3 (sessions.jsonl, frozen) and its validator."""
