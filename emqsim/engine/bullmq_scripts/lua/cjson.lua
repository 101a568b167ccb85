-- cjson for the embedded runtime: JSON as Redis's lua-cjson writes and reads it.
-- emqsim's own code (pure Lua 5.1), loaded through fakeredis's `lua_modules`, replacing
-- fakeredis's cjson (Python's json.dumps), whose text differs from Redis's on empty tables
-- ([] for {}), non-ASCII bytes (escaped), '/' (left unescaped) and numbers (17 digits for 14).
-- Redis's defaults are kept: numbers as "%.14g", NaN and infinities refused, a sparse array
-- refused, tables nested at most 1000 deep; `null` decodes to `cjson.null`.

local M = {}
local byte, char, sub, find, format, concat = string.byte, string.char, string.sub, string.find, string.format, table.concat
local floor, huge = math.floor, math.huge

-- a value of its own, so a decoded JSON null stays distinct from a missing key
M.null = setmetatable({}, { __tostring = function() return "cjson.null" end })

local MAX_DEPTH = 1000
local SPARSE_RATIO, SPARSE_SAFE = 2, 10

local escapes = {}
for i = 0, 31 do escapes[char(i)] = format("\\u%04x", i) end
escapes["\b"], escapes["\t"], escapes["\n"], escapes["\f"], escapes["\r"] = "\\b", "\\t", "\\n", "\\f", "\\r"
escapes['"'], escapes["\\"], escapes["/"], escapes["\127"] = '\\"', "\\\\", "\\/", "\\u007f"

local function fail(what, reason)
  error(format("Cannot serialise %s: %s", what, reason), 0)
end

local function number(n)
  if n ~= n or n == huge or n == -huge then fail("number", "must not be NaN or Inf") end
  return format("%.14g", n)
end

local SPECIAL = '[%c"\\/\127]'

local function escape(s)
  if not find(s, SPECIAL) then return '"' .. s .. '"' end
  return '"' .. s:gsub(SPECIAL, escapes) .. '"'
end

-- the length of `t` as an array, or -1 when it is to be an object (lua-cjson's rule)
local function array_length(t)
  local max, items = 0, 0
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or floor(k) ~= k then return -1 end
    if k > max then max = k end
    items = items + 1
  end
  if max > SPARSE_SAFE and max > items * SPARSE_RATIO then
    fail("table", "excessively sparse array")
  end
  return max
end

local encode

-- each encoder appends its pieces to `out` after position `n` and returns the new count
local function table_text(t, depth, out, n)
  depth = depth + 1
  if depth > MAX_DEPTH then
    error(format("Cannot serialise, excessive nesting (%d)", depth), 0)
  end
  local len = array_length(t)
  if len > 0 then
    n = n + 1
    out[n] = "["
    for i = 1, len do
      if i > 1 then n = n + 1; out[n] = "," end
      n = encode(t[i], depth, out, n)
    end
    n = n + 1
    out[n] = "]"
    return n
  end
  n = n + 1
  out[n] = "{"
  local first = true
  for k, v in pairs(t) do
    if not first then n = n + 1; out[n] = "," end
    first = false
    local kt = type(k)
    n = n + 1
    if kt == "string" then
      out[n] = escape(k)
    elseif kt == "number" then
      out[n] = '"' .. number(k) .. '"'
    else
      fail("table key", "table key must be a number or string")
    end
    n = n + 1
    out[n] = ":"
    n = encode(v, depth, out, n)
  end
  n = n + 1
  out[n] = "}"
  return n
end

encode = function(v, depth, out, n)
  local t = type(v)
  n = n + 1
  if t == "string" then
    out[n] = escape(v)
  elseif t == "number" then
    out[n] = number(v)
  elseif t == "boolean" then
    out[n] = v and "true" or "false"
  elseif v == nil or v == M.null then
    out[n] = "null"
  elseif t == "table" then
    return table_text(v, depth, out, n - 1)
  else
    fail(t, "type not supported")
  end
  return n
end

function M.encode(v)
  local out = {}
  encode(v, 0, out, 0)
  return concat(out)
end

-- decoding ---------------------------------------------------------------------------

local function bad(s, pos, what)
  error(format("Expected %s but found invalid token at character %d", what, pos), 0)
end

local function skip(s, pos)
  return (find(s, "[^ \t\n\r]", pos)) or #s + 1
end

local function utf8(cp)
  if cp < 0x80 then return char(cp) end
  if cp < 0x800 then return char(0xc0 + floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return char(0xe0 + floor(cp / 4096), 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return char(0xf0 + floor(cp / 262144), 0x80 + floor(cp / 4096) % 64, 0x80 + floor(cp / 64) % 64, 0x80 + cp % 64)
end

local unescape = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function string_at(s, pos)         -- pos is just after the opening quote
  local parts, start = {}, pos
  while true do
    local q = find(s, '["\\]', pos)
    if not q then bad(s, start - 1, "value") end
    if byte(s, q) == 34 then
      parts[#parts + 1] = sub(s, pos, q - 1)
      return concat(parts), q + 1
    end
    parts[#parts + 1] = sub(s, pos, q - 1)
    local c = sub(s, q + 1, q + 1)
    if c == "u" then
      local hex = sub(s, q + 2, q + 5)
      if not hex:find("^%x%x%x%x$") then bad(s, start - 1, "value") end
      local cp = tonumber(hex, 16)
      pos = q + 6
      if cp >= 0xd800 and cp <= 0xdbff then
        local lo = sub(s, pos, pos + 1) == "\\u" and tonumber(sub(s, pos + 2, pos + 5), 16)
        if not lo or lo < 0xdc00 or lo > 0xdfff then bad(s, start - 1, "value") end
        cp = 0x10000 + (cp - 0xd800) * 1024 + (lo - 0xdc00)
        pos = pos + 6
      elseif cp >= 0xdc00 and cp <= 0xdfff then
        bad(s, start - 1, "value")
      end
      parts[#parts + 1] = utf8(cp)
    elseif unescape[c] then
      parts[#parts + 1] = unescape[c]
      pos = q + 2
    else
      bad(s, start - 1, "value")
    end
  end
end

local value

local function array_at(s, pos, depth)
  local t, n = {}, 0
  pos = skip(s, pos)
  if sub(s, pos, pos) == "]" then return t, pos + 1 end
  while true do
    local v
    v, pos = value(s, pos, depth)
    n = n + 1
    t[n] = v
    pos = skip(s, pos)
    local c = sub(s, pos, pos)
    if c == "]" then return t, pos + 1 end
    if c ~= "," then bad(s, pos, "comma or array end") end
    pos = pos + 1
  end
end

local function object_at(s, pos, depth)
  local t = {}
  pos = skip(s, pos)
  if sub(s, pos, pos) == "}" then return t, pos + 1 end
  while true do
    pos = skip(s, pos)
    if sub(s, pos, pos) ~= '"' then bad(s, pos, "object key string") end
    local k
    k, pos = string_at(s, pos + 1)
    pos = skip(s, pos)
    if sub(s, pos, pos) ~= ":" then bad(s, pos, "colon") end
    local v
    v, pos = value(s, pos + 1, depth)
    t[k] = v
    pos = skip(s, pos)
    local c = sub(s, pos, pos)
    if c == "}" then return t, pos + 1 end
    if c ~= "," then bad(s, pos, "comma or object end") end
    pos = pos + 1
  end
end

value = function(s, pos, depth)
  pos = skip(s, pos)
  local c = sub(s, pos, pos)
  if c == "{" or c == "[" then
    depth = depth + 1
    if depth > MAX_DEPTH then
      error(format("Found too many nested data structures (%d) at character %d", depth, pos), 0)
    end
    if c == "{" then return object_at(s, pos + 1, depth) end
    return array_at(s, pos + 1, depth)
  end
  if c == '"' then return string_at(s, pos + 1) end
  local word = s:match("^[%w%.%+%-]+", pos)
  if word then
    if word == "true" then return true, pos + 4 end
    if word == "false" then return false, pos + 5 end
    if word == "null" then return M.null, pos + 4 end
    if word:find("^%-?%d+%.?%d*[eE]?[%+%-]?%d*$") then
      local n = tonumber(word)
      if n then return n, pos + #word end
    end
  end
  bad(s, pos, "value")
end

function M.decode(s)
  if type(s) ~= "string" then error("bad argument #1 to 'decode' (string expected)", 0) end
  local v, pos = value(s, 1, 0)
  pos = skip(s, pos)
  if pos <= #s then bad(s, pos, "the end") end
  return v
end

return M
