"""Blind held-out distillation test set v7 (sessions.jsonl, frozen) and its validator."""
