"""Seeded noise that does not depend on the order it is asked for.

Jitter for beat k and the run length of job n are pure functions of (seed, k):
the engine and the reference model skip different idle beats, yet draw equal values.
"""

from __future__ import annotations

from .errors import whole

_MASK = (1 << 64) - 1


def seed_arg(value) -> int:
    """A seed as the pump and the worker take it: a whole number that fits 64 signed bits."""
    return whole(value, "seed", low=-2**63, high=2**63 - 1, what="a seed")


def mix(seed: int, k: int) -> int:
    """splitmix64 of (seed, k): a well-spread 64-bit integer."""
    z = (seed * 0x9E3779B97F4A7C15 + k * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def draw(seed: int, k: int, spread: int) -> int:
    """An integer in [0, spread], fixed by (seed, k)."""
    return mix(seed, k) % (spread + 1) if spread > 0 else 0
