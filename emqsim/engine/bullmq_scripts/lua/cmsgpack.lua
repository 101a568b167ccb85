-- cmsgpack for the embedded runtime: MessagePack decoding as Redis's lua_cmsgpack does it.
-- emqsim's own code (pure Lua 5.1, no bit library), loaded through fakeredis's `lua_modules`.
-- BullMQ's scripts call only `cmsgpack.unpack`; `pack` is left out on purpose. As Redis's,
-- it reads a uint 64 as signed and refuses the bin and ext formats ("Bad data format").
-- A map's table is made empty and filled pair by pair, as Redis's is (lua_newtable), so
-- `pairs` walks it in the same order and `cjson.encode` writes the same text.

local M = {}
local byte, sub, floor, ldexp = string.byte, string.sub, math.floor, math.ldexp

local MISSING = "Missing bytes in input."
local BADFMT = "Bad data format in input."

local function need(s, pos, n)
  if pos + n - 1 > #s then error(MISSING, 0) end
end

local function uint(s, pos, n)            -- n bytes big-endian, unsigned (n <= 4: exact)
  need(s, pos, n)
  local v = 0
  for i = pos, pos + n - 1 do v = v * 256 + byte(s, i) end
  return v
end

local function int(s, pos, n)             -- n bytes two's complement
  local v = uint(s, pos, n)
  local half = 2 ^ (8 * n - 1)
  if v >= half then v = v - 2 * half end
  return v
end

local function u64(s, pos, signed)        -- one rounding, as C's (lua_Number)int64 makes
  local hi, lo = uint(s, pos, 4), uint(s, pos + 4, 4)
  if signed and hi >= 2147483648 then hi = hi - 4294967296 end
  return hi * 4294967296 + lo
end

local function f32(s, pos)
  need(s, pos, 4)
  local b1, b2, b3, b4 = byte(s, pos, pos + 3)
  local sign = b1 >= 128 and -1 or 1
  local e = (b1 % 128) * 2 + floor(b2 / 128)
  local m = ((b2 % 128) * 256 + b3) * 256 + b4
  if e == 0 then return sign * ldexp(m, -149) end
  if e == 255 then
    if m == 0 then return sign * (1 / 0) end
    return 0 / 0
  end
  return sign * ldexp(m + 8388608, e - 150)
end

local function f64(s, pos)
  need(s, pos, 8)
  local b1, b2, b3, b4, b5, b6, b7, b8 = byte(s, pos, pos + 7)
  local sign = b1 >= 128 and -1 or 1
  local e = (b1 % 128) * 16 + floor(b2 / 16)
  local m = (((((b2 % 16) * 256 + b3) * 256 + b4) * 256 + b5) * 256 + b6) * 65536 + b7 * 256 + b8
  if e == 0 then return sign * ldexp(m, -1074) end
  if e == 2047 then
    if m == 0 then return sign * (1 / 0) end
    return 0 / 0
  end
  return sign * ldexp(m + 4503599627370496, e - 1075)
end

local decode

local function str(s, pos, n)
  need(s, pos, n)
  return sub(s, pos, pos + n - 1), pos + n
end

local function array(s, pos, n)
  local t = {}
  for i = 1, n do
    local v
    v, pos = decode(s, pos)
    t[i] = v
  end
  return t, pos
end

local function map(s, pos, n)
  local t = {}
  for _ = 1, n do
    local k, v
    k, pos = decode(s, pos)
    v, pos = decode(s, pos)
    if k == nil then error("table index is nil", 0) end
    t[k] = v
  end
  return t, pos
end

-- the value at `pos`, and the position after it; the one-byte kinds a script's options are
-- made of (small numbers, short text, maps) are tried first
decode = function(s, pos)
  local c = byte(s, pos)
  if c == nil then error(MISSING, 0) end
  pos = pos + 1
  if c <= 0x7f then return c, pos end
  if c >= 0xa0 then
    if c <= 0xbf then
      local last = pos + c - 0xa1
      if last > #s then error(MISSING, 0) end
      return sub(s, pos, last), last + 1
    end
    if c >= 0xe0 then return c - 256, pos end
  elseif c <= 0x8f then
    return map(s, pos, c - 0x80)
  else
    return array(s, pos, c - 0x90)
  end
  if c == 0xc0 then return nil, pos end
  if c == 0xc2 then return false, pos end
  if c == 0xc3 then return true, pos end
  if c == 0xcc then return uint(s, pos, 1), pos + 1 end
  if c == 0xcd then return uint(s, pos, 2), pos + 2 end
  if c == 0xce then return uint(s, pos, 4), pos + 4 end
  if c == 0xcf then return u64(s, pos, true), pos + 8 end    -- read as signed, as Redis does
  if c == 0xd0 then return int(s, pos, 1), pos + 1 end
  if c == 0xd1 then return int(s, pos, 2), pos + 2 end
  if c == 0xd2 then return int(s, pos, 4), pos + 4 end
  if c == 0xd3 then return u64(s, pos, true), pos + 8 end
  if c == 0xca then return f32(s, pos), pos + 4 end
  if c == 0xcb then return f64(s, pos), pos + 8 end
  if c == 0xd9 then return str(s, pos + 1, uint(s, pos, 1)) end
  if c == 0xda then return str(s, pos + 2, uint(s, pos, 2)) end
  if c == 0xdb then return str(s, pos + 4, uint(s, pos, 4)) end
  if c == 0xdc then return array(s, pos + 2, uint(s, pos, 2)) end
  if c == 0xdd then return array(s, pos + 4, uint(s, pos, 4)) end
  if c == 0xde then return map(s, pos + 2, uint(s, pos, 2)) end
  if c == 0xdf then return map(s, pos + 4, uint(s, pos, 4)) end
  error(BADFMT, 0)
end

-- every value in `s`, as separate results (lua_cmsgpack returns them all)
function M.unpack(s)
  if type(s) ~= "string" then error("bad argument #1 to 'unpack' (string expected)", 0) end
  local out, n, pos = {}, 0, 1
  while pos <= #s do
    local v
    v, pos = decode(s, pos)
    n = n + 1
    out[n] = v
  end
  return unpack(out, 1, n)
end

return M
