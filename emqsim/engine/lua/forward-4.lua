--[[
  forward: many fires of one row in one call, for a stretch of virtual time in which
  nothing happens but that row's fires, each taken at once by a worker parked on the
  marker (the simulation decides how far it may go from its event queue). For each
  fire it writes the job as the release writes it, starts it as the take does and,
  for a run over before the stretch ends, finishes it as the finish does; the
  row is then advanced once by the same rule the one-fire script applies, its `fired`
  count bumped by the jobs made. Each fire's marker write and pop, and its push onto
  and pop off the pending list, cancel out, so they are not done: what is left is
  exactly what the event-by-event path leaves.

  Models: no real script: the simulator's fast-forward over its own release (the
  one-fire script, or enqueue then advance) and take, fire by fire.

  KEYS[1]     emq:{q}:repeat          the registry (ZSET)
  KEYS[2]     emq:{q}:pending         jobs waiting for a worker (LIST): must be empty
  KEYS[3]     emq:{q}:marker          the wake marker (ZSET): must be empty
  KEYS[4]     emq:{q}:repeat:<name>   the row's record (HASH)
  KEYS[4+i]   emq:{q}:job:<id>        fire i's job (HASH): must not exist

  ARGV[1]     name
  ARGV[2]     slot read: the row's score now (the guard)
  ARGV[3]     the row's score after the last fire ("+inf" parks it)
  ARGV[4]     payload template
  ARGV[2+3i], ARGV[3+3i], ARGV[4+3i]  fire i: slot label, release instant (Unix ms),
              and the instant its run finished ("" while it still runs)

  Returns
    {size, head}  the registry's size and head score ("" if empty) after the fires
    0             nothing written: the row, the pending list, the marker or a job is
                  not as the simulation left it
   -1  ERR_SCORE  a slot, label or instant is not whole ms in [0, 2^53) (a finish may
                  be ""), or the next score is neither that nor "+inf"
   -2  ERR_NAME   ARGV[1] is empty
   -3  ERR_ARITY  no job key, or not three arguments per job key
]]
--- @include "args"
--- @include "job"
--- @include "row"

local k = #KEYS - 4
if k < 1 or #ARGV ~= 4 + 3 * k then return -3 end
if not isName(ARGV[1]) then return -2 end
if not isMs(ARGV[2]) or not isScore(ARGV[3]) then return -1 end
for i = 1, k do
  local a = 2 + 3 * i
  if not isMs(ARGV[a]) or not isMs(ARGV[a + 1]) or not (ARGV[a + 2] == '' or isMs(ARGV[a + 2])) then
    return -1
  end
end
if rowState(KEYS[1], ARGV[1], ARGV[2]) ~= 1 or redis.call('EXISTS', KEYS[4]) == 0
    or redis.call('LLEN', KEYS[2]) > 0 or redis.call('ZCARD', KEYS[3]) > 0
    or redis.call('EXISTS', unpack(KEYS, 5)) > 0 then
  return 0
end

for i = 1, k do
  local a = 2 + 3 * i
  writeTakenJob(KEYS[4 + i], ARGV[1], ARGV[a], ARGV[a + 1], ARGV[4], ARGV[a + 2])
end
advanceRow(KEYS[1], KEYS[4], ARGV[1], ARGV[3], k)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {redis.call('ZCARD', KEYS[1]), head[2] or ''}
