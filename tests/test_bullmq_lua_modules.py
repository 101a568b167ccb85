"""The embedded runtime's `cmsgpack` and `cjson` (emqsim/engine/bullmq_scripts/lua/) held to
Redis's own: exact texts in tables (each row's expected text is what redis-server 7.0.15
answered when it was written down, and the live fuzz below asks again), then seeded random
values run through both, on a redis-server of the test's own (skipped where none is
installed). BullMQ's scripts store `cjson.encode` text, so a byte of difference is state."""

from __future__ import annotations

import random
import struct

import pytest

from emqsim.engine.bullmq_scripts.runtime import embedded
from servers import REDIS_SERVER, redis_server

# a canonical, order-free text of any Lua value, run the same on both servers
CANON = r"""
local function canon(v, seen)
  local t = type(v)
  if v == cjson.null then return "null" end
  if t == "nil" then return "nil" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then
    if v ~= v then return "nan" end
    return string.format("n%.17g", v)
  end
  if t == "string" then return string.format("s%q", v) end
  if t == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = canon(k) end
    table.sort(keys)
    local byk = {}
    for k, x in pairs(v) do byk[canon(k)] = canon(x) end
    local out = {}
    for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. byk[k] end
    return "{" .. table.concat(out, ",") .. "}"
  end
  return t
end
"""
UNPACK = CANON + r"""
local out = {}
local vals = {cmsgpack.unpack(ARGV[1])}
local n = select('#', cmsgpack.unpack(ARGV[1]))
for i = 1, n do out[#out + 1] = canon(vals[i]) end
return n .. ":" .. table.concat(out, "|")
"""
DECODE = CANON + "return canon(cjson.decode(ARGV[1]))"


@pytest.fixture(scope="module")
def fake():
    return embedded()


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed: the modules are held to the recorded texts only")
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server.client


def answer(client, script: str, *args):
    """The script's reply, or ('error', the module's own message) with the server's wrapping cut."""
    try:
        return client.eval(script, 0, *args)
    except Exception as exc:   # both raise redis.exceptions.ResponseError
        text = str(exc)
        for marker in ("Cannot serialise", "Missing bytes", "Bad data format", "Expected", "table index is nil",
                       "Found too many"):
            if marker in text:
                return ("error", text[text.index(marker):].split(" script:")[0].split("\n")[0].rstrip())
        return ("error", "?")


# -- exact texts -------------------------------------------------------------------------------

ENCODED = [
    ("{}", b"{}"),                                   # an empty table is an object (fakeredis: [])
    ("{1, 2, 3}", b"[1,2,3]"),
    ("{{}, {a = {}}}", b'[{},{"a":{}}]'),
    ("'caf\\195\\169'", b'"caf\xc3\xa9"'),            # UTF-8 bytes as they are (fakeredis: \u00e9)
    ("'a/b'", b'"a\\/b"'),                            # '/' escaped (fakeredis: left)
    ("'q\"b\\\\'", b'"q\\"b\\\\"'),
    ("'\\0\\1\\31\\127'", b'"\\u0000\\u0001\\u001f\\u007f"'),
    ("'\\b\\t\\n\\f\\r'", b'"\\b\\t\\n\\f\\r"'),
    ("0.1", b"0.1"),                                  # 14 significant digits (fakeredis: 17)
    ("1/3", b"0.33333333333333"),
    ("1796029620000", b"1796029620000"),
    ("1e15", b"1e+15"),
    ("123456789012345", b"1.2345678901234e+14"),
    ("-0.0", b"-0"),
    ("2^53", b"9.007199254741e+15"),
    ("true", b"true"),
    ("{true, false}", b"[true,false]"),
    ("cjson.null", b"null"),
    ("{1, nil, 3}", b"[1,null,3]"),                   # a hole in a short array is null
    ("{[1] = 'a', [3] = 'c'}", b'["a",null,"c"]'),
    ("{[1.5] = 1}", b'{"1.5":1}'),                     # number keys are written as text
    ("{[0] = 1}", b'{"0":1}'),
    ("{a = 1, b = 2, c = 3, zz = {}, [3] = 4}", b'{"a":1,"c":3,"b":2,"3":4,"zz":{}}'),   # Lua's own order
]
ENCODE_ERRORS = [
    ("0/0", "Cannot serialise number: must not be NaN or Inf"),
    ("1/0", "Cannot serialise number: must not be NaN or Inf"),
    ("{[1] = 1, [20] = 2}", "Cannot serialise table: excessively sparse array"),
    ("print", "Cannot serialise function: type not supported"),
]


@pytest.mark.parametrize("lua,text", ENCODED, ids=[r[0] for r in ENCODED])
def test_cjson_encode_writes_redis_text(fake, lua, text):
    assert fake.eval(f"return cjson.encode({lua})", 0) == text


@pytest.mark.parametrize("lua,message", ENCODE_ERRORS, ids=[r[0] for r in ENCODE_ERRORS])
def test_cjson_encode_refuses_what_redis_refuses(fake, lua, message):
    assert answer(fake, f"return cjson.encode({lua})") == ("error", message)


DECODED = [
    ('{"a":1,"b":[true,false,null]}', b'{s"a"=n1,s"b"={n1=true,n2=false,n3=null}}'),
    ('"\\u00e9\\ud83d\\ude00\\/"', b's"\xc3\xa9\xf0\x9f\x98\x80/"'),
    ("[]", b"{}"),
    ("-0", b"n-0"),
    ("1.5e3", b"n1500"),
    (' {"x" : [ 1 , 2 ] } ', b'{s"x"={n1=n1,n2=n2}}'),
]


@pytest.mark.parametrize("text,canon", DECODED, ids=[r[0] for r in DECODED])
def test_cjson_decode_reads_as_redis(fake, text, canon):
    assert fake.eval(DECODE, 0, text) == canon


@pytest.mark.parametrize("text", ["", "[1,", "{1:2}", "nul", "[1] x", '"\\ud800"'])
def test_cjson_decode_refuses_bad_text(fake, text):
    assert answer(fake, DECODE, text)[0] == "error"


PACKED = [
    (b"\x01", b"1:n1"),
    (b"\xff", b"1:n-1"),
    (b"\xcc\xff\xcd\x01\x00", b"2:n255|n256"),
    (b"\xd3\xff\xff\xff\xff\xff\xff\xff\xfe", b"1:n-2"),
    (b"\xcf\x00\x20\x00\x00\x00\x00\x00\x01", b"1:n9007199254740992"),   # 2^53 + 1 rounds as C does
    (b"\xcb" + struct.pack(">d", 1796029620000.0), b"1:n1796029620000"),
    (b"\xca" + struct.pack(">f", 0.1), b"1:n0.10000000149011612"),
    (b"\xa3abc\xd9\x02\x00\x01", b'2:s"abc"|s"\\000\x01"'),
    (b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", b"1:n-1"),                  # a uint 64 read as signed
    (b"\x82\xa1a\xc0\xa1b\x91\xc3", b'1:{s"b"={n1=true}}'),             # a nil value leaves no key
    (b"\xc0\x01", b"2:nil|n1"),
    (b"", b"0:"),
]


@pytest.mark.parametrize("data,canon", PACKED, ids=[repr(r[0])[:30] for r in PACKED])
def test_cmsgpack_unpack_reads_as_redis(fake, data, canon):
    assert fake.eval(UNPACK, 0, data) == canon


@pytest.mark.parametrize("data,message", [(b"\xcd\x01", "Missing bytes in input."),
                                         (b"\x92\x01", "Missing bytes in input."),
                                         (b"\xc1", "Bad data format in input."),
                                         (b"\xc4\x01a", "Bad data format in input.")])   # no bin format
def test_cmsgpack_unpack_refuses_what_redis_refuses(fake, data, message):
    assert answer(fake, UNPACK, data) == ("error", message)


# -- seeded random values through both ---------------------------------------------------------

ALPHABET = ["a", "z", "é", "/", '"', "\\", "\x00", "\x01", "\x1f", "\x7f", "\n", "\t", " ", "€", "😀", "\xff"]


def _lua_string(rng) -> str:
    s = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 6)))
    return "'" + "".join(f"\\{b}" for b in s.encode("utf-8", "surrogatepass")) + "'"


def _lua_number(rng) -> str:
    kind = rng.randrange(6)
    if kind == 0:
        return str(rng.randrange(-1000, 1000))
    if kind == 1:
        return str(rng.randrange(0, 2 ** 53))
    if kind == 2:
        return repr(rng.uniform(-1e6, 1e6))
    if kind == 3:
        return repr(rng.random() * 10 ** rng.randrange(-20, 25))
    if kind == 4:
        return rng.choice(["0.1", "1e15", "1e14", "-0.0", "123456789012345", "1796029620000", "1/3"])
    return repr(rng.randrange(1, 100) / rng.randrange(1, 100))


def _lua_value(rng, depth=0) -> str:
    kind = rng.randrange(10 if depth < 3 else 5)
    if kind in (0, 1):
        return _lua_string(rng)
    if kind in (2, 3):
        return _lua_number(rng)
    if kind == 4:
        return rng.choice(["true", "false", "cjson.null"])
    if kind in (5, 6):      # an array, sometimes with holes
        n = rng.randrange(0, 6)
        return "{" + ", ".join("nil" if rng.random() < 0.15 else _lua_value(rng, depth + 1) for _ in range(n)) + "}"
    if kind in (7, 8):      # an object with text keys, sometimes number keys too
        n = rng.randrange(0, 6)
        items = []
        for i in range(n):
            key = f"[{_lua_string(rng)}]" if rng.random() < 0.8 else f"[{rng.choice(['1', '2', '7', '0', '2.5', '-1'])}]"
            items.append(f"{key} = {_lua_value(rng, depth + 1)}")
        return "{" + ", ".join(items) + "}"
    return "{}"


def test_cjson_encode_fuzzed_against_redis(fake, real):
    rng = random.Random(29)
    values = [_lua_value(rng) for _ in range(600)]
    diff = [(v, answer(fake, f"return cjson.encode({v})"), answer(real, f"return cjson.encode({v})"))
            for v in values]
    assert [d for d in diff if d[1] != d[2]] == []
    assert sum(1 for d in diff if isinstance(d[2], bytes)) >= 500    # most of them encode


def _json_value(rng, depth=0):
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return "".join(rng.choice(ALPHABET[:-1]) for _ in range(rng.randrange(0, 6)))
    if kind == 1:
        return rng.randrange(-10 ** 6, 10 ** 6)
    if kind == 2:
        return rng.uniform(-1e9, 1e9)
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return rng.randrange(0, 2 ** 60)
    if kind in (5, 6):
        return [_json_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    return {"".join(rng.choice(ALPHABET[:-1]) for _ in range(rng.randrange(0, 4))): _json_value(rng, depth + 1)
            for _ in range(rng.randrange(0, 5))}


def test_cjson_decode_and_round_trip_fuzzed_against_redis(fake, real):
    import json

    rng = random.Random(2929)
    texts = [json.dumps(_json_value(rng), ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1]))
             for _ in range(400)]
    texts = [t.replace("/", "\\/") if rng.random() < 0.3 else t for t in texts]
    script = CANON + "local v = cjson.decode(ARGV[1]); return {canon(v), cjson.encode(v)}"
    diff = [(t, answer(fake, script, t), answer(real, script, t)) for t in texts]
    assert [d for d in diff if d[1] != d[2]] == []


def _msgpack(rng, depth=0) -> bytes:
    """A random value in a random one of the formats that can hold it."""
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        n = rng.randrange(-(2 ** 63), 2 ** 63)
        fmt = rng.choice(["d3", "small"])
        if fmt == "small" and -32 <= n % 300 - 32 < 128:
            n = n % 300 - 32
            return struct.pack(">b", n) if n < 0 else bytes([n])
        return b"\xd3" + struct.pack(">q", n)
    if kind == 1:
        n = rng.randrange(0, 2 ** 64)
        for code, f, top in ((b"\xcc", ">B", 2 ** 8), (b"\xcd", ">H", 2 ** 16), (b"\xce", ">I", 2 ** 32)):
            if n % 4 == 0 and n < top or rng.random() < 0.2:
                n %= top
                return code + struct.pack(f, n)
        return b"\xcf" + struct.pack(">Q", n)
    if kind == 2:
        n = rng.randrange(-(2 ** 31), 2 ** 31)
        code, f, lo = rng.choice([(b"\xd0", ">b", 2 ** 7), (b"\xd1", ">h", 2 ** 15), (b"\xd2", ">i", 2 ** 31)])
        return code + struct.pack(f, max(-lo, min(lo - 1, n)))
    if kind == 3:
        x = rng.choice([rng.uniform(-1e300, 1e300), rng.random(), 5e-324, -0.0, 1796029620000.5,
                        float("inf"), rng.uniform(-1e6, 1e6)])
        return (b"\xca" + struct.pack(">f", x)) if rng.random() < 0.3 and abs(x) < 3e38 else b"\xcb" + struct.pack(">d", x)
    if kind == 4:
        s = "".join(rng.choice(ALPHABET[:-1]) for _ in range(rng.randrange(0, 40))).encode()
        n = len(s)
        head = rng.choice([bytes([0xA0 | n]) if n < 32 else b"\xd9" + bytes([n]), b"\xda" + struct.pack(">H", n),
                           b"\xdb" + struct.pack(">I", n), b"\xc4" + bytes([n])])
        return head + s
    if kind == 5:
        return rng.choice([b"\xc0", b"\xc2", b"\xc3"])
    if kind in (6, 7):
        n = rng.randrange(0, 6)
        head = rng.choice([bytes([0x90 | n]), b"\xdc" + struct.pack(">H", n), b"\xdd" + struct.pack(">I", n)])
        return head + b"".join(_msgpack(rng, depth + 1) for _ in range(n))
    n = rng.randrange(0, 6)
    head = rng.choice([bytes([0x80 | n]), b"\xde" + struct.pack(">H", n), b"\xdf" + struct.pack(">I", n)])
    body = b""
    for i in range(n):
        body += rng.choice([bytes([0xA1, 97 + i]), bytes([i + 1])]) + _msgpack(rng, depth + 1)
    return head + body


def test_cmsgpack_unpack_fuzzed_against_redis(fake, real):
    rng = random.Random(292929)
    datas = []
    for _ in range(500):
        d = b"".join(_msgpack(rng) for _ in range(rng.randrange(1, 3)))
        if rng.random() < 0.1:
            d = d[: rng.randrange(0, len(d))]          # cut short
        datas.append(d)
    diff = [(d, answer(fake, UNPACK, d), answer(real, UNPACK, d)) for d in datas]
    assert [x for x in diff if x[1] != x[2]] == []


def test_cjson_encode_of_what_cmsgpack_unpacks_fuzzed_against_redis(fake, real):
    """The path BullMQ's scripts take: msgpacked options unpacked, then stored as JSON."""
    rng = random.Random(29292929)
    datas = [b"\x80" if i == 0 else _msgpack(rng) for i in range(300)]
    script = "local ok, v = pcall(cmsgpack.unpack, ARGV[1]); if not ok then return 'bad' end; return cjson.encode(v)"
    diff = [(d, answer(fake, script, d), answer(real, script, d)) for d in datas]
    assert [x for x in diff if x[1] != x[2]] == []
