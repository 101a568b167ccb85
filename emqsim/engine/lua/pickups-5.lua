--[[
  pickups: many pickups of one job scheduler in one call, in the BullMQ design, for a
  stretch of virtual time in which nothing happens but that scheduler's pickups (the
  simulation decides how far it may go from what it knows: no other job comes ready, no
  limit, end date or outage acts). Pickup i takes the scheduler's current job, as
  `activate` does, and makes its next one, as `chain` does (the host computes each next
  run by the same rule); each job taken is written done, as the finish writes it. The
  promote onto the pending list and the pop off it, and every marker write but the net
  ones, cancel out within the stretch, so they are not done: what is left is exactly
  what the pickup-by-pickup path leaves.

  Models: no real script: the simulator's fast-forward over its own activate and chain
  (BullMQ's moveToActive-11.lua and updateJobScheduler-12.lua, bullmq 6.7.0,
  dist/cjs/commands/), pickup by pickup.

  KEYS[1]     emq:{q}:repeat             the registry (ZSET)
  KEYS[2]     emq:{q}:repeat:<name>      the record (HASH)
  KEYS[3]     emq:{q}:delayed            jobs made ahead of their run time (ZSET)
  KEYS[4]     emq:{q}:pending            jobs waiting for a worker (LIST): empty, or
                                         only the current job
  KEYS[5]     emq:{q}:marker             the wake marker (ZSET)
  KEYS[5+i]   emq:{q}:job:<id i>         the job pickup i takes (HASH): the current one
                                         for i = 1, made in this call after it
  KEYS[6+k]   emq:{q}:job:<id k+1>       the job the last pickup makes (HASH)

  ARGV[1]     name
  ARGV[2]     the current job's run time: the row's score now (the guard)
  ARGV[3]     the current job's count (the guard; each next job's is one more)
  ARGV[4]     the current job's id
  ARGV[5]     the next run each pickup makes (Unix ms), one per pickup, separated by
              single spaces
  ARGV[6]     each pickup's instant, the same way
  ARGV[7]     the instant each pickup's run finished, the same way
              (lists, not three arguments a pickup: a client sends and a server reads
              each argument on its own, and a call carries hundreds of pickups)
  ARGV[7+i]   the id of the job pickup i makes

  Returns
    {size, head}  the registry's size and head score ("" if empty) after the pickups
    0             nothing written: the row, the record, the current job, the pending
                  list or a job to make is not as the simulation left it
   -1  ERR_SCORE  a run time, count or instant is not whole ms in [0, 2^53)
   -2  ERR_NAME   the name or a job id is empty
   -3  ERR_ARITY  no pickup, or not one job key and one id per pickup plus one, or a
                  list without one word per pickup
]]
--- @include "scheduled_job"
--- @include "args"

local k = #KEYS - 6
if k < 1 or #ARGV ~= 7 + k then return -3 end
local runs, picks, ends = words(ARGV[5]), words(ARGV[6]), words(ARGV[7])
if runs == nil or picks == nil or ends == nil or #runs ~= k or #picks ~= k or #ends ~= k then return -3 end
local name, slot, count, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if not isName(name) or not isName(id) then return -2 end
for i = 1, k do
  if not isName(ARGV[7 + i]) then return -2 end
end
if not isMs(slot) or not isMs(count) then return -1 end
for i = 1, k do
  if not isMs(runs[i]) or not isMs(picks[i]) or not isMs(ends[i]) then return -1 end
end

local score = redis.call('ZSCORE', KEYS[1], name)
local job = redis.call('HMGET', KEYS[6], 'state', 'count', 'slot')
local waiting = job[1] == 'pending'
if not score or tonumber(score) ~= tonumber(slot) or redis.call('EXISTS', KEYS[2]) == 0
    or not (waiting or job[1] == 'delayed') or job[2] ~= count or job[3] ~= slot
    or redis.call('LLEN', KEYS[4]) ~= (waiting and 1 or 0)
    or redis.call('EXISTS', unpack(KEYS, 7)) > 0 then
  return 0
end
if waiting then
  redis.call('DEL', KEYS[4])
else
  redis.call('ZREM', KEYS[3], id)
end
-- the other schedulers' jobs stay delayed through the stretch: the head a new delayed
-- job is compared with
local others = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2]
local template = redis.call('HGET', KEYS[2], 'template') or '{}'

redis.call('HSET', KEYS[6], 'state', 'done', 'started', picks[1], 'finished', ends[1])
local ready, head = false, nil
for i = 2, k do
  local runAt, created = runs[i - 1], picks[i - 1]  -- pickup i takes the job pickup i - 1 made
  writeTakenScheduledJob(KEYS[5 + i], name, runAt, created, tostring(tonumber(count) + i - 1), template,
                         picks[i], ends[i])
  if tonumber(runAt) <= tonumber(created) then
    ready = true
  else
    head = runAt
    if others and tonumber(others) < tonumber(runAt) then head = others end
  end
end
if ready then markReady(KEYS[5]) end
markNextReady(KEYS[5], head)

addScheduledJob(KEYS[6 + k], KEYS[3], KEYS[4], KEYS[5], ARGV[7 + k], name, runs[k], picks[k],
                tostring(tonumber(count) + k), template)
redis.call('ZADD', KEYS[1], runs[k], name)
redis.call('HINCRBY', KEYS[2], 'ic', k)
local top = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {redis.call('ZCARD', KEYS[1]), top[2] or ''}
