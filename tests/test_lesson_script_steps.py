"""The keys as data, one `redis.call` at a time: the recorder names the line each call stands on,
changes nothing, and reads the keys as a client reads them; the lesson's frames hold the walk's
numbers (how many calls, which one rewrites the registry's score, what the registry holds)."""

from __future__ import annotations

import re

import pytest

from emqsim import Every, Schedule, Store
from emqsim.engine.errors import InputError
from emqsim.engine.registry import Registry
from emqsim.engine.scripts import script_files
from emqsim.engine.steps import recording
from emqsim.engine.store import embedded
from emqsim.lessons import script_steps
from emqsim.lessons.course import MINUTE, START
from emqsim.lessons.script_steps import StepsModel, frames, step_of, walk

#: a call on a line: its command as a literal, or the name of the variable that holds it
CALL = re.compile(r"""(?:redis\.call|rcall)\(\s*(?:['"]([A-Za-z]+)['"]|([A-Za-z_][\w.\[\]]*))""")


@pytest.mark.parametrize("design", ["pump", "bullmq"])
def test_each_call_stands_on_a_line_that_makes_that_call(design):
    rec, _ = walk(design)
    assert rec.calls
    for call in rec.calls:
        line = rec.source(call.script).splitlines()[call.line - 1]
        calls = CALL.findall(line)
        literal = [n.upper() for n, _ in calls if n]
        assert calls, (call.script, call.line, line)
        if len(literal) == len(calls):   # every call on the line names its command
            assert call.command[0].upper() in literal, (call.script, call.line, line)


@pytest.mark.parametrize("design", ["pump", "bullmq"])
def test_the_keys_after_the_last_call_are_what_a_client_reads_after_the_walk(design):
    rec, scripts = walk(design)
    last = rec.calls[-1].keys
    # the same walk again, unrecorded, on a server of its own, read back by its client
    if design == "pump":
        store = Store(client=embedded())   # the walk's own server is embedded whatever the URL
        client, pattern = store.client, store.keys.pattern
        from emqsim.engine.ids import Minter

        reg = Registry(store)
        reg.register(Schedule("reports", Every(15 * MINUTE)), START)
        job = Minter().mint(START)
        reg.enqueue(job, "reports", START, START)
        reg.advance("reports", START + 15 * MINUTE, made=True)
        reg.take(job, START, parked=True)
        reg.finish([(job, START, START + script_steps.RUN, "done")])
    else:
        assert scripts == "bullmq 6.7.0"
        from emqsim.engine.bullmq_scripts import runtime
        from emqsim.engine.bullmq_scripts.driver import BullMQScripts

        store, client, pattern = None, runtime.embedded(), "bull:demo:*"
        bull = BullMQScripts(client, queue="demo")
        bull.upsert("reports", START, every=15 * MINUTE)
        bull.finish(bull.take(START), START + script_steps.RUN)
    try:
        keys = sorted(k.decode() for k in client.keys(pattern))
        assert keys == sorted(last)
        for key in keys:
            kind, value = last[key]
            if kind == "zset":
                assert value == tuple((m.decode(), repr(int(s)) if s == int(s) else repr(s))
                                      for m, s in client.zrange(key, 0, -1, withscores=True))
            elif kind == "hash":
                assert dict(value) == {f.decode(): v.decode() for f, v in client.hgetall(key).items()}
            elif kind == "list":
                assert list(value) == [v.decode() for v in client.lrange(key, 0, -1)]
            elif kind == "stream":
                assert value == client.xlen(key)
            elif kind == "string":
                assert value == client.get(key).decode()
    finally:
        if store is not None:
            store.close()
        else:
            client.close()


def test_the_walks_numbers():
    pump, bull = frames("pump"), frames("bullmq")
    assert len(pump) - 1 == 19
    # the registry: no member before the register's ZADD, then one member for good
    assert [f.registry for f in pump] == [0, 0, 0] + [1] * 17
    zadds = [f for f in pump if f.command.startswith("ZADD ") and f.command.split()[1].endswith(":repeat")]
    assert [(f.step, f.script, f.command.split()[2]) for f in zadds] == [
        (3, "register-3.lua", "1796029200000"), (10, "advance-2.lua", "1796030100000")]
    advance = pump[10]
    registry = next(k for k in advance.keys if k.key.endswith(":repeat"))
    assert registry.state == "changed" and [(e.name, e.value, e.changed) for e in registry.entries] == [
        ("reports", "1796030100000 (09:15:00)", True)]
    assert advance.change == "emq:{demo}:repeat: reports now 1796030100000 (09:15:00)"
    assert pump[0].keys == () and pump[0].change == "before the first script: no key of the queue yet"
    # BullMQ's design, its own scripts: the next run's job is delayed at the take, and the marker
    # gets its time; "0" is written after the upsert and again after the take
    assert (len(bull) - 1, walk("bullmq")[1]) == (55, "bullmq 6.7.0")
    assert [s for s, _ in walk("bullmq")[0].scripts] == [
        "addJobScheduler-11.lua", "moveToActive-11.lua", "updateJobScheduler-12.lua", "moveToFinished-14.lua"]
    delayed = [f.step for f in bull if f.command.startswith("ZADD ") and ":delayed" in f.command]
    marker = [f.step for f in bull if f.command.startswith("ZADD ") and ":marker" in f.command]
    rewrites = [f.step for f in bull if f.command.startswith("ZADD ") and f.command.split()[1].endswith(":repeat")]
    assert (delayed, marker, rewrites) == ([34], [13, 22, 37], [4, 28])
    assert bull[37].command == "ZADD bull:demo:marker 1796030100000 1" and bull[37].script == "updateJobScheduler-12.lua"
    assert bull[34].command.split()[2] == str((START + 15 * MINUTE) * 4096)
    assert [e.value for k in bull[34].keys if k.key.endswith(":delayed") for e in k.entries] == [
        f"{(START + 15 * MINUTE) * 4096} (09:15:00 x 4096)"]
    assert {f.reply for f in bull if f.command[0:4] == "XADD"} == {"(a new stream entry's id)"}
    assert [f.registry for f in bull][3:6] == [0, 1, 1] and all(f.registry == 1 for f in bull[4:])


def test_show_me_points_at_the_steps_the_questions_name():
    m = StepsModel()
    shows = {q.id: q.show_me for q in m.questions}
    assert shows["02-stop-between-scripts"] == {"design": "pump", "step": step_of("pump", "enqueue-last")}
    assert shows["02-who-writes-the-wake"] == {"design": "bullmq", "step": step_of("bullmq", "chain-marker")}


def test_a_step_past_the_walk_is_refused_and_each_design_has_its_own_length():
    m = StepsModel()
    assert [v for _, v in m.positions("step", {"design": "pump"})] == list(range(20))
    assert [v for _, v in m.positions("step", {"design": "bullmq"})] == list(range(56))
    with pytest.raises(InputError, match=r"^step 20 is refused; give one of the 20 positions from 0 to 19$"):
        m.frame(design="pump", step=20)


def test_recording_changes_no_answer_and_is_gone_after_its_block():
    def run(store, record):
        reg = Registry(store)
        labels = {store.scripts.source(v): v for v in script_files()}
        if record:
            with recording(store.client, store.keys.pattern, labels) as rec:
                out = reg.register(Schedule("reports", Every(15 * MINUTE)), START)
        else:
            out, rec = reg.register(Schedule("reports", Every(15 * MINUTE)), START), None
        return out, reg.rows(), rec

    with Store(client=embedded()) as a, Store(client=embedded()) as b:
        plain, recorded = run(a, False), run(b, True)
        assert plain[:2] == recorded[:2] == ("registered", [("reports", START)])
        assert [c.command[0] for c in recorded[2].calls] == ["EXISTS", "HSET", "ZADD"]
        # after the block the server's runtime is its own again: nothing more is recorded
        Registry(b).advance("reports", START + 15 * MINUTE)
        assert len(recorded[2].calls) == 3


def test_only_the_embedded_server_can_be_watched():
    class NotFake:
        connection_pool = None

    with pytest.raises(InputError, match=r"^only the embedded fakeredis can be watched from inside a script"):
        with recording(NotFake(), "emq:*"):
            pass


def test_03_the_marker_after_a_take_with_nothing_waiting_still_says_try_now():
    """BullMQ 6.7.0's moveToActive writes member 0 after every take (issue 28's marker fact): at
    step 22 the wait list is gone, the job is active, and the marker holds "0" at 0."""
    from emqsim.lessons.script_steps import MarkerStepsModel, _marker

    m = MarkerStepsModel()
    assert m.defaults() == {"design": "bullmq", "step": 0}
    f = m.frame(step=22)
    keys = {k.key.rsplit(":", 1)[1]: k for k in f.keys}
    assert "wait" not in keys and [e.value for e in keys["active"].entries] == [f"repeat:reports:{START}"]
    assert (f.script, f.command, f.reply, _marker(f)) == (
        "moveToActive-11.lua", "ZADD bull:demo:marker 0 0", "0", {"0": "0"})
    assert _marker(m.frame(step=37)) == {"0": "0", "1": "1796030100000 (09:15:00)"}


def test_03_first_pop_show_me_lands_on_the_marker_write_with_the_marker_open():
    """Student review: 03's question on the member a parked worker pops first moved the figure to
    step 55, an XADD to the events stream, with the marker key closed: nothing on screen answered
    it. Show me lands on the last write to the marker (the next run's member 1 beside member 0),
    where the figure opens the key; no call after it touches the marker, so it is what the worker
    parked after the finish finds."""
    from matplotlib.text import Text

    from emqsim.figures import catalogue

    m = script_steps.MarkerStepsModel()
    q = next(q for q in m.questions if q.id == "03-marker-first-pop")
    assert q.show_me == {"design": "bullmq", "step": step_of("bullmq", "chain-marker")}
    f = q.frame(m)
    assert f.command.startswith("ZADD ") and f.command.split()[1].endswith(":marker")
    (marker,) = [k for k in f.keys if k.key.endswith(":marker")]
    assert marker.state == "changed" and [(e.name, e.value) for e in marker.entries] == [
        ("0", "0"), ("1", f"{START + 15 * MINUTE} (09:15:00)")]
    later = frames("bullmq")[f.step + 1:]
    assert later and all(":marker" not in g.command and next(k.state for k in g.keys if k.key.endswith(":marker"))
                         == "same" for g in later)
    fig = catalogue.figure("03 the marker, step by step")
    fig.update(**q.show_me)
    drawn = [t.get_text().strip(" ●") for t in fig.view.ax.figure.findobj(Text)]
    assert "0 = 0" in drawn and f"1 = {START + 15 * MINUTE} (09:15:00)" in drawn


def test_between_the_pump_s_two_scripts_the_job_is_made_and_the_row_not_moved():
    """02's first step question, read off the walk: after the enqueue's last call the job waits and
    the row still holds 09:00; after the advance's ZADD the row holds 09:15; before the release
    neither."""
    from emqsim.lessons.script_steps import _between_scripts
    said = [_between_scripts(f) for f in frames("pump")]
    last = step_of("pump", "enqueue-last")
    assert frames("pump")[last].script == "enqueue-3.lua" and frames("pump")[last + 1].script == "advance-2.lua"
    assert said[last] == "job-not-row" and said[0] == "neither"
    rpush = next(f.step for f in frames("pump") if f.command.startswith("RPUSH "))
    assert said.index("job-not-row") == rpush and said[last + 3] == "neither"   # the ZADD: both written
