--[[
  A job's hash as the pump design writes it: made pending at its release, made
  active when a worker takes it, done (or cancelled) when its run ends. The
  one-fire script, the enqueue, the take, the finish and the many-fire script all
  write a job through these functions.

  Models: no real script: this project's job hash (EchoMQ's @enqueue writes its
  own fields; these are the ones the simulator reads back).
]]
local function writeJob(jobKey, name, label, now, template)
  redis.call('HSET', jobKey, 'name', name, 'slot', label, 'released', now,
             'data', template, 'state', 'pending')
end

local function startJob(jobKey, now)
  redis.call('HSET', jobKey, 'state', 'active', 'started', now)
end

local function finishJob(jobKey, state, started, finished)
  redis.call('HSET', jobKey, 'state', state, 'started', started, 'finished', finished)
end

-- a job written and taken at `now` in one call, and, given `finished`, done then too:
-- the fields, their order and their values are what writeJob, startJob and finishJob leave
local function writeTakenJob(jobKey, name, label, now, template, finished)
  if finished == '' then
    redis.call('HSET', jobKey, 'name', name, 'slot', label, 'released', now,
               'data', template, 'state', 'active', 'started', now)
  else
    redis.call('HSET', jobKey, 'name', name, 'slot', label, 'released', now,
               'data', template, 'state', 'done', 'started', now, 'finished', finished)
  end
end
