--[[
  The advance rule every release applies to a registry row: the row is fired only
  while its score still equals the slot the pump read (a second pump that read the
  same slot finds it moved), and firing it bumps the record's `fired` count by the
  jobs made and writes the next score. The one-fire script applies it to one
  occurrence; the many-fire script to a run of occurrences at once; the two-step
  pump's advance to the row its enqueue just fired (without the score guard).

  Models: no real script: this project's score guard around EchoMQ's @advance.
]]
-- 0 absent (the row is gone), 2 stale (its score moved), 1 current
local function rowState(repeatKey, name, slot)
  local score = redis.call('ZSCORE', repeatKey, name)
  if not score then return 0 end
  if tonumber(score) ~= tonumber(slot) then return 2 end
  return 1
end

local function advanceRow(repeatKey, recordKey, name, nxt, made)
  if made > 0 then redis.call('HINCRBY', recordKey, 'fired', made) end
  redis.call('ZADD', repeatKey, nxt, name)
end
