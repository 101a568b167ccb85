"""Figures of the course: each draws on a given Axes and updates its artists in place."""

from .style import present

__all__ = ["present"]
