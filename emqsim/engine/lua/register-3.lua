--[[
  register: add a registration only if its name is new.
  EchoMQ.Repeat.register: insert-if-absent, never a rewrite.

  Models: EchoMQ's @register (EchoMQ.Repeat, echo/apps/echo_mq/lib/echo_mq/repeat.ex,
  fiberfx echo_mq b9f34ed0): the same insert-if-absent; EchoMQ writes every_ms and
  template, this script whatever fields the host gives.

  KEYS[1]  emq:{q}:repeat          the registry (ZSET: name -> next run ms)
  KEYS[2]  emq:{q}:repeat:<name>   the registration's record (HASH)
  KEYS[3]  emq:{q}:marker          the wake marker (ZSET): not written, since a
                                   registration makes no job ready (the pump does)

  ARGV[1]  name
  ARGV[2]  first run, Unix ms
  ARGV[3..] field, value, ... written to the record

  Returns
    1  registered
    0  exists: a record with this name is already there; nothing was changed
   -1  ERR_SCORE   ARGV[2] is not whole ms in [0, 2^53)
   -2  ERR_NAME    ARGV[1] is empty
   -3  ERR_ARITY   not 3 keys
   -4  ERR_FIELDS  no record fields, an odd field/value list, an empty field, or
                   a number field (every_ms, offset, start, end, limit, deadline)
                   that is not whole ms in [0, 2^53)
]]
--- @include "args"

if #KEYS ~= 3 then return -3 end
local name, first = ARGV[1], ARGV[2]
if not isName(name) then return -2 end
if not isMs(first) then return -1 end
if not fieldsOk(3) then return -4 end

if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
redis.call('ZADD', KEYS[1], first, name)
return 1
