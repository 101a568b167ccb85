"""The bench times the Voila page a class gets: `make present`'s presenter template."""

import os

import bench_speed as bench

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_voila_is_timed_with_the_presenter_template_on_the_embedded_store():
    args, env = bench.voila_command("voila", 8123, "/nb", {"EMQSIM_REDIS_URL": "redis://x", "JUPYTER_PATH": "/j"})
    assert args == ["voila", "--no-browser", "--port=8123", "--Voila.ip=127.0.0.1",
                    "--template=emqsim-present", "/nb"]
    assert env == {"JUPYTER_PATH": os.path.join(ROOT, "share") + os.pathsep + "/j", "EMQSIM_PRESENT": "1"}
    assert os.path.isfile(os.path.join(ROOT, "share", "voila", "templates", "emqsim-present", "conf.json"))
