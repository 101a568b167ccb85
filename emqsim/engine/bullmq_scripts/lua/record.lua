-- emqsim's recorder of a script's redis.call's, for the embedded runtime only (a real Redis
-- keeps `redis` read-only). EVAL'd with the script's own KEYS and ARGV followed by two more
-- ARGV: the script's text and its file name, which this removes before the script sees ARGV.
-- The text runs unmodified as a chunk of its own (so its line numbers are the file's), with
-- `redis.call` wrapped for the time it runs: each call's line (debug.getinfo of its caller),
-- arguments and reply are noted. Everything comes back tagged, so nothing is lost in Redis's
-- reply conversion: {"s", text}, {"n", number}, {"t"}, {"f"}, {"nil"}, {"ok", text},
-- {"err", text}, {"a", items...}. The reply is {script's reply, {"a", calls...}}, a call being
-- {"c", line, {"a", args...}, reply}; a script that raised gives {"raised", message} first.
local name = table.remove(ARGV)
local text = table.remove(ARGV)

local function tag(v)
  local t = type(v)
  if t == "string" then return {"s", v} end
  if t == "number" then return {"n", string.format("%.17g", v)} end
  if t == "boolean" then return {v and "t" or "f"} end
  if t == "nil" then return {"nil"} end
  if t == "table" then
    if v.ok ~= nil then return {"ok", tostring(v.ok)} end
    if v.err ~= nil then return {"err", tostring(v.err)} end
    local out = {"a"}
    for i = 1, #v do out[i + 1] = tag(v[i]) end
    return out
  end
  return {"s", tostring(v)}
end

local chunk, why = loadstring(text, "=" .. name)
if not chunk then return redis.error_reply(tostring(why)) end

local calls = {"a"}
local original = redis.call
redis.call = function(...)
  local line = debug.getinfo(2, "l").currentline
  local n = select("#", ...)
  local args = {...}
  local cmd = {"a"}
  for i = 1, n do cmd[i + 1] = tag(args[i]) end
  local ok, reply = pcall(original, ...)
  calls[#calls + 1] = {"c", tostring(line), cmd, ok and tag(reply) or {"err", tostring(reply)}}
  if not ok then error(reply, 0) end
  return reply
end
local ok, reply = pcall(chunk)
redis.call = original
if ok then return {tag(reply), calls} end
return {{"raised", tostring(reply)}, calls}
