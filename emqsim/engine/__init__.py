"""The simulator's engine: virtual time, cadences, schedules, state in Redis, Lua scripts.

Everything a run needs lives here and nothing here imports a layer above it (the cron
rules the course compares, the lessons, the figures, the site). `emqsim` re-exports the
public names; the modules, in the order a run uses them:
errors, timefmt, durations, clock, rand, ids, keys -> cadence (with cron_parser, the
parser BullMQ's design reads cron through) -> schedule, faults -> scripts, store (lua/)
-> registry -> pump, worker -> trace -> chain (BullMQ's design), sim (EchoMQ's pump, and
the entry point for both) -> reference (the pure-Python second copy the tests hold equal).
"""
