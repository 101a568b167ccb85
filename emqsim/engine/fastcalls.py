"""Direct paths for the commands BullMQ's scripts call most, on fakeredis's own stored values.

A `redis.call` inside a script costs fakeredis about ten times the Lua-to-Python crossing
itself: the signature read position by position, a `CommandItem` per key, the reply's RESP2
conversion, the write-back and the notification steps, whatever the command. BullMQ 6.7.0's
scripts make about 37 such calls a pickup, most of them plain (HGET, HMGET, ZADD, XADD, ...),
and those calls cost about as much as the real BullMQ's whole pickup on redis-server.

Each function here does one command's work on the database's own values (`Hash`, `ZSet`,
lists, bytes, `XStream`: the objects fakeredis stores, changed as its own command code
changes them, its own parsers and stream code called where there is more than plain bytes),
or answers `MISS` before changing anything: then `fakelua._Calls` runs fakeredis's own path,
so every error (WRONGTYPE, a bad number, an option, a wrong argument count) and every case
not handled here (a key with a TTL being written, a hash with field TTLs, an option, a set
that exists) reads and ends as it always did. `usable` says when no direct path may run at
all: someone watching a key, a subscriber, a blocked client, a pubsub socket, a server that
is not redis or speaks RESP3 inside the script (checked by the caller).

`enabled = False` turns every direct path off (the adapter's other savings stay):
tests/test_fakelua_direct.py holds replies and stored state equal to plain fakeredis, command
by command and over BullMQ's own scripts, errors included.
"""

from __future__ import annotations

enabled = True          # False: every redis.call takes fakeredis's own path

MISS = object()         # "not handled here": the caller runs fakeredis's own command


def _bind():
    """The fakeredis pieces the direct paths use (fakelua checks the version first)."""
    from fakeredis._command_args_parsing import Float, Int
    from fakeredis._core._database import Item
    from fakeredis._helpers import OK, SimpleError, fix_range, null_terminate
    from fakeredis.commands_mixins.sortedset_mixin import ScoreTest
    from fakeredis.model import Hash, XStream, ZSet
    from fakeredis.model._stream import MAX_KEY

    return Float, Int, Item, OK, SimpleError, fix_range, null_terminate, ScoreTest, Hash, XStream, ZSet, MAX_KEY


def _appender():
    """`append(stream, fields, entry, max_entries, max_bytes)`: `XStream.add` (fakeredis 2.41) with
    the same node bookkeeping (where a node starts, its entry counts and listpack size in bytes,
    which decide what approximate trimming drops), each element's listpack size looked up once
    per distinct value instead of worked out at every entry. tests/test_fakelua_direct.py holds
    the stored stream (its nodes too: DUMP pickles them) equal to fakeredis's own XADD."""
    from fakeredis.model import _stream

    node_class, int_size, str_size = _stream._StreamNode, _stream._lp_int_size, _stream._lp_str_size
    samefields, empty, most = _stream._ENTRY_SAMEFIELDS, _stream._LP_EMPTY_SIZE, _stream._LP_MAX_SIZE
    sizes: dict = {}

    def size(value):
        got = sizes.get(value)
        if got is None:
            if len(sizes) > 4096:
                sizes.clear()
            got = sizes[value] = str_size(value)
        return got

    def append(stream, fields, key, max_entries, max_bytes):
        names, values = list(fields[0::2]), fields[1::2]
        nodes = stream._nodes
        node = nodes[-1] if nodes else None
        if node is not None:
            limit = max_bytes if 0 < max_bytes <= most else most
            if node.lp_bytes + sum(map(len, fields)) >= limit or (
                    max_entries and node.live + node.deleted >= max_entries):
                node = None
        if node is None:
            header = int_size(0) * 3 + int_size(len(names)) + sum(map(size, names))
            node = node_class(key, names, key, 0, 0, empty + header)
            nodes.append(node)
        same = names == node.master_fields
        master = node.master_id
        entry = (int_size(samefields if same else 0) + int_size(key.ts - master.ts) + int_size(key.seq - master.seq)
                 + sum(map(size, values)) + int_size(len(names) + 3 if same else 2 * len(names) + 4))
        if not same:
            entry += int_size(len(names)) + sum(map(size, names))
        node.lp_bytes += entry
        node.set_counts(node.live + 1, node.deleted)
        node.last_id = key
        stream._ids.append(key)
        stream._values_dict[key] = list(fields)
        stream._entries_added += 1
        stream._last_id = key

    return append


def usable(sock) -> bool:
    """True when nothing but the command's own work is due on `sock`'s database: no watcher to
    tell, no subscriber to notify, no blocked client to wake, not a pubsub socket, and a
    server version before 8.8 (where fakeredis sends no per-field notifications)."""
    server, db = sock._server, sock._db
    return not (server.subscribers or server.psubscribers or db._watches or db.condition._waiters
                or db._change_callbacks or sock._pubsub) and server.version < (8, 8)


def table():
    """{fakeredis's command name (lower case): function(sock, db, args) -> reply or MISS}.
    The reply is what fakeredis's `_run_command` returns for the call (before its conversion to
    Lua); `args` are the call's arguments after fakeredis's own Lua conversion (all bytes)."""
    Float, Int, Item, OK, SimpleError, fix_range, null_terminate, ScoreTest, Hash, XStream, ZSet, MAX_KEY = _bind()
    ZADD_OPTIONS = {b"nx", b"xx", b"ch", b"incr", b"gt", b"lt"}

    def read_score(v):
        """`Float.decode(v)` (ZADD's score): plain digits (how a script's Lua numbers arrive) are
        read at once; for them fakeredis's checks (spaces, NaN, overflow) cannot refuse."""
        if v.isdigit() and len(v) < 300:
            return float(v)
        return Float.decode(v)

    def read_int(v):
        """`Int.decode(v)`: plain digits without a leading zero and under 19 of them are a whole
        number it reads as it is; anything else goes to it (and its refusal)."""
        if v.isdigit() and len(v) < 19 and (v[0] != 48 or len(v) == 1):
            return int(v)
        return Int.decode(v)

    def endpoint(v):
        """`ScoreTest.decode(v)` (a score range's end), plain digits read at once as above."""
        if v.isdigit() and len(v) < 300:
            return ScoreTest(float(v), False, v)
        return ScoreTest.decode(v)

    def live(db, key):
        """The stored Item (a TTL not yet run out is read as fakeredis reads it) or None, or MISS for
        an expired key (fakeredis drops it on its own path)."""
        item = db._dict.get(key)
        if item is None:
            return None
        if item.expireat is not None and item.expireat < db.time:
            return MISS
        return item

    def writable(db, key, kind):
        """The stored Item of `key` to be changed in place, None when absent, MISS when it has a TTL
        (fakeredis re-schedules it), is expired or holds another type."""
        item = db._dict.get(key)
        if item is None:
            return None
        if item.expireat is not None or type(item.value) is not kind:
            return MISS
        return item

    def plain_hash(item):
        """True for a hash with no field TTLs (or none stored)."""
        if item is None:
            return True
        h = item.value
        return not (h._expirations or h._expiry_heap or h._expired_fields)

    def store(db, key, item, value):
        """What `CommandItem.writeback` leaves for a changed key without a TTL: a new Item at the
        end of the key order, or the same Item given the value; an empty container removed."""
        if not value and type(value) is not bytes:
            if item is not None:
                del db._dict[key]
            return
        if item is None:
            db._dict[key] = Item(value)
        else:
            item.value = value

    def read_hash(db, key):
        item = live(db, key)
        if item is MISS or (item is not None and (type(item.value) is not Hash or not plain_hash(item))):
            return MISS
        return item

    # -- hashes ---------------------------------------------------------------------------------

    def hget(sock, db, args):
        if len(args) != 2:
            return MISS
        item = read_hash(db, args[0])
        if item is MISS:
            return MISS
        return None if item is None else item.value._values.get(args[1])

    def hmget(sock, db, args):
        if len(args) < 2:
            return MISS
        item = read_hash(db, args[0])
        if item is MISS:
            return MISS
        if item is None:
            return [None] * (len(args) - 1)
        get = item.value._values.get
        return [get(f) for f in args[1:]]

    def hgetall(sock, db, args):
        if len(args) != 1:
            return MISS
        item = read_hash(db, args[0])
        if item is MISS:
            return MISS
        out = []
        if item is not None:
            for k, v in item.value._values.items():
                out.append(k)
                out.append(v)
        return out

    def hset_pairs(db, args):
        """(item, hash, created) after HSET's writes, or MISS."""
        if len(args) < 3 or len(args) % 2 == 0:
            return MISS
        key = args[0]
        item = writable(db, key, Hash)
        if item is MISS or not plain_hash(item):
            return MISS
        h = Hash() if item is None else item.value
        values = h._values
        before = len(values)
        values.update(dict(zip(*[iter(args[1:])] * 2)))
        created = len(values) - before
        store(db, key, item, h)
        return created

    def hset(sock, db, args):
        return hset_pairs(db, args)

    def hmset(sock, db, args):
        return MISS if hset_pairs(db, args) is MISS else OK

    def hincrby(sock, db, args):
        if len(args) != 3:
            return MISS
        key, field, amount = args
        item = writable(db, key, Hash)
        if item is MISS or not plain_hash(item):
            return MISS
        try:
            c = read_int(amount) + read_int(b"0" if item is None else item.value._values.get(field, b"0"))
            encoded = Int.encode(0 + c)
        except SimpleError:
            return MISS
        h = Hash() if item is None else item.value
        h._values[field] = encoded
        store(db, key, item, h)
        return c

    # -- keys and strings -----------------------------------------------------------------------

    def exists(sock, db, args):
        if not args:
            return MISS
        n = 0
        for key in args:
            item = live(db, key)
            if item is MISS:
                return MISS
            if item is not None and (item.value or type(item.value) is bytes):
                n += 1
        return n

    def delete(sock, db, args):
        if not args:
            return MISS
        items = []
        for key in args:
            item = live(db, key)
            if item is MISS:
                return MISS
            items.append(item)
        n, done = 0, set()
        for key, item in zip(args, items):
            if item is not None and (item.value or type(item.value) is bytes) and key not in done:
                done.add(key)
                del db._dict[key]
                n += 1
        return n

    def get(sock, db, args):
        if len(args) != 1:
            return MISS
        item = live(db, args[0])
        if item is MISS or (item is not None and type(item.value) is not bytes):
            return MISS
        return None if item is None else item.value

    def set_(sock, db, args):
        """Only SET key value and SET key value PX ms (BullMQ's lock): fakeredis's `set_` with its
        write-back, the key kept in its place when it lives, added at the end otherwise."""
        if len(args) == 2:
            px = None
        elif len(args) == 4 and null_terminate(args[2]) == b"px":
            try:
                px = read_int(args[3])
            except SimpleError:
                return MISS
            if px <= 0 or db.time * 1000 + px >= 2 ** 63:
                return MISS
        else:
            return MISS
        key, value = args[0], args[1]
        item = live(db, key)
        if item is MISS:
            return MISS
        if item is None:
            item = db._dict[key] = Item(value)
        else:
            item.value = value
        item.expireat = None if px is None else db.time + px / 1000.0
        db.schedule_expiry(key, item.expireat)
        return OK

    def incr(sock, db, args):
        if len(args) != 1:
            return MISS
        key = args[0]
        item = writable(db, key, bytes)
        if item is MISS:
            return MISS
        try:
            c = read_int(b"0" if item is None else item.value) + 1
            encoded = Int.encode(0 + c)
        except SimpleError:
            return MISS
        store(db, key, item, encoded)
        return c

    # -- sorted sets ----------------------------------------------------------------------------

    def read_zset(db, key):
        item = live(db, key)
        if item is MISS or (item is not None and type(item.value) is not ZSet):
            return MISS
        return item

    def zadd(sock, db, args):
        if len(args) < 3 or len(args) % 2 == 0 or null_terminate(args[1]) in ZADD_OPTIONS:
            return MISS
        key = args[0]
        item = writable(db, key, ZSet)
        if item is MISS:
            return MISS
        zero = 0.0 if sock.version >= (7,) else -0.0   # fakeredis adds 0.0 from Redis 7 on (-0.0 becomes 0.0)
        try:
            pairs = [(zero + read_score(args[j]), args[j + 1]) for j in range(1, len(args), 2)]
        except SimpleError:
            return MISS
        z = ZSet() if item is None else item.value
        before = len(z)
        changed = 0
        for score, member in pairs:
            if z.add(member, score):
                changed += 1
        if changed:
            store(db, key, item, z)
        return len(z) - before

    def zscore(sock, db, args):
        if len(args) != 2:
            return MISS
        item = read_zset(db, args[0])
        if item is MISS:
            return MISS
        score = None if item is None else item.value._bylex.get(args[1])
        return None if score is None else Float.encode(score, humanfriendly=False)

    def zcard(sock, db, args):
        if len(args) != 1:
            return MISS
        item = read_zset(db, args[0])
        if item is MISS:
            return MISS
        return 0 if item is None else len(item.value)

    def range_options(rest):
        """(withscores, offset, count) from what follows a score range (WITHSCORES and LIMIT o c, in
        any order, the last LIMIT counting, as fakeredis's `extract_args` reads them), or MISS."""
        withscores, offset, count = False, 0, -1
        i, n = 0, len(rest)
        while i < n:
            word = null_terminate(rest[i])
            if word == b"withscores":
                withscores = True
                i += 1
            elif word == b"limit" and i + 2 < n:
                try:
                    offset, count = read_int(rest[i + 1]), read_int(rest[i + 2])
                except SimpleError:
                    return MISS
                i += 3
            else:
                return MISS
        return withscores, offset, count

    def by_score(db, args, reverse):
        """ZRANGEBYSCORE (ZREVRANGEBYSCORE with `reverse`, its range given high then low): the
        members, with their scores as RESP2 writes them (`%.17g`) after each for WITHSCORES."""
        if len(args) < 3:
            return MISS
        opts = range_options(args[3:])
        if opts is MISS:
            return MISS
        withscores, offset, count = opts
        item = read_zset(db, args[0])
        if item is MISS:
            return MISS
        try:
            low, high = endpoint(args[1]), endpoint(args[2])
        except SimpleError:
            return MISS
        if item is None:
            return []
        if reverse:
            low, high = high, low
        out = []
        for score, member in item.value.irange_score(low.lower_bound, high.upper_bound, reverse):
            if offset:
                offset -= 1
                continue
            if count == 0:
                break
            count -= 1
            out.append(member)
            if withscores:
                out.append(Float.encode(score, humanfriendly=False))
        return out

    def zrangebyscore(sock, db, args):
        return by_score(db, args, False)

    def zrevrangebyscore(sock, db, args):
        return by_score(db, args, True)

    def zrange(sock, db, args):
        """Only ZRANGE key start stop [WITHSCORES] (no other option): ranks, as fakeredis reads them."""
        if len(args) == 3:
            withscores = False
        elif len(args) == 4 and null_terminate(args[3]) == b"withscores":
            withscores = True
        else:
            return MISS
        try:   # a whole number fakeredis's Int reads is a score its ScoreTest reads too
            start, stop = read_int(args[1]), read_int(args[2])
        except SimpleError:
            return MISS
        item = read_zset(db, args[0])
        if item is MISS:
            return MISS
        z = ZSet() if item is None else item.value
        start, stop = fix_range(start, stop, len(z))
        if not withscores:
            return [member for _, member in z.islice_score(start, stop, False)]
        out = []
        for score, member in z.islice_score(start, stop, False):
            out.append(member)
            out.append(Float.encode(score, humanfriendly=False))
        return out

    def zrem(sock, db, args):
        if len(args) < 2:
            return MISS
        key = args[0]
        item = writable(db, key, ZSet)
        if item is MISS:
            return MISS
        if item is None:
            return 0
        z = item.value
        before = len(z)
        for member in args[1:]:
            z.discard(member)
        removed = before - len(z)
        if removed:
            store(db, key, item, z)
        return removed

    # -- lists ----------------------------------------------------------------------------------

    def lindex(sock, db, args):
        if len(args) != 2:
            return MISS
        item = live(db, args[0])
        if item is MISS:
            return MISS
        if item is None:
            return None                  # fakeredis answers a missing list before reading the index
        if type(item.value) is not list:
            return MISS
        try:
            index = read_int(args[1])
        except SimpleError:
            return MISS
        try:
            return item.value[index]
        except IndexError:
            return None

    def lpush(sock, db, args):
        if len(args) < 2:
            return MISS
        key = args[0]
        item = writable(db, key, list)
        if item is MISS:
            return MISS
        values = [] if item is None else item.value
        for v in args[1:]:
            values.insert(0, v)
        store(db, key, item, values)
        return len(values)

    def rpoplpush(sock, db, args):
        if len(args) != 2 or args[0] == args[1]:
            return MISS
        src, dst = args
        s = live(db, src)
        if s is MISS:
            return MISS
        if s is None:
            return None                  # fakeredis answers a missing source before reading the destination
        s = writable(db, src, list)
        d = writable(db, dst, list)
        if s is MISS or d is MISS:
            return MISS
        values = s.value
        el = values.pop()
        store(db, src, s, values)
        target = [] if d is None else d.value
        target.insert(0, el)
        store(db, dst, d, target)
        return el

    def lrem(sock, db, args):
        if len(args) != 3:
            return MISS
        key, count, value = args
        try:
            count = read_int(count)
        except SimpleError:
            return MISS
        item = writable(db, key, list)
        if item is MISS:
            return MISS
        if item is None:
            return 0
        values = item.value
        found = [i for i, el in enumerate(values) if el == value]
        doomed = found[:count] if count > 0 else found[count:] if count < 0 else found
        for i in reversed(doomed):
            del values[i]
        if doomed:
            store(db, key, item, values)
        return len(doomed)

    def llen(sock, db, args):
        if len(args) != 1:
            return MISS
        item = live(db, args[0])
        if item is MISS or (item is not None and type(item.value) is not list):
            return MISS
        return 0 if item is None else len(item.value)

    # -- sets: only the absent key (BullMQ asks after a job's dependencies and the stalled set) ---

    def scard(sock, db, args):
        if len(args) != 1 or db._dict.get(args[0]) is not None:
            return MISS
        return 0

    def srem(sock, db, args):
        if len(args) < 2 or db._dict.get(args[0]) is not None:
            return MISS
        return 0

    # -- streams: fakeredis's own option parser and stream code, without the generic steps ------

    seen: dict = {}
    append = _appender()
    node_limits: dict = {}

    def limits_of(sock):
        """`_stream_node_limits()` of the server's two settings as stored, worked out once for each
        pair of stored values."""
        config = sock._server.config
        memo = (config.get(b"stream-node-max-entries"), config.get(b"stream-node-max-bytes"))
        got = node_limits.get(memo)
        if got is None:
            if len(node_limits) > 64:
                node_limits.clear()
            got = node_limits[memo] = sock._stream_node_limits()
        return got

    def parsed(sock, rest, limits, xadd):
        """fakeredis's own reading of XADD's or XTRIM's options, or MISS where it refuses them. The
        two shapes BullMQ sends (`*` alone, `MAXLEN ~ n [*]`) are read once per server version, type
        and node limits (what the reading depends on) and kept; the result is only read later."""
        if xadd:
            n = 1 if rest[0] == b"*" else 4 if rest[0] == b"MAXLEN" and rest[1] == b"~" and rest[3:4] == (b"*",) else 0
        else:
            n = 3 if len(rest) == 3 and rest[0] == b"MAXLEN" and rest[1] == b"~" else 0
        if n:
            memo = (rest[:n], xadd, sock.version, sock._server.server_type, limits)
            opts = seen.get(memo)
            if opts is None:
                if len(seen) > 256:
                    seen.clear()
                try:
                    opts = seen[memo] = sock._parse_add_trim_args(rest[:n], xadd=xadd)
                except SimpleError:
                    return MISS
            return opts
        try:
            return sock._parse_add_trim_args(rest, xadd=xadd)
        except SimpleError:
            return MISS

    def xadd(sock, db, args):
        if len(args) < 4:
            return MISS
        key, rest = args[0], tuple(args[1:])
        item = writable(db, key, XStream)
        if item is MISS:
            return MISS
        limits = limits_of(sock)
        opts = parsed(sock, rest, limits, True)
        if opts is MISS:
            return MISS
        fields = rest[opts.id_index + 1:]
        if (len(fields) < 2 or len(fields) % 2 or opts.entry_id is not None or opts.nomkstream
                or opts.idmp_pid is not None):
            return MISS
        stream = XStream() if item is None else item.value
        if stream.last_id == MAX_KEY:
            return MISS
        entry = stream.next_id(None, True)
        if entry is None:
            return MISS
        append(stream, fields, entry, *limits)
        if opts.maxlen is not None or opts.minid is not None:
            sock._trim_stream(stream, opts)
        store(db, key, item, stream)
        return entry.encode()

    def xtrim(sock, db, args):
        if len(args) < 3:
            return MISS
        key = args[0]
        item = writable(db, key, XStream)
        if item is MISS:
            return MISS
        opts = parsed(sock, tuple(args[1:]), limits_of(sock), False)
        if opts is MISS:
            return MISS
        if item is None:
            return 0
        return sock._trim_stream(item.value, opts)

    return {"hget": hget, "hmget": hmget, "hgetall": hgetall, "hset": hset, "hmset": hmset, "hincrby": hincrby,
            "exists": exists, "del": delete, "get": get, "set": set_, "incr": incr,
            "zadd": zadd, "zscore": zscore, "zcard": zcard, "zrangebyscore": zrangebyscore,
            "zrevrangebyscore": zrevrangebyscore, "zrange": zrange, "zrem": zrem,
            "lpush": lpush, "rpoplpush": rpoplpush, "lrem": lrem, "llen": llen, "lindex": lindex,
            "scard": scard, "srem": srem, "xadd": xadd, "xtrim": xtrim}
