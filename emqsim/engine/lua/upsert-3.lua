--[[
  upsert: write a registration whatever is there (BullMQ's upsertJobScheduler, whose
  addJobScheduler-11.lua and storeJobScheduler rewrite the scheduler hash; what follows
  is what bullmq 6.7.0 does when the scheduler's pending job is still delayed or waiting,
  checked step by step against it in tests/test_oracle_bullmq.py).
  One row per name however often it is upserted. The record is rewritten, and:
  - the score: an interval with the same `every` keeps its score (even one already
    overdue); a changed `every` (or a change from a pattern) starts again from its first
    run, ARGV[2]; a cron pattern, changed or not, takes ARGV[2], its next slot after now;
  - the fire count `fired` is always carried over (as BullMQ carries its iteration count
    `ic`; the pump design counts fires made, not jobs made with the waiting next one);
  - the offset: an offset the caller gave (ARGV[3] = "1") is written; otherwise the
    stored one is kept, even across a change of `every` or to a pattern (a pattern's
    record counts as offset 0, as BullMQ stores it), and only a new record stores the
    phase of its first run (the "offset" field of ARGV[4..]).

  Models: BullMQ's addJobScheduler-11.lua with includes/storeJobScheduler.lua (bullmq
  6.7.0, dist/cjs/commands/), on the pump design's record: the rewrite only,
  no job is made.

  KEYS[1]  emq:{q}:repeat          the registry (ZSET)
  KEYS[2]  emq:{q}:repeat:<name>   the record (HASH)
  KEYS[3]  emq:{q}:marker          the wake marker (ZSET): not written, since an upsert
                                   makes no job ready (the pump does)

  ARGV[1]  name
  ARGV[2]  first run, Unix ms (used when the row is new, its `every` changed, or it is a cron)
  ARGV[3]  "1" when the caller gave an offset above 0 (it replaces the stored one), else "0"
  ARGV[4..] field, value, ... of the record; must include the field "cadence"

  Returns
    1  created
    2  rewritten: the cadence changed; score reset to ARGV[2], fired and offset kept
    3  kept: same cadence; score kept (a cron's set to ARGV[2]), fired and offset kept
   -1  ERR_SCORE   ARGV[2] is not whole ms in [0, 2^53)
   -2  ERR_NAME    ARGV[1] is empty
   -3  ERR_ARITY   not 3 keys
   -4  ERR_FIELDS  an odd field/value list, an empty field, no "cadence" field, or
                   a number field (every_ms, offset, start, end, limit, deadline)
                   that is not whole ms in [0, 2^53)
   -5  ERR_FLAG    ARGV[3] is neither "0" nor "1"
]]
--- @include "args"

if #KEYS ~= 3 then return -3 end
local name, first, given = ARGV[1], ARGV[2], ARGV[3]
if not isName(name) then return -2 end
if not isMs(first) then return -1 end
if not isFlag(given) then return -5 end
if not fieldsOk(4) then return -4 end
local cadence, every
for i = 4, #ARGV, 2 do
  if ARGV[i] == 'cadence' then cadence = ARGV[i + 1] end
  if ARGV[i] == 'every_ms' then every = ARGV[i + 1] end
end
if cadence == nil then return -4 end

local old = redis.call('HMGET', KEYS[2], 'cadence', 'fired', 'offset', 'every_ms')
local score = redis.call('ZSCORE', KEYS[1], name)
local result = 1
if old[1] and score then
  if old[1] == cadence or (every and old[4] == every) then result = 3 else result = 2 end
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
if result ~= 1 then
  if old[2] then redis.call('HSET', KEYS[2], 'fired', old[2]) end
  if given == '0' then
    if old[3] then
      redis.call('HSET', KEYS[2], 'offset', old[3])
    elseif every then
      redis.call('HSET', KEYS[2], 'offset', '0')  -- BullMQ stores a pattern's offset as 0
    end
  end
end
if result ~= 3 or not every then
  redis.call('ZADD', KEYS[1], first, name)
end
return result
