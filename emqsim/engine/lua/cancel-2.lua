--[[
  cancel: remove a registration (EchoMQ.Repeat.cancel).

  Models: EchoMQ's @cancel (EchoMQ.Repeat, echo/apps/echo_mq/lib/echo_mq/repeat.ex,
  fiberfx echo_mq b9f34ed0): the same ZREM and DEL; EchoMQ answers the ZREM's count,
  this script 1 if either key was there.

  KEYS[1]  emq:{q}:repeat          the registry (ZSET)
  KEYS[2]  emq:{q}:repeat:<name>   the record (HASH)

  ARGV[1]  name

  Returns
    1  cancelled
    0  absent: there was nothing to remove
   -2  ERR_NAME   ARGV[1] is empty
   -3  ERR_ARITY  not 2 keys and 1 argument
]]
--- @include "args"

if #KEYS ~= 2 or #ARGV ~= 1 then return -3 end
local name = ARGV[1]
if not isName(name) then return -2 end
local removed = redis.call('ZREM', KEYS[1], name) + redis.call('DEL', KEYS[2])
if removed > 0 then return 1 end
return 0
