--[[
  activate: a worker takes the oldest job that is ready, in the BullMQ design
  (emqsim/engine/chain.py; bullmq 6.x moveToActive-11.lua with promoteDelayedJobs).
  Delayed jobs whose run time is not later than now become waiting (in run-time
  order), then the oldest waiting job is taken: off the list, state active, started
  now. Making the scheduler's next job is a second script (`chain`), as in BullMQ.

  Models: BullMQ's moveToActive-11.lua with includes/promoteDelayedJobs.lua (bullmq
  6.7.0, dist/cjs/commands/), reduced to the promote and the take.

  KEYS[1]  emq:{q}:delayed   jobs made ahead of their run time (ZSET)
  KEYS[2]  emq:{q}:pending   jobs waiting for a worker (LIST)
  KEYS[3]  emq:{q}:marker    the wake marker (ZSET)

  ARGV[1]  now, Unix ms
  ARGV[2]  the key prefix of jobs, emq:{q}:job: (a taken job's key is that prefix and
           its id, as BullMQ builds job keys from its prefix; same hash tag)

  Returns an array:
    {0}                                   no job is ready
    {1, id, name, slot, created, count}   the job taken
   -1  ERR_SCORE  ARGV[1] is not whole ms in [0, 2^53)
   -2  ERR_NAME   ARGV[2] is not the job prefix of this queue (KEYS[1] with
                  "delayed" replaced by "job:")
   -3  ERR_ARITY  not 3 keys and 2 arguments
]]
--- @include "marker"
--- @include "args"

if #KEYS ~= 3 or #ARGV ~= 2 then return -3 end
if not isMs(ARGV[1]) then return -1 end
local now = tonumber(ARGV[1])
local prefix = ARGV[2]
if prefix ~= string.sub(KEYS[1], 1, -8) .. 'job:' then return -2 end

local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for _, id in ipairs(due) do
  redis.call('RPUSH', KEYS[2], id)
  redis.call('HSET', prefix .. id, 'state', 'pending')
end
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end

local id = redis.call('LPOP', KEYS[2])
if not id then return {0} end
local key = prefix .. id
redis.call('HSET', key, 'state', 'active', 'started', ARGV[1])
if redis.call('LLEN', KEYS[2]) > 0 then markReady(KEYS[3]) end
local job = redis.call('HMGET', key, 'name', 'slot', 'created', 'count')
return {1, id, job[1], job[2], job[3], job[4]}
