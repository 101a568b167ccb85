--[[
  enqueue: produce one occurrence as a job, due now, straight to pending
  (the first of EchoMQ.Pump's two round trips; `advance` is the second).

  Models: EchoMQ's @enqueue (EchoMQ.Jobs, echo/apps/echo_mq/lib/echo_mq/jobs.ex,
  fiberfx echo_mq b9f34ed0): the same refusal of a job id that exists; EchoMQ's pending
  is a sorted set, and it writes no marker (this script does). The registration's
  `fired` count is not bumped here but by `advance`, where the row moves (as in `fire`).

  KEYS[1]  emq:{q}:job:<id>        the job (HASH)
  KEYS[2]  emq:{q}:pending         jobs waiting for a worker (LIST)
  KEYS[3]  emq:{q}:marker          the wake marker (ZSET): "0" at 0, a job is ready

  ARGV[1]  job id (a fresh branded JOB id, or a slot-derived repeat:<name>:<slot>)
  ARGV[2]  registration name
  ARGV[3]  the slot label: the scheduled time this job stands for, Unix ms (the
           row's score, or a later slot when the missed policy coalesced late ones)
  ARGV[4]  now: the release instant, Unix ms
  ARGV[5]  the payload template (optional: "" when left out)

  Returns
    1  enqueued
    0  duplicate: this job id exists already (a slot-derived id produced twice)
   -1  ERR_SCORE  ARGV[3] or ARGV[4] is not whole ms in [0, 2^53)
   -2  ERR_NAME   ARGV[1] or ARGV[2] is empty
   -3  ERR_ARITY  not 3 keys and 4 or 5 arguments
]]
--- @include "marker"
--- @include "args"
--- @include "job"

if #KEYS ~= 3 or #ARGV < 4 or #ARGV > 5 then return -3 end
if not isName(ARGV[1]) or not isName(ARGV[2]) then return -2 end
if not isMs(ARGV[3]) or not isMs(ARGV[4]) then return -1 end

if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
writeJob(KEYS[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5] or '')
redis.call('RPUSH', KEYS[2], ARGV[1])
markReady(KEYS[3])
return 1
