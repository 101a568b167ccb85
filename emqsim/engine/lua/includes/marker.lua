--[[
  The wake marker: one sorted set a worker parks on (BullMQ 6.x's rule, from its
  includes addBaseMarkerIfNeeded.lua and addDelayMarkerIfNeeded.lua).

  Models: BullMQ's includes/addBaseMarkerIfNeeded.lua and
  includes/addDelayMarkerIfNeeded.lua (bullmq 6.7.0, dist/cjs/commands/).

  member "0" at score 0   a job is ready to take now
  member "1" at score t   the earliest future instant t at which a job becomes ready
                          (a design with delayed jobs; the pump design has none)

  A parked worker pops the head (BZPOPMIN in BullMQ, `take` here in virtual time):
  "0" means take a job now; "1" at t means sleep until t, or until a script writes
  the marker again.
]]
local function markReady(markerKey)
  redis.call('ZADD', markerKey, 0, '0')
end

local function markNextReady(markerKey, readyAt)
  if readyAt ~= nil and readyAt ~= false and readyAt ~= '' then
    redis.call('ZADD', markerKey, readyAt, '1')
  end
end
