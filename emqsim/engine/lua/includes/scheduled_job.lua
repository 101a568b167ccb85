--[[
  A job scheduler's next job, in the BullMQ design (bullmq 6.x storeJobScheduler and
  updateJobScheduler both end by adding the next job): the job hash is written, and the
  job is waiting at once if its run time is not later than now, else delayed until then,
  with the marker pointed at whichever comes first.

  Models: BullMQ's includes/addJobFromScheduler.lua (bullmq 6.7.0,
  dist/cjs/commands/), for a job that is delayed or waiting.
]]
--- @include "marker"

local function addScheduledJob(jobKey, delayedKey, pendingKey, markerKey, id, name, runAt, now, count, template)
  redis.call('HSET', jobKey, 'name', name, 'slot', runAt, 'created', now, 'count', count, 'data', template)
  if tonumber(runAt) <= tonumber(now) then
    redis.call('HSET', jobKey, 'state', 'pending')
    redis.call('RPUSH', pendingKey, id)
    markReady(markerKey)
  else
    redis.call('HSET', jobKey, 'state', 'delayed')
    redis.call('ZADD', delayedKey, runAt, id)
    local head = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
    markNextReady(markerKey, head[2])
  end
end
