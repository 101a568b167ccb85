"""Where the state lives: an embedded fakeredis server, or a real Redis/Valkey (or a cluster).

`EMQSIM_REDIS_URL` picks a real server (`redis://`, `rediss://`, `unix://`, or
`redis+cluster://HOST:PORT` for Redis Cluster); each `Store` then takes a random queue
name of its own and deletes that queue's keys on close, so runs never see each other's
rows, whatever process or container they run in. The name never reaches a trace, so
traces stay the same on every backend. Without the variable every `Store` gets a fresh
fakeredis server, isolated by construction.

A store is one run's: `PumpDesign` and `Chain` call `claim()` when they start, and a second
run on a store already used is refused with `InputError`. Two runs on one queue would
share its job ids (a slot-derived id made twice is one job, so slots go missing) and its
registry row (a re-run would carry on from where the first left off, not start again), and
two threads on one store would see each other's fires. The direct verbs (`Registry`,
`BullMQ`) claim nothing: a notebook may upsert a row and then run a simulation over it.

A real server that cannot be used (down, mute, wrong database, TLS mismatch, gone
mid-run, out of memory) raises one `ServerError`, naming the URL without its password
and what went wrong; its `status` is the command line's exit status for that case.
"""

from __future__ import annotations

import codecs
import functools
import math
import os
import re
import secrets
import signal
import ssl
import threading
import weakref
from urllib.parse import parse_qs, unquote, unquote_plus, urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from .errors import InputError, queue_name
from .fakelua import preload
from .keys import Keys
from .scripts import Scripts, script_files

ENV = "EMQSIM_REDIS_URL"
CLUSTER = "+cluster"     # redis+cluster://HOST:PORT, rediss+cluster://HOST:PORT
SCHEMES = ("redis", "rediss", "unix", "redis" + CLUSTER, "rediss" + CLUSTER)
CONNECT_TIMEOUT = 5.0    # seconds; a URL's ?socket_connect_timeout=... overrides
TIMEOUT = 10.0           # seconds for any reply; a URL's ?socket_timeout=... overrides
FAKE_VERSION = (7,)      # the Redis version the embedded fakeredis answers as (its client's default)

# What went wrong -> (exit status of `emqsim`, what the one line says). 2 is bad input.
FAULTS = {
    "url": (3, "not a usable Redis URL"),
    "unreachable": (4, "cannot connect"),
    "timeout": (5, "no answer in time"),
    "tls": (6, "TLS handshake failed"),
    "protocol": (7, "what answers there is not a Redis server"),
    "rejected": (8, "the server refused the session"),
    "lost": (9, "connection lost mid-run"),
    "full": (10, "the server is out of memory (maxmemory reached)"),
    "server": (11, "the server refused a command"),
    "denied": (12, "the user lacks a permission (ACL)"),
}
#: another client turned a key of the run into another type (WRONGTYPE): the status the
#: registry's own check gives when it finds its rows changed (`registry.RegistryChanged`)
CHANGED = (13, "a key of the run changed under it (another client rewrote it)")

#: The one table from a server's error reply to what went wrong. Redis starts every error
#: reply with a code (its first word); the code decides, not the wording after it, which
#: changes between versions. Each code: (a kind of FAULTS, or "changed"; what to do, if
#: anything helps). A code not here is status 11 with the server's line quoted.
CODES = {
    "ERR": ("server", ""),   # a generic code: ERR_MESSAGES reads the few that mean more
    "NOPERM": ("denied", ""),
    "WRONGPASS": ("rejected", ""),
    "NOAUTH": ("rejected", "the server wants a password: redis://:PASSWORD@HOST:PORT/0"),
    "NOPROTO": ("protocol", "it does not speak the protocol version redis-py asked for"),
    "OOM": ("full", ""),
    "WRONGTYPE": ("changed", ""),
    "NOREPLICAS": ("server", "the server takes no write while it has fewer replicas than "
                             "min-replicas-to-write"),
    "READONLY": ("server", "a read-only replica: give the primary's URL"),
    "MASTERDOWN": ("server", "a replica whose link to its primary is down"),
    "MISCONF": ("server", "its last save to disk failed, so it takes no write"),
    "LOADING": ("server", "it is still loading its data set; try again when it is up"),
    "BUSY": ("server", "a script or module command of another client is running too long"),
    "NOTBUSY": ("server", ""),
    "UNKILLABLE": ("server", ""),
    "BUSYKEY": ("server", ""),
    "BUSYGROUP": ("server", ""),
    "NOGROUP": ("server", ""),
    "UNBLOCKED": ("server", "another client unblocked the run's connection (CLIENT UNBLOCK)"),
    "EXECABORT": ("server", ""),
    "NOSCRIPT": ("server", "the server forgot the run's scripts (SCRIPT FLUSH by another client?)"),
    "CLUSTERDOWN": ("server", "the cluster is down"),
    "TRYAGAIN": ("server", "a cluster slot is moving; try again"),
    "CROSSSLOT": ("server", ""),
    "MOVED": ("server", "this is a cluster node, so the URL starts with redis+cluster://"),
    "ASK": ("server", "this is a cluster node, so the URL starts with redis+cluster://"),
}
#: ERR replies whose message (how it starts, any case) says more than the code
ERR_MESSAGES = {
    "unknown command": ("server", "this server has renamed or disabled a command the run uses "
                                  "(rename-command in its config)"),
    "Unknown Redis command called from script": ("server", "this server has renamed or disabled a command "
                                                           "the run's scripts use (rename-command in its config)"),
    "The user executing the script can't run this command": ("denied", ""),
    "DB index is out of range": ("rejected", ""),
    "invalid password": ("rejected", ""),
    "wrong number of arguments for 'auth'": ("rejected", ""),
    "max number of clients reached": ("rejected", "the server has as many clients as maxclients allows"),
    "This instance has cluster support disabled": ("server", "for a single server the URL starts with redis://"),
}
#: signals held off while a run's keys are removed, so an impatient second Ctrl-C or a
#: hang-up during clean-up cannot leave half of them
HELD = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))


def statuses() -> str:
    """The exit statuses above as one line of text, for `emqsim trace --help`."""
    return ", ".join(f"{status} {what}" for status, what in FAULTS.values())


class ServerError(RuntimeError):
    """A real Redis server could not be used; `kind` says why, `status` is the exit status."""

    #: set when the run's keys could not all be removed: what may remain and the command that removes it
    remains: str | None = None
    #: the code of the server's error reply this stands for (None: not an error reply), and
    #: whether the table names it (a code of its own, or an ERR message it reads)
    code: str | None = None
    known = False

    def __init__(self, url: str | None, kind: str, detail: str = ""):
        status, what = CHANGED if kind == "changed" else FAULTS[kind]
        self.url, self.kind, self.status = redact(url), kind, status
        detail = scrub(" ".join(str(detail).split()), url)
        super().__init__(f"{self.url}: {what}" + (f" ({detail})" if detail else ""))


#: a URL's query options whose value is a secret: redis-py hands an option it does not parse
#: to the connection as it is, so `?password=...` (and `ssl_password`) log in like the user part
SECRET_OPTION = re.compile(r"pass|secret|token|credential", re.IGNORECASE)


def redact(url: str | None) -> str:
    """The URL fit to print: the password of the user part and every secret query option
    (SECRET_OPTION) replaced by ***. The one place a URL is made printable."""
    if url is None:
        return "(no URL)"
    try:
        parts = urlsplit(str(url))
        netloc = parts.netloc
        if parts.password is not None:
            netloc = f"{parts.netloc.rsplit('@', 1)[0].split(':', 1)[0]}:***@{parts.netloc.rsplit('@', 1)[1]}"
        query = "&".join(_quiet(option) for option in parts.query.split("&")) if parts.query else ""
        if (netloc, query) == (parts.netloc, parts.query):
            return str(url)
        shown = urlunsplit(parts._replace(netloc=netloc, query=query))
        if not netloc and str(url).lower().startswith(f"{parts.scheme}://"):   # unix:///path keeps its //
            shown = f"{parts.scheme}://{shown[len(parts.scheme) + 1:]}"
        return shown
    except ValueError:
        return "(a malformed URL)"


def _quiet(option: str) -> str:
    name, eq, value = option.partition("=")
    return f"{name}=***" if eq and SECRET_OPTION.search(unquote_plus(name)) else option


def secrets_of(url: str | None) -> list[str]:
    """The secrets a URL carries, as written and as decoded: what no printed line may hold."""
    if not url:
        return []
    found = []
    try:
        parts = urlsplit(str(url))
        if parts.password:
            found.append(parts.netloc.rsplit("@", 1)[0].split(":", 1)[1])
        for option in parts.query.split("&"):
            name, eq, value = option.partition("=")
            if eq and value and SECRET_OPTION.search(unquote_plus(name)):
                found.append(value)
    except ValueError:
        return []
    found += [unquote_plus(f) for f in found] + [unquote(f) for f in found]
    return sorted({f for f in found if len(f) >= 3}, key=len, reverse=True)


def scrub(text: str, url: str | None) -> str:
    """`text` (a client's or server's message about `url`) with the URL's secrets taken out."""
    for secret in secrets_of(url):
        text = text.replace(secret, "***")
    return text


def env_url() -> str | None:
    """$EMQSIM_REDIS_URL, or None when it is unset; set but empty is refused, not fakeredis."""
    url = os.environ.get(ENV)
    if url is not None and not url.strip():
        raise ServerError(f"{ENV}=''", "url", f"{ENV} is set but empty; unset it to use the embedded "
                          "fakeredis, or give a URL like redis://127.0.0.1:6379/0")
    return url


def embedded():
    """A client of a new embedded fakeredis server of its own, with fakeredis's own per-script
    costs off (`fakelua.speed`: the same answers). What every store without a URL runs on."""
    import fakeredis  # imported late: slow to import, and a real server never needs it

    from .fakelua import speed

    # a server of its own, handed in: `FakeRedis()` alone files each new server in a
    # process-wide map (keyed by a random host) that keeps it, and all it held, for good
    return speed(fakeredis.FakeRedis(server=fakeredis.FakeServer(version=FAKE_VERSION), version=FAKE_VERSION))


def _empty(client) -> None:
    """Empty an embedded server that is closing (FLUSHALL, SCRIPT FLUSH): its keys are freed
    now, by reference count, rather than whenever Python's cycle collector next visits the
    server (the server, its Lua runtime and its connections hold each other). Without it a
    reader's kernel grew by every run's keys until a full collection came."""
    from .fakelua import release

    client.flushall()
    client.script_flush()
    release(client)


def connect(url: str | None = None) -> redis.Redis:
    """A client for `url`, else for $EMQSIM_REDIS_URL, else a new embedded fakeredis server.

    A real server is asked PING here, so one that is down or mute is reported before
    anything is written."""
    url = env_url() if url is None else url
    if url is None:
        return embedded()
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in SCHEMES:
        raise ServerError(url, "url", f"{redact(url)[:40]!r} does not start with one of "
                          + ", ".join(s + "://" for s in SCHEMES))
    _check_database(url, scheme)
    _check_options(url, scheme)
    options = dict(socket_connect_timeout=CONNECT_TIMEOUT, socket_timeout=TIMEOUT)
    try:
        if scheme.endswith(CLUSTER):
            client = _Cluster.from_url(scheme[: -len(CLUSTER)] + url[len(scheme):], **options)
        else:  # no retries: a write script re-sent after a timeout could run twice
            client = _Redis.from_url(url, retry=Retry(NoBackoff(), 0), **options)
    except (ValueError, TypeError) as exc:  # the URL's own syntax: port, db or an option
        raise ServerError(url, "url", exc) from None
    except (redis.RedisError, RedisClusterException, OSError) as exc:
        raise _fault(exc, url, used=False) or ServerError(url, "server", exc) from exc
    client.emqsim_url = url
    try:
        _is_redis(client, url)
    except (ValueError, TypeError) as exc:  # an option redis-py only reads on connecting: ?bogus=1
        client.close()
        raise ServerError(url, "url", f"an option of the URL: {exc}") from None
    except BaseException:
        client.close()
        raise
    client.emqsim_used = True
    return client


def _is_redis(client, url: str) -> None:
    """Ask PING and INFO: a listener that takes the connection but is not Redis (another RESP
    server, a web server, one that hangs up) is status 7 here, before anything is written.
    PING must be answered PONG; INFO, where the user may ask it, must name a redis_version."""
    try:
        pong = client.ping()
    except ServerError as err:   # Redis answers PING with PONG, or an error of its own code
        if err.code is not None and (not err.known or (err.code == "ERR" and err.kind == "server")):
            raise ServerError(url, "protocol", f"it answered PING with the error {str(err.__cause__)[:80]!r}") \
                from None
        raise
    except (AttributeError, KeyError, IndexError, UnicodeError) as exc:  # redis-py reading its HELLO
        raise ServerError(url, "protocol", f"its answer to HELLO is not Redis's ({type(exc).__name__}: "
                          f"{str(exc)[:80]})") from None
    if pong is not True:
        raise ServerError(url, "protocol", f"it answered PING with {pong!r:.80}, not PONG")
    if isinstance(client, redis.RedisCluster):
        return
    try:
        info = client.execute_command("INFO", "server")
    except ServerError as err:
        if err.kind in ("server", "denied") and isinstance(err.__cause__, redis.ResponseError):
            return   # an ACL without INFO, or INFO renamed: an error reply, as Redis gives
        raise
    except (redis.RedisError, ValueError, TypeError, AttributeError, IndexError) as exc:
        raise ServerError(url, "protocol", f"its answer to INFO is not Redis's: {exc}") from None
    if not isinstance(info, dict) or "redis_version" not in info:
        raise ServerError(url, "protocol", f"its answer to INFO names no redis_version: {str(info)[:80]!r}")


def _number(kind, low):
    def check(value: str) -> bool:
        try:
            x = kind(value)
        except ValueError:
            return False
        return math.isfinite(x) and x >= low and (kind is int or x > 0)
    return check


_BOOLS = {"0", "f", "false", "n", "no", "off", "1", "t", "true", "y", "yes", "on"}


def _known(lookup):
    def check(value: str) -> bool:
        try:
            lookup(value)
        except LookupError:
            return False
        return True
    return check


#: URL options emqsim checks before redis-py reads them: redis-py turns a few values it cannot use
#: into a traceback later (?socket_timeout=inf, ?health_check_interval=-5), takes any word for a
#: yes, and hands options it does not parse to the connection as text (?decode_responses=true made
#: every reply text, which the run cannot read). name -> (is the value usable?, what to give)
OPTIONS = {
    "db": (lambda v: v.isascii() and v.isdigit() and len(v) <= 5, "a database number such as 0"),
    "socket_timeout": (_number(float, 0), "seconds, more than 0 and finite, such as 2"),
    "socket_connect_timeout": (_number(float, 0), "seconds, more than 0 and finite, such as 2"),
    "socket_read_size": (_number(int, 1), "a whole number of bytes, 1 or more"),
    "max_connections": (_number(int, 1), "a whole number, 1 or more"),
    "health_check_interval": (_number(int, 0), "whole seconds, 0 or more"),
    "protocol": (lambda v: v in ("2", "3"), "2 or 3"),
    "socket_keepalive": (lambda v: v.lower() in _BOOLS, "true or false"),
    "retry_on_timeout": (lambda v: v.lower() in _BOOLS, "true or false"),
    "legacy_responses": (lambda v: v.lower() in _BOOLS, "true or false"),
    "decode_responses": (lambda v: False, "none: leave it out (emqsim reads the server's replies as bytes, "
                                          "and redis-py takes any value in a URL, false too, for true)"),
    "client_name": (lambda v: re.fullmatch(r"[!-~]{1,200}", v) is not None,
                    "printable ASCII without spaces, as Redis takes for a client name"),
    "encoding": (lambda v: _known(codecs.lookup)(v) and "emq:{q} 1.5".encode(v) == b"emq:{q} 1.5",
                 "an encoding that writes ASCII as ASCII, such as utf-8"),
    "encoding_errors": (_known(codecs.lookup_error), "strict, replace or another error handler Python knows"),
    "timeout": (lambda v: False, "socket_timeout instead: redis-py reads timeout but its connection takes "
                                 "no such option"),
}


def _check_options(url: str, scheme: str) -> None:
    """Refuse (status 3, naming the option) a URL option whose value emqsim cannot run with;
    an option of TLS on a URL without TLS, too. Secret options are named, never shown."""
    try:
        query = parse_qs(urlsplit(url).query)
    except ValueError:
        return   # redis-py's own reading refuses it below
    for name, values in query.items():
        value = values[0]
        shown = f"?{name}" if SECRET_OPTION.search(name) else f"?{name}={value[:40]!r}"
        if name.startswith("ssl_") and not scheme.startswith("rediss"):
            raise ServerError(url, "url", f"{shown} applies to a TLS connection only: a rediss:// URL")
        check = OPTIONS.get(name)
        if check is not None and not check[0](value):
            raise ServerError(url, "url", f"{shown} is not usable; give {check[1]}")


def _check_database(url: str, scheme: str) -> None:
    """redis-py reads `/abc` as database 0 without a word: a database is digits or absent
    (unix:// gives it as ?db=N, a cluster has only database 0)."""
    if scheme == "unix":
        return
    path = urlsplit(url).path
    if path in ("", "/"):
        return
    if not re.fullmatch(r"/[0-9]{1,5}", path, re.ASCII):
        raise ServerError(url, "url", f"database {path[1:41]!r} is not a number; give one like /0")
    if scheme.endswith(CLUSTER) and int(path[1:]) != 0:
        raise ServerError(url, "url", f"a cluster has only database 0, not {int(path[1:])}; give /0 or none")


def _fault(exc: BaseException, url: str, used: bool) -> ServerError | None:
    """The ServerError a redis-py error stands for, or None if it is not about the server.

    An error reply of the server is read by its code (`reply_fault`); the rest is the
    connection's own trouble, read by redis-py's class for it."""
    text = str(exc)
    if getattr(exc, "status_code", None) or isinstance(exc, redis.ResponseError):
        return reply_fault(exc, url)
    if isinstance(exc, redis.TimeoutError) or "Timeout" in type(exc).__name__:
        if not used and (url or "").lower().startswith("rediss"):  # a plain server ignores the hello
            return ServerError(url, "tls", f"{text}; is that server set up for TLS, or is it a redis:// URL?")
        return ServerError(url, "timeout", text)
    if isinstance(exc, (redis.AuthenticationError, redis.exceptions.AuthenticationWrongNumberOfArgsError)):
        return ServerError(url, "rejected", text)
    if isinstance(exc, redis.exceptions.InvalidResponse):
        return ServerError(url, "protocol", text)
    if "Cluster mode is not enabled" in text:   # redis-py's cluster client, told so by one server
        return ServerError(url, "server", f"{text}; for a single server the URL starts with redis://")
    if isinstance(exc, (redis.ConnectionError, OSError)) or (isinstance(exc, RedisClusterException)
                                                             and "connect" in text):
        chain, e = [], exc
        while e is not None and len(chain) < 5:
            chain.append(e)
            e = e.__cause__ or e.__context__
        if any(isinstance(e, ssl.SSLError) for e in chain) or "SSL" in text:
            return ServerError(url, "tls", text)
        if not used and "closed by server" in text:  # took the connection, hung up without a reply
            return ServerError(url, "protocol", f"{text.rstrip('.')}; it gave no Redis reply")
        return ServerError(url, "lost" if used else "unreachable", text)
    if isinstance(exc, RedisClusterException):
        return ServerError(url, "server", text)
    return None   # redis-py refusing our own arguments (DataError): a bug of ours, not the server's


def reply_code(exc: BaseException) -> tuple[str, str]:
    """(code, the server's line) of an error reply: redis-py keeps the code apart
    (`status_code`) and drops it from the text of the codes it has a class for."""
    lines = str(exc).strip().splitlines()
    text = " ".join(lines[0].split()) if lines else ""
    code = getattr(exc, "status_code", None)
    if not code:
        first = text.split(" ", 1)[0]
        code = first if re.fullmatch(r"[A-Z][A-Z0-9_]*", first) else "ERR"
    if not (text == code or text.startswith(code + " ") or f"error: {code} " in text):
        text = f"{code} {text}".rstrip()
    return code, text


def reply_fault(exc: BaseException, url: str | None) -> ServerError:
    """The ServerError for an error reply, from the table: its code, then for ERR how the
    message starts; a code not in the table is status 11 with the server's line quoted."""
    code, line = reply_code(exc)
    kind, hint = CODES.get(code, ("server", "an error reply emqsim does not know"))
    known = code in CODES and code != "ERR"
    if code == "ERR":
        message = line.split(" ", 1)[1] if line.startswith("ERR ") else line
        message = message.split("caused error: ", 1)[-1].removeprefix("ERR ")
        for start, (k, h) in ERR_MESSAGES.items():
            if message.lower().startswith(start.lower()):
                kind, hint, known = k, h, True
                break
        else:
            if isinstance(exc, redis.AuthenticationError):   # redis-py's reading of an ERR to AUTH
                kind, known = "rejected", True
    err = ServerError(url, kind, f"{line}; {hint}" if hint else line)
    err.code, err.known = code, known
    return err


class _Guard:
    """Turns the redis-py errors that mean "this server cannot be used" into ServerError."""

    emqsim_url: str | None = None
    emqsim_used = False    # a command went through: a later connection error means "lost"
    emqsim_fault: ServerError | None = None

    def _noted(self, exc: BaseException) -> ServerError | None:
        err = _fault(exc, self.emqsim_url, self.emqsim_used)
        self.emqsim_fault = self.emqsim_fault or err
        return err

    def _guarded(self, call, *args, **options):
        try:
            return call(*args, **options)
        except (redis.RedisError, RedisClusterException) as exc:
            err = self._noted(exc)
            if err is None:
                raise
            raise err from exc

    def execute_command(self, *args, **options):
        try:
            return super().execute_command(*args, **options)
        except redis.exceptions.NoScriptError:  # EVALSHA of a script the server forgot: redis-py's
            raise                                # Script loads it again and retries
        except (redis.RedisError, RedisClusterException) as exc:
            err = self._noted(exc)
            if err is None:
                raise
            raise err from exc

    def pipeline(self, *args, **kwargs):
        pipe = super().pipeline(*args, **kwargs)
        pipe.execute = functools.partial(self._guarded, pipe.execute)
        return pipe


class _Redis(_Guard, redis.Redis):
    pass


class _Cluster(_Guard, redis.RedisCluster):
    pass


class Store:
    """A client, the queue's keys and the scripts loaded on that client."""

    def __init__(self, queue: str = "demo", url: str | None = None, client: redis.Redis | None = None):
        queue_name(queue)
        self.url = env_url() if url is None and client is None else url
        self.client = client or connect(self.url)
        self.real = self.url is not None and client is None
        self._own_server = self.url is None and client is None   # an embedded server made for it alone
        if self.real:  # a shared server: a random queue name, unique without the pid
            queue = f"{queue}-{secrets.token_hex(8)}"
        self.keys = Keys(queue)
        self.scripts = Scripts(self.client)
        if self._embedded():
            # loaded up front: a first EVALSHA answered NOSCRIPT leaves that error, and through its
            # traceback every frame of the run that made it (a lesson model's too), held inside
            # the embedded server's socket for as long as the store lives
            sources = script_files().values()
            if not preload(self.client, sources):
                pipe = self.client.pipeline(transaction=False)   # one round trip for all of them
                for source in sources:
                    pipe.script_load(source)
                pipe.execute()
        self.backend = ("cluster" if isinstance(self.client, redis.RedisCluster) else "redis") \
            if self.real else "fakeredis"
        #: after a clean-up that could not finish: one line saying what may remain and how to remove it
        self.remains: str | None = None
        self._claim = threading.Lock()
        self.claimed_by: str | None = None   # the run that uses this store (see `claim`)
        if self.real:  # a user who may write but not SCAN or DEL would leave every key: ask first
            try:
                self.client.scan(0, match=self.keys.pattern, count=1)
                self.client.delete(f"{self.keys.base}:probe")
            except BaseException:
                self.client.close()
                raise
        # a store nobody closed (a notebook's run left open when its kernel shuts down, or dropped)
        # still takes its keys off a shared server: at collection or at the interpreter's exit
        self._left_open = weakref.finalize(self, _drop_keys, self.client, self.keys.pattern) if self.real else None

    def _embedded(self) -> bool:
        """Whether the client is an embedded fakeredis (made here, or handed in)."""
        return type(self.client).__module__.split(".")[0] == "fakeredis"

    def claim(self, run: str) -> None:
        """Take this store for one run (`run` says which, e.g. "a pump-design run"); a store a
        run has already taken is refused, in any thread, before the second run writes."""
        with self._claim:
            if self.claimed_by is not None:
                raise InputError(f"store of queue {self.keys.queue!r} already holds {self.claimed_by}; a second "
                                 "run on it would share its job ids and registry rows: pass a fresh Store(), "
                                 "or no store", "store")
            self.claimed_by = run

    def queue_keys(self) -> list[bytes]:
        """This queue's keys and no other's, by SCAN with the queue's pattern (every primary of a
        cluster): a shared server may hold many other runs' keys, which neither a clean-up nor a
        check of what a run wrote may touch or wait on."""
        return list(self.client.scan_iter(match=self.keys.pattern, count=1000))

    def cleanup_command(self) -> str:
        """The one shell line that removes this queue's keys (the URL without its password)."""
        url, c = redact(self.url), ""
        if self.backend == "cluster":  # SCAN reads one node: the one that holds the queue's slot
            c, parts = " -c", urlsplit(url.replace(CLUSTER, "", 1))
            try:
                node = self.client.get_node_from_key(self.keys.repeat)
                host = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
                url = urlunsplit(parts._replace(netloc=f"{host}{node.host}:{node.port}"))
            except Exception:  # no slot map: the URL given, which may be another node
                url = urlunsplit(parts)
        return (f"redis-cli{c} -u '{url}' --scan --pattern '{self.keys.pattern}' "
                f"| xargs -r redis-cli{c} -u '{url}' del")

    def close(self) -> None:
        """Delete this queue's keys from a real server; an embedded one just goes away.

        On a cluster SCAN visits every primary. If the server already failed during the run,
        a failing clean-up stays quiet: the first error is the one to report."""
        if self._left_open is not None:
            self._left_open.detach()
        earlier = getattr(self.client, "emqsim_fault", None)
        held = _hold() if self.real else None
        try:
            if self.real:
                self._delete_keys(earlier)
            elif self._own_server:   # a client handed in keeps its server's data
                _empty(self.client)
        finally:
            try:
                self.client.close()
            finally:
                if held is not None:
                    signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def _delete_keys(self, earlier: ServerError | None) -> None:
        """SCAN and DEL this queue's keys; if that fails, note on the error what may remain."""
        found = None
        try:
            batch = self.queue_keys()
            found = len(batch)
            for i in range(0, len(batch), 500):
                self.client.delete(*batch[i : i + 500])
                found -= len(batch[i : i + 500])
        except ServerError as exc:
            many = "an unknown number of keys" if found is None else f"{found:,} key{'s' if found != 1 else ''}"
            self.remains = (f"{many} of queue {self.keys.queue} may remain on the server; remove them with: "
                            f"{self.cleanup_command()}")
            for err in (exc, earlier):
                if err is not None:
                    err.remains = self.remains
            if earlier is None:
                raise

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _drop_keys(client, pattern: str) -> None:
    """A store's clean-up when it was never closed: delete its queue's keys, quietly (at exit
    there is no one left to tell), then let the connection go."""
    try:
        batch = list(client.scan_iter(match=pattern, count=1000))
        for i in range(0, len(batch), 500):
            client.delete(*batch[i : i + 500])
    except Exception:
        pass
    finally:
        try:
            client.close()
        except Exception:
            pass


def _hold():
    """Block the HELD signals in this thread; returns the mask to restore (None off the main
    thread, where Python runs no signal handler anyway)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, HELD)


class HoldsStore:
    """A run's hold on its store: `close` (or leaving a `with` block) closes the store only
    if the run made it; a store handed in stays open for its owner."""

    store: Store
    _own_store: bool

    def close(self) -> None:
        if self._own_store:
            self.store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()
