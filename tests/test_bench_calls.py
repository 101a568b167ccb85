"""What one fire costs on the event path, counted (not timed): the round trips from the client
and the calls inside scripts, as `make bench` prints them, held exact, so a change that adds a
round trip or an in-script call to every fire shows up here as a number."""

from bench_speed import event_path_calls


def test_calls_per_fire_on_the_event_path():
    got = [(design, round(trips, 3), round(inner, 3)) for design, trips, inner in event_path_calls(500)]
    # the atomic pump: one `fire` (8 calls: ZSCORE, HSET, RPUSH, HINCRBY, ZADD, ZCARD, ZRANGE, and
    # the marker's ZADD) a beat, the parked worker's `take` (5: ZPOPMIN, HGET, LPOP, HSET, LLEN), one
    # `finish` HSET a job, and the finish's check for waiting jobs once per FLUSH (256) jobs; the
    # two-step pump makes EchoMQ's two round trips (enqueue 4 calls: EXISTS, HSET, RPUSH, the
    # marker's ZADD; advance 5: EXISTS, HINCRBY, ZADD, ZRANGE, ZCARD), then the take; BullMQ's design
    # takes, finishes and makes the next job
    assert got == [("pump (two-step)", 4.006, 15.004), ("pump (atomic)", 3.006, 14.004), ("bullmq", 4.006, 19.004)]


def test_calls_per_fire_when_the_run_is_quiet():
    got = [(design, round(trips, 3), round(inner, 3)) for design, trips, inner in event_path_calls(500, forward=True)]
    # many fires a `forward` (`pickups` in BullMQ's design) call: about one call inside it a fire
    assert got == [("pump (two-step)", 0.008, 1.022), ("pump (atomic)", 0.008, 1.022), ("bullmq", 0.006, 1.036)]


def test_each_fast_path_the_bench_times_is_a_switch_that_is_on():
    """`make bench` times every fast path on and off by its switch, a module's `enabled`: each
    named switch exists and is on by default (a renamed switch would silently time nothing),
    and each design's fast path is one module, named in the label by its switch."""
    import importlib

    from bench_speed import FAST_PATHS

    assert [module for _, module, _ in FAST_PATHS] == ["pump_fast", "bullmq_fast", "fakelua"]
    for label, module, _ in FAST_PATHS:
        assert importlib.import_module(f"emqsim.engine.{module}").enabled is True, module
        assert f"({module}.enabled)" in label
