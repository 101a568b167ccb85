--[[
  fire: enqueue each due occurrence and advance its row in one atomic step.
  The design that closes EchoMQ's gap between enqueue and advance: a crash can
  land before this script or after it, never between its two halves. Each row is
  fired only if its score still equals the slot the pump read, so a second pump
  that read the same slot finds it moved ("stale") and produces nothing.
  The job records a slot label, which is the slot read unless the schedule's
  missed policy coalesced late slots into one run labelled with the latest.
  An empty job id skips the occurrence (a deadline or overlap policy): the row is
  advanced under the same guard and no job is made.
  One call takes every due row of a beat: KEYS[1..3] are fixed, then two keys and
  six arguments per row.

  Models: no real script. This project's design: EchoMQ's @enqueue and @advance joined
  into one script under a score guard.

  KEYS[1]       emq:{q}:repeat          the registry (ZSET)
  KEYS[2]       emq:{q}:pending         jobs waiting for a worker (LIST)
  KEYS[3]       emq:{q}:marker          the wake marker (ZSET): "0" at 0 once a job
                                        is ready (written only when one was enqueued)
  KEYS[2+2i]    emq:{q}:repeat:<name>   row i's record (HASH)
  KEYS[3+2i]    emq:{q}:job:<id>        row i's new job (HASH); for a skipped row
                                        the host passes the record key again, unused

  ARGV[1]       now: the release instant, Unix ms
  ARGV[2]       "1" when job ids are slot-derived: an existing job key means the
                slot was produced already, so only the advance is done
  ARGV[3+6(i-1) .. 8+6(i-1)]  row i: name, slot read (the guard), next score
                ("+inf" parks the row), job id ("" skips), slot label (the
                scheduled time the job stands for), payload template

  Returns an array: { registry size, registry head score ("" if empty),
                      one result per row }, a row's result being
    1  fired: job enqueued, row advanced
    0  absent: the row is gone (cancelled before the fire); nothing written
    2  stale: the row's score is no longer the slot read; nothing written
    3  duplicate: the slot-derived job exists already; row advanced only
    4  skipped: no job by policy; row advanced only
  or, before anything is written,
   -1  ERR_SCORE  ARGV[1], a slot read or a slot label is not whole ms in
                  [0, 2^53), or a next score is neither that nor "+inf"
   -2  ERR_NAME   a row's name is empty
   -3  ERR_ARITY  the keys and arguments do not come in matching groups
   -5  ERR_FLAG   ARGV[2] is neither "0" nor "1"
]]
--- @include "marker"
--- @include "args"
--- @include "job"
--- @include "row"

local rows = (#KEYS - 3) / 2
if rows < 1 or rows ~= math.floor(rows) or #ARGV ~= 2 + 6 * rows then return -3 end
if not isMs(ARGV[1]) then return -1 end
if not isFlag(ARGV[2]) then return -5 end
for i = 0, rows - 1 do
  local a = 3 + 6 * i
  if not isName(ARGV[a]) then return -2 end
  if not isMs(ARGV[a + 1]) or not isMs(ARGV[a + 4]) then return -1 end
  if not isScore(ARGV[a + 2]) then return -1 end
end

local now, dedupe = ARGV[1], ARGV[2] == '1'
local out = {0, ''}
local made = false
for i = 0, rows - 1 do
  local a, record, job = 3 + 6 * i, KEYS[4 + 2 * i], KEYS[5 + 2 * i]
  local name, slot, nxt, id = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local result = rowState(KEYS[1], name, slot)
  if result == 1 then
    local n = 0
    if id == '' then
      result = 4
    elseif dedupe and redis.call('EXISTS', job) == 1 then
      result = 3
    else
      writeJob(job, name, ARGV[a + 4], now, ARGV[a + 5])
      redis.call('RPUSH', KEYS[2], id)
      n, made = 1, true
    end
    advanceRow(KEYS[1], record, name, nxt, n)
  end
  out[#out + 1] = result
end
out[1] = redis.call('ZCARD', KEYS[1])
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if head[2] then out[2] = head[2] end
if made then markReady(KEYS[3]) end
return out
