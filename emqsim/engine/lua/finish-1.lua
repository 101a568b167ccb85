--[[
  finish: workers finished jobs: take each still waiting off the pending list, mark it done
  (or cancelled, when a later run of its schedule replaced it), and drop old
  jobs past the retention bound. (The simulation computes when a worker starts
  a job; Redis is told once, when the run is over.)

  Models: no real script: the simulator's record of finished runs. It stands where
  BullMQ's moveToFinished-14.lua and EchoMQ's @complete would, without their
  locks, retries or events.

  KEYS[1]           emq:{q}:pending    jobs waiting for a worker (LIST)
  KEYS[2..m+1]      emq:{q}:job:<id>   jobs that finished now (HASH)
  KEYS[m+2..]       emq:{q}:job:<id>   old finished jobs to delete (retention)

  ARGV[1]           m: how many jobs finished
  ARGV[4i-2 .. 4i+1]  job i's id, start, finish (Unix ms) and end state:
                    "done", or "cancelled" (overlap policy replace)

  Returns
    m  the number of jobs marked
   -1  ERR_SCORE  a start or finish is not whole ms in [0, 2^53)
   -2  ERR_NAME   a job id is empty
   -3  ERR_ARITY  m is not a whole number, or the keys and arguments do not
                  come in matching groups
   -5  ERR_FLAG   an end state is neither "done" nor "cancelled"
]]
--- @include "args"
--- @include "job"

if not isMs(ARGV[1]) then return -3 end
local m = tonumber(ARGV[1])
if m + 1 > #KEYS or #ARGV ~= 1 + 4 * m then return -3 end
for i = 1, m do
  local state = ARGV[4 * i + 1]
  if not isName(ARGV[4 * i - 2]) then return -2 end
  if state ~= 'done' and state ~= 'cancelled' then return -5 end
  if not isMs(ARGV[4 * i - 1]) or not isMs(ARGV[4 * i]) then return -1 end
end
-- a job a worker took is off the list already; LREM of an absent id reads the whole
-- list, which a backlog of waiting jobs makes long; with no job waiting, none is looked up
local waiting = m > 0 and redis.call('LLEN', KEYS[1]) > 0
for i = 1, m do
  if waiting and redis.call('HGET', KEYS[i + 1], 'state') == 'pending' then
    redis.call('LREM', KEYS[1], 1, ARGV[4 * i - 2])
  end
  finishJob(KEYS[i + 1], ARGV[4 * i + 1], ARGV[4 * i - 1], ARGV[4 * i])
end
if #KEYS > m + 1 then
  redis.call('DEL', unpack(KEYS, m + 2))  -- one call for all evicted jobs
end
return m
