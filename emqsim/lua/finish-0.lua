--[[
  finish: record that workers finished jobs, and drop jobs past the retention bound.
  No fixed keys: the first ARGV[1] keys are finished jobs, the rest are evicted.

  KEYS[1..m]    emq:{q}:job:<id>   jobs that finished now (HASH)
  KEYS[m+1..]   emq:{q}:job:<id>   old finished jobs to delete (retention)

  ARGV[1]       m: how many of KEYS finished
  ARGV[2i], ARGV[2i+1]  job i's start and finish, Unix ms

  Returns
    m  the number of jobs marked done
   -1  ERR_SCORE  a start or finish is not a number
   -3  ERR_ARITY  ARGV does not hold two times per finished job
]]
local m = tonumber(ARGV[1])
if m == nil or m > #KEYS or #ARGV ~= 1 + 2 * m then return -3 end
for i = 1, m do
  if tonumber(ARGV[2 * i]) == nil or tonumber(ARGV[2 * i + 1]) == nil then return -1 end
end
for i = 1, m do
  redis.call('HSET', KEYS[i], 'state', 'done', 'started', ARGV[2 * i], 'finished', ARGV[2 * i + 1])
end
for i = m + 1, #KEYS do
  redis.call('DEL', KEYS[i])
end
return m
