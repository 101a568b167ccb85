"""Figures of the course: each draws on a given Axes and updates its artists in place."""

from ..engine.extras import need

need("lab", "emqsim.figures (the course's live figures)")

from .style import present  # noqa: E402  (after the check: it imports matplotlib)

__all__ = ["present"]
