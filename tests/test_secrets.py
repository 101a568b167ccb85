"""A URL's secrets are never printed: the password of its user part and every secret query
option (`?password=`, `?ssl_password=`, ...: redis-py hands an option it does not parse to the
connection as it is, so they log in as the user part does). `store.redact` is the one function
that makes a URL printable; this property test puts random secrets through every path that
shows a URL (each fault's line, the clean-up's line, `--version`, a trace) and finds none of
them in stdout or stderr (`?password=` was printed as it was)."""

from __future__ import annotations

import contextlib
import functools
import io
import os
import string
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from emqsim import cli
from emqsim.engine.keys import Keys
from emqsim.engine.store import ENV, Store, redact
from servers import free_port, listener, needs_redis_server, redis_server

#: characters a secret may hold as written in a URL; others are percent-encoded (below)
PLAIN = string.ascii_letters + string.digits + "-._~!$'()*+,;"
SECRET = st.text(alphabet=PLAIN, min_size=8, max_size=24)
#: a secret with characters that must be encoded (`@`, `:`, `/`, `&`, a space, non-ASCII)
AWKWARD = st.text(alphabet=PLAIN + "@:/&= #?é", min_size=8, max_size=24).filter(lambda s: s.strip())
OPTIONS = ("password", "ssl_password", "PASSWORD", "pass%77ord")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _spelled_elsewhere(secrets, skeleton: str) -> bool:
    """True when a secret, as written or encoded, stands in the URL's non-secret parts."""
    return any(form in skeleton for secret in secrets for form in (secret, quote(secret, safe="")))


def test_a_secret_the_host_spells_is_not_drawn():
    """The draw that made CI red: the password "127.0.0." inside 127.0.0.1's host."""
    assert _spelled_elsewhere(["127.0.0.", "zzzzzzzz"], "http://:@127.0.0.1:1/0?password=")
    assert not _spelled_elsewhere(["s3cr3t-pw", "zzzzzzzz"], "http://:@127.0.0.1:1/0?password=")


@st.composite
def urls(draw, host: str = "127.0.0.1:1", path: str = "/0", scheme: str = "redis"):
    """(a URL carrying secrets, the secrets as a reader could recognise them)."""
    user_secret, query_secret = draw(st.one_of(SECRET, AWKWARD)), draw(st.one_of(SECRET, AWKWARD))
    user = draw(st.sampled_from(["", "alice"]))
    option = draw(st.sampled_from(OPTIONS))
    where = draw(st.sampled_from(["user", "query", "both"]))
    userinfo = f"{user}:{quote(user_secret, safe='')}@" if where in ("user", "both") else ""
    query = f"?{option}={quote(query_secret, safe='')}" if where in ("query", "both") else ""
    url = f"{scheme}://{userinfo}{host}{path}{query}"
    # a secret that the URL's other parts also spell ("127.0.0." in the host 127.0.0.1) is
    # printed with the host, not leaked: such a draw tells nothing about the redaction
    assume(not _spelled_elsewhere((user_secret, query_secret), f"{scheme}://{user}:@{host}{path}?{option}="))
    shown = []
    if where in ("user", "both"):
        shown += [user_secret, quote(user_secret, safe="")]
    if where in ("query", "both"):
        shown += [query_secret, quote(query_secret, safe="")]
    return url, shown


def run(url: str, *args: str) -> tuple[int, str]:
    """`emqsim *args` in this process with $EMQSIM_REDIS_URL = `url`: status, stdout + stderr."""
    out, err = io.StringIO(), io.StringIO()
    before = os.environ.get(ENV)
    os.environ[ENV] = url
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(list(args))
            except SystemExit as stop:    # --version exits through argparse
                status = stop.code
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
    return status, out.getvalue() + err.getvalue()


def assert_hidden(text: str, secrets: list[str]) -> None:
    for secret in secrets:
        assert secret not in text, (secret, text)


TRACE = ("trace", "--every", "15m", "--fires", "3")


@FAST
@given(urls())
def test_redact_hides_every_secret(case):
    url, secrets = case
    assert_hidden(redact(url), secrets)
    assert redact(url).startswith("redis://")


@FAST
@given(urls(host=f"127.0.0.1:{free_port()}"))
def test_nothing_listening(case):
    url, secrets = case
    status, text = run(url, *TRACE)
    assert status in (3, 4), text   # 3: an option redis:// does not take (ssl_password, PASSWORD)
    assert_hidden(text, secrets)


@FAST
@given(urls(scheme="http"))
def test_a_scheme_that_is_not_redis(case):
    url, secrets = case
    status, text = run(url, *TRACE)
    assert status == 3
    assert_hidden(text, secrets)


@FAST
@given(urls(path="/abc"), st.sampled_from(["", "&socket_timeout=abc", "&bogus=1"]))
def test_a_bad_database_or_option(case, extra):
    url, secrets = case
    url = url + (extra if "?" in url else extra.replace("&", "?", 1))
    status, text = run(url, *TRACE)
    assert status == 3
    assert_hidden(text, secrets)


@functools.cache
def _version_without_secrets() -> str:
    return run("redis://127.0.0.1:1/0", "--version")[1]


@FAST
@given(urls())
@example(("redis://:croniter@127.0.0.1:1/0", ["croniter", "croniter"]))
def test_version(case):
    """A secret the version line spells with no secret in the URL ("croniter", drawn from the
    project's own words, in "croniter 7.0.0": CI went red on it) is printed as the version's, not
    leaked: such a draw tells nothing about the redaction."""
    url, secrets = case
    assume(not any(secret in _version_without_secrets() for secret in secrets))
    status, text = run(url, "--version")
    assert status == 0 and text.startswith("emqsim ")
    assert_hidden(text, secrets)


@FAST
@given(urls())
def test_the_clean_up_line(case):
    """The command that removes what is left, printed when a clean-up cannot finish."""
    url, secrets = case
    store = SimpleNamespace(url=url, backend="redis", keys=Keys("q"), client=None)
    assert_hidden(Store.cleanup_command(store), secrets)


def test_a_web_server_and_a_mute_one():
    """Two slower faults (status 7 and 5), once each with both kinds of secret."""
    with listener(b"HTTP/1.1 400 Bad Request\r\n\r\n") as web, listener(None) as mute:
        for port, status in ((web, 7), (mute, 5)):
            url = (f"redis://alice:{quote('s3cret@x y', safe='')}@127.0.0.1:{port}/0"
                   f"?socket_timeout=0.5&socket_connect_timeout=0.5&password=hunter2hunter2")
            got, text = run(url, *TRACE)
            assert got == status, text
            assert_hidden(text, ["s3cret", "hunter2hunter2"])


@needs_redis_server
@pytest.mark.parametrize("where", ["user", "query"])
def test_a_run_that_logs_in(tmp_path, where):
    """A password that works (the user part, or ?password=): the trace and any line hold none of it."""
    secret = "Zq7-" + os.urandom(6).hex()
    with redis_server(tmp_path, "--requirepass", secret) as server:
        url = (f"redis://:{secret}@127.0.0.1:{server.port}/0" if where == "user"
               else f"redis://127.0.0.1:{server.port}/0?password={secret}")
        status, text = run(url, *TRACE)
        assert status == 0, text
        assert_hidden(text, [secret])
        # and a fault after logging in: the ACL takes EVALSHA away mid-session
        server.client.execute_command("ACL", "SETUSER", "default", "-evalsha")
        status, text = run(url, *TRACE)
        assert status == 12, text
        assert_hidden(text, [secret])
