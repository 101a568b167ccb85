--[[
  advance: rewrite the one registry row to its next score (EchoMQ.Repeat.advance).
  The host computes the next score; the script only guards and writes it. If the
  record is gone (a cancel raced the tick) the member is swept instead of resurrected.

  Models: EchoMQ's @advance (EchoMQ.Repeat, echo/apps/echo_mq/lib/echo_mq/repeat.ex,
  fiberfx echo_mq b9f34ed0), line for line; added: the argument check in front, the
  score passed to ZADD as text, so "+inf" can park a row, and each `return code` made
  `return answer(code)`: two reads after the write, ZRANGE 0 0 WITHSCORES and ZCARD of
  the registry, returned beside EchoMQ's code (EchoMQ returns the code alone and reads
  the size with a command of its own, EchoMQ.Repeat.count), so the pump re-arms, and
  checks the registry is still the one it writes, with no read of its own; and, where
  ARGV[3] says a job was made, the record's `fired` count bumped before the ZADD
  (the `row` include's advanceRow).

  KEYS[1]  emq:{q}:repeat          the registry (ZSET)
  KEYS[2]  emq:{q}:repeat:<name>   the record (HASH)

  ARGV[1]  name
  ARGV[2]  next score, Unix ms ("+inf" parks the row: no next run)
  ARGV[3]  (optional) "1" when the enqueue before it made a job, else "0": the record's
           `fired` count goes up by one as the row advances (the simulator's count, not
           EchoMQ's; the `row` include's rule, which `fire` and `forward` apply too: a
           fire is counted where its row moves, and an enqueue whose advance a crash cut
           off is not counted)

  Returns an array {code, registry size, registry head score ("" if empty)}, code being
    1  advanced   ({:ok, :advanced})
    0  absent: the record was gone, the member swept ({:ok, :absent})
  or, before anything is written,
   -1  ERR_SCORE  ARGV[2] is neither whole ms in [0, 2^53) nor "+inf"
   -2  ERR_NAME   ARGV[1] is empty
   -3  ERR_ARITY  not 2 keys and 2 or 3 arguments
   -5  ERR_FLAG   ARGV[3] is neither "0" nor "1"
]]
--- @include "args"
--- @include "row"

if #KEYS ~= 2 or #ARGV < 2 or #ARGV > 3 then return -3 end
if not isName(ARGV[1]) then return -2 end
if not isScore(ARGV[2]) then return -1 end
if #ARGV == 3 and not isFlag(ARGV[3]) then return -5 end

-- EchoMQ's code, with the registry's size and head after the write
local function answer(code)
  local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {code, redis.call('ZCARD', KEYS[1]), head[2] or ''}
end

if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return answer(0)
end
advanceRow(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3] == '1' and 1 or 0)
return answer(1)
