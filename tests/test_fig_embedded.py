"""The figure and lesson tests run on the embedded fakeredis even where EMQSIM_REDIS_URL names a
server (conftest.ABOVE_THE_ENGINE): CI sets the URL, and they test what a page draws and
teaches, the same on any store. This file is one of them; test_store.py's are not."""

from __future__ import annotations

import os

from conftest import ABOVE_THE_ENGINE

from emqsim import Store


def test_a_figure_test_sees_no_server_url_and_its_store_is_embedded():
    assert "EMQSIM_REDIS_URL" not in os.environ
    with Store() as store:
        assert store.backend == "fakeredis"


def test_the_engine_s_tests_are_not_among_them():
    names = ["test_store", "test_registry", "test_fast_forward", "test_notebook_keys", "test_cluster", "test_sim"]
    assert [n for n in names if n.startswith(ABOVE_THE_ENGINE)] == []
