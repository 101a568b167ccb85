--[[
  A job scheduler's next job, in the BullMQ design (in bullmq 6.7.0 addJobScheduler-11.lua
  and updateJobScheduler-12.lua add it, through addJobFromScheduler; the storeJobScheduler
  include only ZADDs, DELs and HMSETs the row): the job hash is written, and the
  job is waiting at once if its run time is not later than now, else delayed until then,
  with the marker pointed at whichever comes first. The one-pickup scripts (scheduler,
  chain) and the many-pickup one (pickups) write a scheduler's job through these functions.

  Models: BullMQ's includes/addJobFromScheduler.lua (bullmq 6.7.0,
  dist/cjs/commands/), for a job that is delayed or waiting.
]]
--- @include "marker"

-- where a job made at `now` for `runAt` goes on the marker: "0" if it is waiting at once,
-- else "1" at `head`, the earliest delayed run time once it is delayed
local function markScheduled(markerKey, runAt, now, head)
  if tonumber(runAt) <= tonumber(now) then
    markReady(markerKey)
  else
    markNextReady(markerKey, head)
  end
end

local function addScheduledJob(jobKey, delayedKey, pendingKey, markerKey, id, name, runAt, now, count, template)
  redis.call('HSET', jobKey, 'name', name, 'slot', runAt, 'created', now, 'count', count, 'data', template)
  local head
  if tonumber(runAt) <= tonumber(now) then
    redis.call('HSET', jobKey, 'state', 'pending')
    redis.call('RPUSH', pendingKey, id)
  else
    redis.call('HSET', jobKey, 'state', 'delayed')
    redis.call('ZADD', delayedKey, runAt, id)
    head = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')[2]
  end
  markScheduled(markerKey, runAt, now, head)
end

-- a scheduler's job made at `created`, taken at `started` and finished at `finished`, in one
-- write: the fields, their order and their values are what addScheduledJob, the take
-- (activate) and the finish (includes/job.lua's finishJob) leave
local function writeTakenScheduledJob(jobKey, name, runAt, created, count, template, started, finished)
  redis.call('HSET', jobKey, 'name', name, 'slot', runAt, 'created', created, 'count', count, 'data', template,
             'state', 'done', 'started', started, 'finished', finished)
end
