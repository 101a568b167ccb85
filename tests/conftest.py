"""Shared fixtures: `store` runs a test once per backend (see backends.py)."""

from __future__ import annotations

import pytest

from backends import BACKENDS, make_store


@pytest.fixture(params=BACKENDS)
def store(request):
    s = make_store(request.param)
    yield s
    s.close()
