--[[
  enqueue: produce one occurrence as a job, due now, straight to pending
  (the first of EchoMQ.Pump's two round trips; `advance` is the second).

  Models: EchoMQ's @enqueue (EchoMQ.Jobs, echo/apps/echo_mq/lib/echo_mq/jobs.ex,
  fiberfx echo_mq b9f34ed0): the same refusal of a job id that exists; EchoMQ's pending
  is a sorted set, and it writes no marker (this script does), nor hands the job to a
  parked worker (this script does when ARGV[6] asks). The registration's `fired` count
  is not bumped here but by `advance`, where the row moves (as in `fire`).

  KEYS[1]  emq:{q}:job:<id>        the job (HASH)
  KEYS[2]  emq:{q}:pending         jobs waiting for a worker (LIST)
  KEYS[3]  emq:{q}:marker          the wake marker (ZSET): "0" at 0, a job is ready

  ARGV[1]  job id (a fresh branded JOB id, or a slot-derived repeat:<name>:<slot>)
  ARGV[2]  registration name
  ARGV[3]  the slot label: the scheduled time this job stands for, Unix ms (the
           row's score, or a later slot when the missed policy coalesced late ones)
  ARGV[4]  now: the release instant, Unix ms
  ARGV[5]  the payload template
  ARGV[6]  "1" when a worker parked on the marker takes the job at once, else "0".
           The caller asks only when no other job of the queue waits: a parked idle
           worker, and no "0" on the marker that nobody popped, mean none does (every
           job pushed writes a "0", and every take that leaves a job behind writes it
           back). The take script's parked take is then joined to the release: the job
           is written active, started now; the push onto the pending list and the pop off
           it, and the marker's "0" written and popped, cancel out, so they are not done,
           and, with nothing else waiting, no "0" is left for a next worker.

  Returns
    1  enqueued
    2  enqueued and taken (ARGV[6] = "1")
    0  duplicate: this job id exists already (a slot-derived id produced twice)
   -1  ERR_SCORE  ARGV[3] or ARGV[4] is not whole ms in [0, 2^53)
   -2  ERR_NAME   ARGV[1] or ARGV[2] is empty
   -3  ERR_ARITY  not 3 keys and 4 to 6 arguments
   -5  ERR_FLAG   ARGV[6] is neither "0" nor "1"
]]
--- @include "marker"
--- @include "args"
--- @include "job"

if #KEYS ~= 3 or #ARGV < 4 or #ARGV > 6 then return -3 end
if not isName(ARGV[1]) or not isName(ARGV[2]) then return -2 end
if not isMs(ARGV[3]) or not isMs(ARGV[4]) then return -1 end
if #ARGV == 6 and not isFlag(ARGV[6]) then return -5 end

if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if ARGV[6] == '1' then
  writeTakenJob(KEYS[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], '')
  return 2
end
writeJob(KEYS[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5] or '')
redis.call('RPUSH', KEYS[2], ARGV[1])
markReady(KEYS[3])
return 1
