--[[
  take: a worker takes a released job, as BullMQ's worker does (bullmq 6.7.0
  Worker.waitForJob: BZPOPMIN on the marker, then moveToActive). A worker with
  nothing to do is parked on the marker: it pops the head first and acts on it
  ("0": a job is ready now; "1" at t: sleep until t). A worker that just finished
  a run, or one that polls, reads no marker: it takes the job directly. The
  simulation keeps the clock, so a block is a pop now and a wake later. It also
  plans which worker takes which job, so a parked worker with no job planned
  that pops a "1" for later puts it back for the worker that has one.

  Models: no real script: BullMQ's Worker.waitForJob (bullmq 6.7.0,
  dist/cjs/classes/worker.js, which calls the BZPOPMIN on the marker in
  dist/cjs/classes/redis-queue-backend.js) in virtual time.

  KEYS[1]  emq:{q}:marker          the wake marker (ZSET)
  KEYS[2]  emq:{q}:pending         jobs waiting for a worker (LIST)
  KEYS[3]  emq:{q}:job:<id>        the job this worker takes (HASH)

  ARGV[1]  now, Unix ms
  ARGV[2]  job id ("" when the worker has no job to take: it only parks)
  ARGV[3]  "1" when the worker is parked and reads the marker first, else "0"

  Returns an array:
    {0}       parked, the marker empty: it stays parked until a script writes it
    {1, t}    parked, popped "1" at t > now: it sleeps until t, or the next write
              (with no job planned it put the "1" back)
    {2, id, a}  took the job: off pending, state active, started now; if another
              job still waits, "0" goes back on the marker for the next worker
              (BullMQ's prepareJobForProcessing adds it back after every take)
              and a is 1, else a is 0
    {3}       awake, but no job to take: the worker parks again
   -1  ERR_SCORE  ARGV[1] is not whole ms in [0, 2^53)
   -3  ERR_ARITY  not 3 keys and 3 arguments
   -5  ERR_FLAG   ARGV[3] is neither "0" nor "1"
]]
--- @include "marker"
--- @include "args"
--- @include "job"

if #KEYS ~= 3 or #ARGV ~= 3 then return -3 end
if not isMs(ARGV[1]) then return -1 end
if not isFlag(ARGV[3]) then return -5 end
local now = tonumber(ARGV[1])
local id = ARGV[2]

if ARGV[3] == '1' then
  local head = redis.call('ZPOPMIN', KEYS[1])
  if head[1] == nil then return {0} end
  if tonumber(head[2]) > now then
    if id == '' then markNextReady(KEYS[1], head[2]) end
    return {1, head[2]}
  end
end
if id == '' or redis.call('HGET', KEYS[3], 'state') ~= 'pending' then return {3} end
-- the oldest waiting job is the one taken nearly always: pop it rather than search
-- (fakeredis's LREM reads the whole list, which a backlog makes long); any other head
-- goes back where it was
local head = redis.call('LPOP', KEYS[2])
if head and head ~= id then
  redis.call('LPUSH', KEYS[2], head)
  redis.call('LREM', KEYS[2], 1, id)
end
startJob(KEYS[3], ARGV[1])
if redis.call('LLEN', KEYS[2]) > 0 then
  markReady(KEYS[1])
  return {2, id, 1}
end
return {2, id, 0}
