"""MessagePack as the BullMQ 6.7.0 client packs a script's options (msgpackr's `Packr` with
`useRecords: false, encodeUndefinedAsNil: true`, redis-queue-backend.js lines 10-14).

Only what the driver sends: None and UNDEFINED (JS null and undefined, both nil), booleans,
whole numbers as msgpackr writes them (uint32 and int32 ranges as integers, anything beyond as
a float64, as JS numbers are), other numbers as float64, text, lists and dicts (in their key order, as a
JS object keeps it). msgpack is not a dependency of the course, so this is its own ~40 lines.
"""

from __future__ import annotations

import struct

from ..errors import InputError


#: a JS `undefined`, packed as nil (msgpackr's `encodeUndefinedAsNil`); the driver's own
UNDEFINED = object()


def pack(value) -> bytes:
    out = bytearray()
    _pack(value, out)
    return bytes(out)


_SMALL = tuple(bytes([0xA0 | n]) for n in range(32))   # a short text's header byte
_TEXTS: dict = {}    # short text -> its packed bytes (option names and the like recur at every pickup)


def _pack(v, out: bytearray) -> None:
    kind = type(v)        # the plain types first, without the isinstance chain (a pickup packs ~60 values)
    if kind is str:
        done = _TEXTS.get(v)
        if done is not None:
            out += done
            return
        b = v.encode("utf-8")
        if len(b) < 32:
            if len(_TEXTS) > 512:
                _TEXTS.clear()
            done = _TEXTS[v] = _SMALL[len(b)] + b
            out += done
            return
    elif kind is dict and len(v) < 16:
        out.append(0x80 | len(v))
        for k, x in v.items():
            _pack(k, out)
            _pack(x, out)
        return
    elif kind is int and 0 <= v < 0x80:
        out.append(v)
        return
    _pack_any(v, out)


def _pack_any(v, out: bytearray) -> None:
    if v is None or v is UNDEFINED:
        out.append(0xC0)
    elif v is True or v is False:
        out.append(0xC3 if v else 0xC2)
    elif isinstance(v, int) and 0 <= v < 2 ** 32:
        if v < 0x80:
            out.append(v)
        elif v < 0x100:
            out += b"\xcc" + struct.pack(">B", v)
        elif v < 0x10000:
            out += b"\xcd" + struct.pack(">H", v)
        else:
            out += b"\xce" + struct.pack(">I", v)
    elif isinstance(v, int) and -(2 ** 31) <= v < 0:
        if v >= -0x20:
            out.append(v & 0xFF)
        elif v >= -0x80:
            out += b"\xd0" + struct.pack(">b", v)
        elif v >= -0x8000:
            out += b"\xd1" + struct.pack(">h", v)
        else:
            out += b"\xd2" + struct.pack(">i", v)
    elif isinstance(v, (int, float)):
        f = float(v)
        if f.is_integer() and -(2 ** 31) <= f < 2 ** 32:   # -0 too: JS's (-0 >>> 0) === -0
            _pack(int(f), out)
        else:
            out += b"\xcb" + struct.pack(">d", f)
    elif isinstance(v, str):
        b = v.encode("utf-8")
        n = len(b)
        if n < 32:
            out.append(0xA0 | n)
        elif n < 0x100:
            out += b"\xd9" + struct.pack(">B", n)
        elif n < 0x10000:
            out += b"\xda" + struct.pack(">H", n)
        else:
            out += b"\xdb" + struct.pack(">I", n)
        out += b
    elif isinstance(v, (list, tuple)):
        n = len(v)
        out += bytes([0x90 | n]) if n < 16 else (b"\xdc" + struct.pack(">H", n) if n < 0x10000
                                                 else b"\xdd" + struct.pack(">I", n))
        for x in v:
            _pack(x, out)
    elif isinstance(v, dict):
        n = len(v)
        out += bytes([0x80 | n]) if n < 16 else (b"\xde" + struct.pack(">H", n) if n < 0x10000
                                                 else b"\xdf" + struct.pack(">I", n))
        for k, x in v.items():
            _pack(k, out)
            _pack(x, out)
    else:
        raise InputError(f"a value to pack for a BullMQ script {v!r} must be None, a bool, a number, "
                         "text, a list or a dict", "value")
