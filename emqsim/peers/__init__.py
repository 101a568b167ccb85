"""The peers the course compares, one module each: the peer's own rule with its defaults and
its source, and the engine's `Schedule` settings that behave the same way.

A floor between `cron` and `lessons`: the engine has the mechanisms (`Schedule(missed=...,
deadline=..., overlap=...)`), a peer module says which of them a peer's setting is, and the
lessons take their labels and schedules from here. Where a peer cannot run here, its module
also states the peer's rule as plain arithmetic, checked in the tests against that peer's own
test vectors or documented examples; APScheduler runs, so its tests ask it live.
"""
