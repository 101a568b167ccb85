--[[
  Argument checks every script runs before its first write (Lua's tonumber takes
  "nan", "inf", "1.5", "1e3" and numbers past 2^53, which ZADD or HINCRBY would
  then refuse half-way through a script).

  Models: no real script: this project's argument checks.

  A time or score is a whole number of Unix ms, written in plain digits, with
  0 <= ms < 2^53: the one range every script accepts (scripts.MAX_MS in Python).
  A parked score is the literal "+inf", where a script allows one.
]]
local MAX_MS = 9007199254740992  -- 2^53: past it, doubles skip whole numbers

local function isMs(v)
  return type(v) == 'string' and #v <= 16 and string.find(v, '^%d+$') ~= nil and tonumber(v) < MAX_MS
end

local function isScore(v)
  return v == '+inf' or isMs(v)
end

local function isName(v)
  return type(v) == 'string' and v ~= ''
end

local function isFlag(v)
  return v == '0' or v == '1'
end

-- A list argument: its words, separated by single spaces, or nil if it is empty or any
-- word is (two spaces in a row, or one at either end).
local function words(v)
  if type(v) ~= 'string' or v == '' then return nil end
  local out, from = {}, 1
  while true do
    local at = string.find(v, ' ', from, true)
    local word = string.sub(v, from, (at or 0) - 1)
    if word == '' then return nil end
    out[#out + 1] = word
    if not at then return out end
    from = at + 1
  end
end

-- The record fields that hold numbers (Schedule.to_record); their values must be whole ms.
local NUMERIC_FIELDS = {every_ms = true, offset = true, start = true, ['end'] = true,
                        limit = true, deadline = true, ic = true}

-- ARGV[from..] is a field, value, ... list: at least one pair, none odd, no empty field,
-- every numeric field a whole number in range.
local function fieldsOk(from)
  if #ARGV < from + 1 or (#ARGV - from) % 2 ~= 1 then return false end
  for i = from, #ARGV, 2 do
    if ARGV[i] == '' then return false end
    if NUMERIC_FIELDS[ARGV[i]] and not isMs(ARGV[i + 1]) then return false end
  end
  return true
end
