"""The question sets the oracles are asked: one function per oracle, deterministic (seeded),
so a recording can always be checked against a fresh run of the same questions."""

from __future__ import annotations

# oracle name -> function returning its question set (JSON-ready); each oracle's owner adds its own
QUESTIONS: dict = {}
