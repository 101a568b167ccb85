--[[
  finish: workers finished jobs: take each off the pending list, mark it done,
  and drop old jobs past the retention bound. (The simulation computes when a
  worker starts a job; Redis is told once, when the run is over.)

  KEYS[1]           emq:{q}:pending    jobs waiting or running (LIST)
  KEYS[2..m+1]      emq:{q}:job:<id>   jobs that finished now (HASH)
  KEYS[m+2..]       emq:{q}:job:<id>   old finished jobs to delete (retention)

  ARGV[1]           m: how many jobs finished
  ARGV[3i-1], ARGV[3i], ARGV[3i+1]   job i's id, start and finish (Unix ms)

  Returns
    m  the number of jobs marked done
   -1  ERR_SCORE  a start or finish is not a number
   -3  ERR_ARITY  the keys and arguments do not come in matching groups
]]
local m = tonumber(ARGV[1])
if m == nil or m + 1 > #KEYS or #ARGV ~= 1 + 3 * m then return -3 end
for i = 1, m do
  if tonumber(ARGV[3 * i]) == nil or tonumber(ARGV[3 * i + 1]) == nil then return -1 end
end
for i = 1, m do
  redis.call('LREM', KEYS[1], 1, ARGV[3 * i - 1])
  redis.call('HSET', KEYS[i + 1], 'state', 'done', 'started', ARGV[3 * i], 'finished', ARGV[3 * i + 1])
end
for i = m + 2, #KEYS do
  redis.call('DEL', KEYS[i])
end
return m
