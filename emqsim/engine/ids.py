"""Job ids: branded ids as EchoMQ mints them (a 3-letter namespace plus a base62
snowflake), and the slot-derived ids BullMQ gives a scheduler's jobs.

Fixed width (14 chars) and big-endian digits make branded ids sort by mint time as plain text.
The layout is EchoMQ's at commit b9f34ed0 of its `echo_mq` branch (`echo_data/lib/echo_data/
snowflake.ex`): a 41-bit ms timestamp, 10-bit node, 12-bit sequence, values below 2**63, which
`base62.ex` and `branded_id.ex` refuse past. So the ids span about 69.7 years from 2024.
"""

from __future__ import annotations

import numbers
import string

from .errors import InputError
from .timefmt import iso

EPOCH_MS = 1704067200000  # 2024-01-01T00:00:00Z
ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase
WIDTH = 11  # 62**11 > 2**63, so any id fits
TS_BITS = 41
MAX_ID = 2**63 - 1  # EchoMQ's encoders refuse larger
MAX_WORKER = 1023
MAX_SEQ = 4095
MAX_OFFSET_MS = 2**TS_BITS - 1

_DIGIT = {c: i for i, c in enumerate(ALPHABET)}
_PAIRS = tuple(a + b for a in ALPHABET for b in ALPHABET)   # two base62 digits at once: 62**2 of them


def id_time(value, name: str) -> int:
    """Whole Unix ms inside the span the branded ids cover (the only times a run can mint at)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} {value!r} is not whole Unix ms; give an integer such as 1796029200000", name)
    value = int(value)
    if not EPOCH_MS <= value <= EPOCH_MS + MAX_OFFSET_MS:
        raise InputError(f"{name} {value!r} is outside the times job ids can carry; {span()}", name)
    return value


def span() -> str:
    """The dates the branded ids cover, for messages."""
    return f"give a time from {iso(EPOCH_MS)} to {iso(EPOCH_MS + MAX_OFFSET_MS)}"


def span_dates() -> str:
    """The same span as two dates, for help texts."""
    return f"{iso(EPOCH_MS)[:10]} to {iso(EPOCH_MS + MAX_OFFSET_MS)[:10]}"


def years() -> str:
    """The length of that span in years, for messages about the longest duration."""
    return f"about {MAX_OFFSET_MS / (365.25 * 86_400_000):.1f} years"


def slot_job_id(name: str, slot: int) -> str:
    """The job id derived from a registration's slot, "repeat:<name>:<slot ms>" (BullMQ's
    JobScheduler.getSchedulerNextJobId): a second job for the same slot finds its id taken,
    which is how slot ids absorb a repeated slot."""
    return f"repeat:{name}:{slot}"


def _int(value: object, what: str) -> int:
    """`value` as an int: numpy's integers too (whole numbers); bools, floats and text refused."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{what} {value!r} is not an integer; give a whole number", what)
    return int(value)


def base62(n: int) -> str:
    """Encode an id (0 to 2**63 - 1) as 11 base62 digits, zero-padded so text order is numeric order."""
    n = _int(n, "id")
    if not 0 <= n <= MAX_ID:
        raise InputError(f"id {n} is out of range; use 0..{MAX_ID}", "id")
    return _digits(n)


def _digits(n: int) -> str:
    """The 11 digits of an id already checked (0 <= n <= MAX_ID): two at a time, the first
    alone (62**10 <= n < 62**11 leaves one digit)."""
    pairs = []
    for _ in range(WIDTH // 2):
        n, r = divmod(n, 3844)
        pairs.append(_PAIRS[r])
    pairs.append(ALPHABET[n])
    return "".join(reversed(pairs))


def unbase62(s: str) -> int:
    """Decode what base62 produced."""
    if not isinstance(s, str) or len(s) != WIDTH or any(c not in _DIGIT for c in s):
        raise InputError(f"{s!r} is not base62 id text; expected {WIDTH} characters from 0-9A-Za-z", "id")
    n = 0
    for c in s:
        n = n * 62 + _DIGIT[c]
    if n > MAX_ID:
        raise InputError(f"{s!r} decodes beyond 2**63 - 1; largest id is {base62(MAX_ID)}", "id")
    return n


def snowflake(ms: int, worker: int = 0, seq: int = 0) -> int:
    """Pack time, worker and sequence so ids from one worker grow with time."""
    ms, worker, seq = _int(ms, "ms"), _int(worker, "worker"), _int(seq, "seq")
    if not EPOCH_MS <= ms <= EPOCH_MS + MAX_OFFSET_MS:
        raise InputError(f"ms {ms} is out of range; use {EPOCH_MS}..{EPOCH_MS + MAX_OFFSET_MS} (from 2024-01-01T00:00:00Z)", "ms")
    if not 0 <= worker <= MAX_WORKER:
        raise InputError(f"worker {worker} is out of range; use 0..{MAX_WORKER}", "worker")
    if not 0 <= seq <= MAX_SEQ:
        raise InputError(f"seq {seq} is out of range; use 0..{MAX_SEQ}", "seq")
    return _pack(ms, worker, seq)


def _pack(ms: int, worker: int, seq: int) -> int:
    """The snowflake layout, of values already in range."""
    return (ms - EPOCH_MS) << 22 | worker << 12 | seq


def unsnowflake(n: int) -> tuple[int, int, int]:
    """Split a snowflake back into (unix ms, worker, seq)."""
    n = _int(n, "id")
    if not 0 <= n <= MAX_ID:
        raise InputError(f"id {n} is out of range; use 0..{MAX_ID}", "id")
    return (n >> 22) + EPOCH_MS, (n >> 12) & MAX_WORKER, n & MAX_SEQ


def _check_namespace(namespace: str) -> str:
    if not (isinstance(namespace, str) and len(namespace) == 3 and all("A" <= c <= "Z" for c in namespace)):
        raise InputError(f"namespace {namespace!r} is invalid; use exactly 3 upper-case letters A-Z, like 'JOB'", "namespace")
    return namespace


def encode(namespace: str, n: int) -> str:
    """Brand an id with its namespace so a job id can't be mistaken for a user id."""
    return _check_namespace(namespace) + base62(n)


def parse(branded: str) -> tuple[str, int]:
    """Split a branded id into (namespace, number), rejecting anything malformed."""
    if not isinstance(branded, str) or len(branded) != 3 + WIDTH:
        raise InputError(f"{branded!r} is not a branded id; expected 14 characters like 'JOB0KHTOWnGLuC'", "branded")
    namespace, digits = branded[:3], branded[3:]
    _check_namespace(namespace)
    return namespace, unbase62(digits)


def minted_at(branded: str) -> int:
    """The Unix ms at which a branded id was minted."""
    return unsnowflake(parse(branded)[1])[0]


class Minter:
    """Mints ids from virtual time; the per-ms sequence keeps same-ms ids unique and ordered.

    As EchoMQ's snowflake does (its carry borrows into the timestamp), a minter whose 12-bit
    sequence runs out within one ms mints the next ids in the following ms, running ahead
    of the clock rather than waiting, so ids stay unique and ordered; `minted_at` of such an
    id is that later ms.
    """

    def __init__(self, worker: int = 0, namespace: str = "JOB") -> None:
        worker = _int(worker, "worker")
        if not 0 <= worker <= MAX_WORKER:
            raise InputError(f"worker {worker} is out of range; use 0..{MAX_WORKER}", "worker")
        self.worker = worker
        self.namespace = _check_namespace(namespace)
        self._asked: int | None = None    # the latest ms a caller gave
        self._last_ms: int | None = None  # the ms inside the latest id (later after an overflow)
        self._seq = 0

    def mint(self, ms: int) -> str:
        ms = _int(ms, "ms")
        if self._asked is not None and ms < self._asked:
            raise InputError(f"cannot mint at {ms} after minting at {self._asked}; virtual time only moves forward", "ms")
        at, seq = ms, 0
        if self._last_ms is not None and ms <= self._last_ms:  # same ms, or one borrowed ahead of it
            at, seq = self._last_ms, self._seq + 1
            if seq > MAX_SEQ:
                at, seq = at + 1, 0
        if EPOCH_MS <= at <= EPOCH_MS + MAX_OFFSET_MS:   # what `encode(snowflake(...))` makes, checked once
            branded = self.namespace + _digits(_pack(at, self.worker, seq))
        else:
            branded = encode(self.namespace, snowflake(at, self.worker, seq))   # refuses it, naming the range
        self._asked, self._last_ms, self._seq = ms, at, seq
        return branded

    def __repr__(self) -> str:
        return f"Minter(worker={self.worker}, namespace={self.namespace!r})"
