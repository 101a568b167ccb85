--[[
  upsert: write a registration whatever is there (BullMQ's upsertJobScheduler).
  One row per name however often it is upserted. The record is rewritten; the
  score is kept when the cadence is unchanged and reset to the first run when it
  changed (a changed cadence is treated as a first run).

  KEYS[1]  emq:{q}:repeat          the registry (ZSET)
  KEYS[2]  emq:{q}:repeat:<name>   the record (HASH)
  KEYS[3]  emq:{q}:marker          the wake marker (ZSET)

  ARGV[1]  name
  ARGV[2]  first run, Unix ms (used when the row is new or its cadence changed)
  ARGV[3..] field, value, ... of the record; must include the field "cadence"

  Returns
    1  created
    2  rewritten: the cadence changed, the score was reset to ARGV[2]
    3  kept: same cadence, record rewritten, score, phase offset and iteration count kept
   -1  ERR_SCORE   ARGV[2] is not a number
   -2  ERR_NAME    ARGV[1] is empty
   -4  ERR_FIELDS  an odd field/value list, or no "cadence" field
]]
local name, first = ARGV[1], ARGV[2]
if name == nil or name == '' then return -2 end
if tonumber(first) == nil then return -1 end
if #ARGV < 4 or #ARGV % 2 ~= 0 then return -4 end
local cadence
for i = 3, #ARGV, 2 do
  if ARGV[i] == 'cadence' then cadence = ARGV[i + 1] end
end
if cadence == nil then return -4 end

local old = redis.call('HMGET', KEYS[2], 'cadence', 'ic', 'offset')
local score = redis.call('ZSCORE', KEYS[1], name)
local result = 1
if old[1] and score then
  if old[1] == cadence then result = 3 else result = 2 end
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
if result == 3 then
  if old[2] then redis.call('HSET', KEYS[2], 'ic', old[2]) end
  if old[3] then redis.call('HSET', KEYS[2], 'offset', old[3]) end
else
  redis.call('ZADD', KEYS[1], first, name)
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
redis.call('ZADD', KEYS[3], head[2], '1')
return result
