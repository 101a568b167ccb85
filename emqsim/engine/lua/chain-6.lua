--[[
  chain: make a scheduler's next job when a worker has taken its current one, in the
  BullMQ design (emqsim/engine/chain.py; bullmq 6.x updateJobScheduler-12.lua, which the
  worker calls right after moveToActive). The host computes the next run by the
  engine's rule from the slot taken; this script stores it as the row's score,
  counts the iteration and makes the job: delayed, or waiting if already due.
  Only the scheduler's current job may do this: the row's score must still be the
  slot taken (BullMQ compares the producer's job id), so a stale job makes nothing.

  Models: BullMQ's updateJobScheduler-12.lua (bullmq 6.7.0, dist/cjs/commands/), for an
  interval; the host computes the next run.

  KEYS[1]  emq:{q}:repeat             the registry (ZSET)
  KEYS[2]  emq:{q}:repeat:<name>      the record (HASH)
  KEYS[3]  emq:{q}:delayed            jobs made ahead of their run time (ZSET)
  KEYS[4]  emq:{q}:pending            jobs waiting for a worker (LIST)
  KEYS[5]  emq:{q}:marker             the wake marker (ZSET)
  KEYS[6]  emq:{q}:job:<next id>      the next job (HASH)

  ARGV[1]  name
  ARGV[2]  now, Unix ms
  ARGV[3]  next run, Unix ms
  ARGV[4]  next job id (repeat:<name>:<next run>)
  ARGV[5]  the slot of the job taken (the guard)
  ARGV[6]  the next job's count: the taken job's plus one (what a limit is checked on)

  Returns
    1  chained: row scored by the next run, ic counted, the next job made
    0  absent: the scheduler is gone; nothing written
    2  stale: the row's score is not the slot taken; nothing written
    3  duplicate: the next job exists already; nothing written (BullMQ: "duplicated")
   -1  ERR_SCORE  ARGV[2], ARGV[3] or ARGV[5] is not whole ms in [0, 2^53), or
                  ARGV[6] is not a whole number in [1, 2^53)
   -2  ERR_NAME   ARGV[1] or ARGV[4] is empty
   -3  ERR_ARITY  not 6 keys and 6 arguments
]]
--- @include "scheduled_job"
--- @include "args"

if #KEYS ~= 6 or #ARGV ~= 6 then return -3 end
local name, now, nxt, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if not isName(name) or not isName(id) then return -2 end
if not isMs(now) or not isMs(nxt) or not isMs(ARGV[5]) or not isMs(ARGV[6]) or ARGV[6] == '0' then
  return -1
end

local score = redis.call('ZSCORE', KEYS[1], name)
if not score then return 0 end
if tonumber(score) ~= tonumber(ARGV[5]) then return 2 end
if redis.call('EXISTS', KEYS[6]) == 1 then return 3 end

redis.call('ZADD', KEYS[1], nxt, name)
redis.call('HINCRBY', KEYS[2], 'ic', 1)
addScheduledJob(KEYS[6], KEYS[3], KEYS[4], KEYS[5], id, name, nxt, now, ARGV[6],
                redis.call('HGET', KEYS[2], 'template') or '{}')
return 1
