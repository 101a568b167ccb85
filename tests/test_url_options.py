"""Every option redis-py's URL parser knows (its `URL_QUERY_ARGUMENT_PARSERS`, read from the
installed redis-py when the test runs), and the ones it hands to the connection as text that
the issue names, either work or give status 3 with the option named: never a traceback.
(`?decode_responses=true`, `?socket_timeout=inf`, `?client_name=a b` and
`?health_check_interval=-5` were tracebacks or a wrong status.)"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from redis.connection import URL_QUERY_ARGUMENT_PARSERS

from emqsim import cli
from emqsim.engine.store import ENV
from servers import REDIS_SERVER, needs_redis_server, redis_server

TRACE = ["trace", "--every", "15m", "--fires", "3"]
TLS_ONLY = "applies to a TLS connection only"

#: option -> (a good value and the status it gives on a redis:// URL, a bad value). A TLS option
#: is refused on redis:// (status 3, named): its good value is for a rediss:// URL.
VALUES = {
    "db": (("0", 0), "abc"),
    "socket_timeout": (("2", 0), "inf"),
    "socket_connect_timeout": (("2", 0), "-1"),
    "socket_read_size": (("65536", 0), "0"),
    "socket_keepalive": (("true", 0), "maybe"),
    "retry_on_timeout": (("false", 0), "maybe"),
    "retry_on_error": (("TimeoutError", 0), "NoSuchError"),
    "max_connections": (("5", 0), "0"),
    "health_check_interval": (("30", 0), "-5"),
    "ssl_check_hostname": (("true", 3), "maybe"),
    "ssl_validate_ocsp": (("false", 3), "maybe"),
    "ssl_validate_ocsp_stapled": (("false", 3), "maybe"),
    "ssl_include_verify_flags": (("VERIFY_X509_STRICT", 3), "NOPE"),
    "ssl_exclude_verify_flags": (("VERIFY_X509_STRICT", 3), "NOPE"),
    "ssl_min_version": (("771", 3), "x"),
    "timeout": (("1", 3), "x"),          # parsed by redis-py, taken by no connection of it
    "protocol": (("2", 0), "4"),
    "legacy_responses": (("true", 0), "maybe"),
    # handed to the connection as text
    "decode_responses": (("false", 3), "true"),   # any value is true to redis-py
    "client_name": (("emqsim-test", 0), "a b"),
    "encoding": (("utf-8", 0), "utf-16"),
    "encoding_errors": (("replace", 0), "no-such-handler"),
}


def test_every_option_redis_py_parses_has_values_here():
    """A redis-py that learns an option fails here until the option has a good and a bad value."""
    assert set(URL_QUERY_ARGUMENT_PARSERS) <= set(VALUES), set(URL_QUERY_ARGUMENT_PARSERS) - set(VALUES)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    with redis_server(tmp_path_factory.mktemp("options")) as s:
        yield s


def run(monkeypatch, capsys, url):
    monkeypatch.setenv(ENV, url)
    status = cli.main(TRACE)
    return status, *capsys.readouterr()


CASES = [(name, value, status) for name, ((value, status), _) in VALUES.items()] + \
        [(name, bad, 3) for name, (_, bad) in VALUES.items()]


@needs_redis_server
@pytest.mark.parametrize("name, value, status", CASES, ids=[f"{n}={v}" for n, v, _ in CASES])
def test_an_option_works_or_is_status_3_named(server, monkeypatch, capsys, name, value, status):
    url = f"{server.url}?{name}={quote(value, safe=',')}"
    got, out, err = run(monkeypatch, capsys, url)
    assert got == status, err
    if status == 0:
        assert err == "" and out.count("\n") > 3
    else:
        assert out == "" and err.count("\n") == 1
        assert err.startswith(f"emqsim: error: {url}: not a usable Redis URL (")
        assert f"?{name}=" in err or f"'{name}'" in err, err
    assert server.keys() == []
