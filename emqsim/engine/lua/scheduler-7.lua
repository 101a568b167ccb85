--[[
  scheduler: upsert a job scheduler and make its next job, in the BullMQ design
  (emqsim/engine/chain.py; bullmq 6.x addJobScheduler-11.lua with storeJobScheduler).
  The host reads the scheduler and its pending job first (plain reads) and works out
  the next run and the offset to store, by the engine's rules; this script writes:
  the previous pending job, if it is still delayed or waiting, is removed (its
  hash deleted); the record is rewritten with the iteration count carried over
  (1 for a new scheduler); the row is scored by the next run; and the job for that
  run is made: delayed until its run time, or waiting at once if that is not later
  than now. Nothing else makes a scheduler's job until a worker takes this one.

  Models: BullMQ's addJobScheduler-11.lua with includes/storeJobScheduler.lua (bullmq
  6.7.0, dist/cjs/commands/); the host computes the next run and the offset.

  KEYS[1]  emq:{q}:repeat             the registry (ZSET)
  KEYS[2]  emq:{q}:repeat:<name>      the record (HASH)
  KEYS[3]  emq:{q}:delayed            jobs made ahead of their run time (ZSET)
  KEYS[4]  emq:{q}:pending            jobs waiting for a worker (LIST)
  KEYS[5]  emq:{q}:marker             the wake marker (ZSET)
  KEYS[6]  emq:{q}:job:<previous id>  the scheduler's previous job (HASH); the record
                                      key again when there is none
  KEYS[7]  emq:{q}:job:<new id>       the job of the next run (HASH)

  ARGV[1]  name
  ARGV[2]  now, Unix ms
  ARGV[3]  next run, Unix ms (the row's score and the new job's run time)
  ARGV[4]  previous job id ("" when there is none)
  ARGV[5]  new job id (repeat:<name>:<next run>)
  ARGV[6]  offset to store ("" stores none)
  ARGV[7..] field, value, ... of the record (the template among them)

  Returns an array: { 1 if the previous job was removed else 0, the iteration count }
   -1  ERR_SCORE   ARGV[2] or ARGV[3] is not whole ms in [0, 2^53), or ARGV[6] is
                   neither that nor ""
   -2  ERR_NAME    ARGV[1] or ARGV[5] is empty
   -3  ERR_ARITY   not 7 keys, or fewer than 6 arguments
   -4  ERR_FIELDS  no record fields, an odd field/value list, an empty field, or
                   a number field (every_ms, offset, start, end, limit, deadline)
                   that is not whole ms in [0, 2^53)
]]
--- @include "scheduled_job"
--- @include "args"

if #KEYS ~= 7 or #ARGV < 6 then return -3 end
local name, now, nxt, prev, id, offset = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if not isName(name) or not isName(id) then return -2 end
if not isMs(now) or not isMs(nxt) or (offset ~= '' and not isMs(offset)) then return -1 end
if not fieldsOk(7) then return -4 end

local removed = 0
if prev ~= '' then
  local gone = redis.call('ZREM', KEYS[3], prev) + redis.call('LREM', KEYS[4], 1, prev)
  if gone > 0 then
    redis.call('DEL', KEYS[6])
    removed = 1
  end
end
local ic = redis.call('HGET', KEYS[2], 'ic') or '1'
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], unpack(ARGV, 7))
redis.call('HSET', KEYS[2], 'ic', ic)
if offset ~= '' then redis.call('HSET', KEYS[2], 'offset', offset) end
redis.call('ZADD', KEYS[1], nxt, name)

addScheduledJob(KEYS[7], KEYS[3], KEYS[4], KEYS[5], id, name, nxt, now, '1',
                redis.call('HGET', KEYS[2], 'template') or '{}')
return {removed, tonumber(ic)}
