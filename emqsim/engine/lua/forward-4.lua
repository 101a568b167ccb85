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
  ARGV[5]     the fires' slot labels, one per job key, separated by single spaces
  ARGV[6]     the fires' release instants (Unix ms), the same way
  ARGV[7]     the instants their runs finished, the same way ("-" for one still running)
              (three words lists, not three arguments a fire: a client sends and a server
              reads each argument on its own, and a call carries hundreds of fires)

  Returns
    {size, head}  the registry's size and head score ("" if empty) after the fires
    0             nothing written: the row, the pending list, the marker or a job is
                  not as the simulation left it
   -1  ERR_SCORE  a slot, label or instant is not whole ms in [0, 2^53) (a finish may
                  be "-"), or the next score is neither that nor "+inf"
   -2  ERR_NAME   ARGV[1] is empty
   -3  ERR_ARITY  no job key, not seven arguments, or a list without one word per job key
]]
--- @include "args"
--- @include "job"
--- @include "row"

local k = #KEYS - 4
if k < 1 or #ARGV ~= 7 then return -3 end
local labels, nows, ends = words(ARGV[5]), words(ARGV[6]), words(ARGV[7])
if labels == nil or nows == nil or ends == nil or #labels ~= k or #nows ~= k or #ends ~= k then return -3 end
if not isName(ARGV[1]) then return -2 end
if not isMs(ARGV[2]) or not isScore(ARGV[3]) then return -1 end
for i = 1, k do
  if not isMs(labels[i]) or not isMs(nows[i]) or not (ends[i] == '-' or isMs(ends[i])) then
    return -1
  end
  if ends[i] == '-' then ends[i] = '' end
end
if rowState(KEYS[1], ARGV[1], ARGV[2]) ~= 1 or redis.call('EXISTS', KEYS[4]) == 0
    or redis.call('LLEN', KEYS[2]) > 0 or redis.call('ZCARD', KEYS[3]) > 0
    or redis.call('EXISTS', unpack(KEYS, 5)) > 0 then
  return 0
end

for i = 1, k do
  writeTakenJob(KEYS[4 + i], ARGV[1], labels[i], nows[i], ARGV[4], ends[i])
end
advanceRow(KEYS[1], KEYS[4], ARGV[1], ARGV[3], k)
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {redis.call('ZCARD', KEYS[1]), head[2] or ''}
