"""The glossary's sentences about real systems, held to those systems (issue 30).

The glossary restates in the project's words what other schedulers do: APScheduler's default
grace, Kubernetes' deadline and concurrency policy, Temporal's overlap policies, systemd, and
BullMQ's and the cron libraries' own rules. Each test here reads an entry's own numbers, names
and versions out of the glossary and asserts them against the source the pages' lanes use:
APScheduler, croniter and cronsim asked live, the recorded BullMQ and cron-parser oracles
(tests/oracles/recorded), and the peers' modules in emqsim/peers, which their own tests hold to
each system's test vectors. A changed default, a misnamed policy or a wrong version in an entry
fails here; no dependency's wording is compared.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta, timezone
from importlib import metadata
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from test_glossary import entries, target

from emqsim.engine.cadence import Every
from emqsim.engine.errors import InputError
from emqsim.peers import apscheduler as aps_peer
from emqsim.peers import kubernetes as k8s
from emqsim.peers import systemd
from emqsim.peers import temporal

RECORDED = Path(__file__).resolve().parent / "oracles" / "recorded"
S = 1000
NEW_YORK = ZoneInfo("America/New_York")


def entry(term: str) -> str:
    """An entry's definition as one line of prose (its heading left out)."""
    text = entries()[target(term)].split("\n", 1)[1]
    return " ".join(text.split())


def one(pattern: str, text: str) -> tuple[str, ...]:
    """The groups of the single place `pattern` matches in an entry (the entry must say it once)."""
    found = re.findall(pattern, text)
    assert len(found) == 1, (pattern, text)
    return found[0] if isinstance(found[0], tuple) else (found[0],)


def engine_name(text: str) -> str:
    """The engine policy an entry names: "the engine's `x`"."""
    return one(r"the engine's `([\w-]+)`", text)[0]


# -- APScheduler (live) ---------------------------------------------------------------------------

def test_misfire_grace_time_is_apschedulers_own_default():
    """"N second(s) by default in APScheduler V": V is the installed APScheduler, and with no
    option set its scheduler runs a slot N s late and drops one N+1 s late."""
    from test_peer_apscheduler import apscheduler_runs

    text = entry("misfire_grace_time")
    n, version = one(r"(\d+) seconds? by default in APScheduler (\d+\.\d+\.\d+)", text)
    assert metadata.version("APScheduler") == version
    grace, every, first = int(n) * S, 60 * S, 1_800_000_000_000
    slot = first + every

    def ran_late(late: int) -> bool:
        runs = apscheduler_runs(every, first, slot + late, outage=(first + 1, slot + late))
        return any(s == slot for s, _ in runs)

    assert ran_late(grace) and not ran_late(grace + S)
    assert aps_peer.DEFAULTS["misfire_grace_time"] == int(n)      # the lanes' setting is the same one


def test_skip_names_apschedulers_default_instances_temporals_default_and_systemds_version():
    """skip: "APScheduler V with `max_instances` N", "Temporal's `Skip` (its default, commit C)",
    "a systemd V timer": each version, default and name is the one the lanes use."""
    from apscheduler.schedulers.background import BackgroundScheduler

    text = entry("skip")
    version, instances = one(r"APScheduler (\d+\.\d+\.\d+) with `max_instances` (\d+)", text)
    assert metadata.version("APScheduler") == version
    assert BackgroundScheduler()._job_defaults["max_instances"] == int(instances)   # live default
    assert aps_peer.settings(max_instances=int(instances))["overlap"] == engine_name(text)
    name, commit = one(r"Temporal's `(\w+)` \(its default, commit ([0-9a-f]{12})\)", text)
    assert temporal.DEFAULTS["overlap"] == name and commit in temporal.__doc__
    assert temporal.OVERLAP[name] == engine_name(text)
    # "that slot never runs": an action during a run starts nothing, ever
    assert temporal.starts(name, [0, 10 * S, 30 * S], 15 * S) == [(0, 0), (30 * S, 30 * S)]
    assert one(r"systemd (\d+(?:\.\d+)*) timer", text)[0] in systemd.SOURCE


# -- Kubernetes CronJob (the controller's own vectors) --------------------------------------------

def test_the_kubernetes_entries_name_its_defaults_policies_and_commit():
    allow, replace, forbid = entry("allow"), entry("replace"), entry("forbid")
    name, commit = one(r"Kubernetes CronJob's `(\w+)` \(its default, commit ([0-9a-f]{12})\)", allow)
    assert k8s.DEFAULTS["concurrencyPolicy"] == name and commit in k8s.VECTORS
    assert k8s.CONCURRENCY[name] == engine_name(allow)
    name, commit = one(r"Kubernetes CronJob's `(\w+)` \(commit ([0-9a-f]{12})\)", replace)
    assert k8s.CONCURRENCY[name] == engine_name(replace) and commit in k8s.VECTORS
    name, ours = one(r"Kubernetes' `(\w+)`, the engine's `(\w+)`", forbid)
    assert k8s.CONCURRENCY[name] == ours
    policy = entry("concurrency policy")
    field, default = one(r"Kubernetes CronJob's `(\w+)` \((\w+) by default\)", policy)
    assert k8s.DEFAULTS[field] == default


def test_starting_deadline_seconds_is_the_controllers_rule():
    """"(read at commit C): a missed time older than it is not started; unset, none": the
    controller's `mostRecentScheduleTime`, held to its own vectors, at that commit."""
    text = entry("startingDeadlineSeconds")
    commit = one(r"read at commit ([0-9a-f]{12})", text)[0]
    assert commit in k8s.VECTORS and "unset, none" in text
    assert k8s.DEFAULTS["startingDeadlineSeconds"] is None

    def next_after(t: int) -> int:                # every minute
        return (t // (60 * S) + 1) * 60 * S

    last, now = 0, 10 * 60 * S + 30 * S           # the 10:00 time is 30 s old
    assert k8s.most_recent(next_after, last, now, 29) is None
    assert k8s.most_recent(next_after, last, now, 31) == 10 * 60 * S
    assert k8s.most_recent(next_after, last, now, None) == 10 * 60 * S


# -- Temporal Schedules (its scheduler's test vectors) --------------------------------------------

def test_the_temporal_entries_name_its_policies_the_engines_and_the_commit():
    for term in ("BufferOne", "BufferAll", "CancelOther", "TerminateOther"):
        text = entry(term)
        commit = one(r"Temporal's overlap policy \(commit ([0-9a-f]{12})\)", text)[0]
        assert commit in temporal.__doc__, term
        if "No engine lane" in text:
            assert term not in temporal.OVERLAP, term
            with pytest.raises(InputError):
                temporal.overlap(term)
        else:
            ours = one(r"[Tt]he engine's `([\w-]+)`", text)[0]
            assert temporal.OVERLAP[term] == ours, term
    assert "`AllowAll`" in entry("allow") and temporal.OVERLAP["AllowAll"] == engine_name(entry("allow"))


def test_buffer_one_drops_a_further_late_run_and_buffer_all_drops_none():
    """The two entries' rules, as the scheduler's vectors have them: three actions 10 s apart,
    runs of 25 s."""
    actions = [0, 10 * S, 20 * S]
    assert "a further late run is dropped" in entry("BufferOne")
    assert temporal.starts("BufferOne", actions, 25 * S) == [(0, 0), (10 * S, 25 * S)]
    assert "none is dropped" in entry("BufferAll")
    assert temporal.starts("BufferAll", actions, 25 * S) == [(0, 0), (10 * S, 25 * S), (20 * S, 50 * S)]


# -- BullMQ (the recorded releases) ---------------------------------------------------------------

def test_each_snap_entry_names_the_releases_that_compute_it():
    """snap, snap-v5 and epoch name bullmq releases; the releases' own recorded answers say
    which formula each computes (tests/test_oracle_bullmq_releases.py derives FORMS)."""
    from test_oracle_bullmq_releases import FORMS

    def releases(form: str) -> list[str]:
        return sorted((r for (_, r), forms in FORMS.items() if forms == {form}),
                      key=lambda v: tuple(map(int, v.split("."))))

    assert one(r"bullmq (\d+\.\d+\.\d+)", entry("snap"))[0] in releases("offset")
    first, last = one(r"bullmq (\d+\.\d+\.\d+) to (\d+\.\d+\.\d+)", entry("snap-v5"))
    assert [first, last] == [releases("offset-v5")[0], releases("offset-v5")[-1]]
    assert one(r"bullmq (\d+\.\d+\.\d+)'s `getNextMillis`", entry("epoch"))[0] in releases("epoch")


def test_snap_v5s_formula_and_when_it_lands_a_gap_later():
    """The entry's formula, evaluated as written, is the recorded releases' `offset-v5` form, and
    it lands one gap after 6.7.0's exactly when the offset is larger than now mod the gap."""
    text = entry("snap-v5")
    formula = one(r"`(floor\([^`]+)`", text)[0]
    assert "one gap later than 6.7.0's snap when the offset is larger than now mod the gap" in text
    every = 15 * 60 * S
    e = Every(every)
    for offset in (0, 60 * S, 7 * 60 * S, 14 * 60 * S):
        for now in range(10 * every, 14 * every, 97 * S):
            prev = 5 * every + offset                 # a row well behind now
            written = eval(formula, {"floor": math.floor}, {"now": now, "every": every, "offset": offset})
            assert written == e.after(prev, now, offset, "offset-v5"), (offset, now)
            gap = e.after(prev, now, offset, "offset-v5") - e.after(prev, now, offset, "offset")
            assert gap == (every if offset > now % every else 0), (offset, now)


def test_the_slot_derived_job_id_is_bullmqs():
    """The entry's `repeat:<name>:<slot ms>` is the id bullmq 6.7.0 gave every job it made
    (recorded answers): the scheduler's id (its name) and the job's own slot."""
    pattern = one(r"`(repeat:<name>:<slot ms>)`", entry("slot-derived job id"))[0]
    doc = json.loads((RECORDED / "bullmq.json").read_text())
    seen = 0
    for scenario, answer in zip(doc["questions"]["scenarios"], doc["answers"]["answers"]):
        sid = scenario.get("id", "s")
        for state in answer:
            for job, slot in state.get("delayed") or []:
                want = pattern.replace("<name>", job.split(":")[1]).replace("<slot ms>", str(int(slot)))
                assert job == want, (sid, job, slot)
                seen += 1
    assert seen > 100


# -- daylight saving (croniter and cronsim live, cron-parser recorded) ----------------------------

def _wall(text: str, what: str) -> tuple[datetime, datetime]:
    """An entry's "(HH:MM-HH:MM on D Month YYYY in New York)" as the hour's first and last minute."""
    start, end, day = one(r"\((\d\d:\d\d)-(\d\d:\d\d) on (\d{1,2} \w+ \d{4}) in New York\)", text)
    date = datetime.strptime(day, "%d %B %Y")
    at = [date.replace(hour=int(t[:2]), minute=int(t[3:])) for t in (start, end)]
    return at[0], at[1]


def _utc(wall: datetime, fold: int) -> datetime:
    return wall.replace(tzinfo=NEW_YORK, fold=fold).astimezone(timezone.utc)


def test_the_repeated_hour_happens_twice_and_the_libraries_differ_in_it():
    """"(01:00-01:59 on 1 November 2026 in New York)": both passes of each minute are real
    instants an hour apart; `30 1 * * *` runs twice there in croniter, once in cronsim (the
    fixed-time job, first pass) and once in cron-parser (recorded)."""
    from cronsim import CronSim
    from croniter import croniter

    first, last = _wall(entry("repeated hour"), "repeated")
    for wall in (first, last):
        assert _utc(wall, 1) - _utc(wall, 0) == timedelta(hours=1)
    assert _utc(first - timedelta(minutes=1), 1) - _utc(first - timedelta(minutes=1), 0) == timedelta(0)
    expr = one(r"such as `([^`]+)`", entry("fixed-time job"))[0]
    assert "once in a [repeated hour]" in entry("fixed-time job") and "in the first pass" in entry("fixed-time job")
    start = (first - timedelta(hours=3)).replace(tzinfo=NEW_YORK)
    window = (_utc(first, 0), _utc(last, 1))

    def inside(times) -> list[datetime]:
        out = []
        for t in times:
            t = t.astimezone(timezone.utc)
            if t > window[1]:
                return out
            if t >= window[0]:
                out.append(t)
        return out

    it = croniter(expr, start)
    cron_runs = inside(it.get_next(datetime) for _ in range(10))
    sim_runs = inside(iter(CronSim(expr, start)))
    assert len(cron_runs) == 2 and len(sim_runs) == 1     # "once or twice depends on the library"
    assert sim_runs[0] == min(cron_runs)                   # the fixed-time job: the first pass


def test_the_skipped_hour_never_happens_and_a_slot_in_it_still_runs_after_the_change():
    """"(02:00-02:59 on 8 March 2026 in New York)": no instant shows those wall times; `30 2 * * *`
    still runs that day, at or after 03:00, in croniter, cronsim and cron-parser (recorded)."""
    from cronsim import CronSim
    from croniter import croniter

    first, last = _wall(entry("skipped hour"), "skipped")
    for wall in (first, last):
        back = _utc(wall, 0).astimezone(NEW_YORK).replace(tzinfo=None)
        assert back != wall                                     # the wall time does not exist
    assert "still runs, at or just after the change" in entry("skipped hour")
    expr = f"{first.minute + 30} {first.hour} * * *"
    change = _utc(last + timedelta(minutes=1), 1)               # 03:00 local, the landing
    start = (first - timedelta(hours=6)).replace(tzinfo=NEW_YORK)
    runs = {"croniter": croniter(expr, start).get_next(datetime), "cronsim": next(iter(CronSim(expr, start)))}
    doc = json.loads((RECORDED / "cron_parser.json").read_text())
    for q, a in zip(doc["questions"], doc["answers"]):
        if q["expr"] == expr and q["tz"] == "America/New_York" and q["from"] <= start.timestamp() * S < q["until"]:
            after = [r for r in a["runs"] if r > start.timestamp() * S]
            runs["cron-parser"] = datetime.fromtimestamp(after[0] / 1000, timezone.utc)
    assert set(runs) == {"croniter", "cronsim", "cron-parser"}
    for lib, t in runs.items():
        t = t.astimezone(timezone.utc)
        assert change <= t < change + timedelta(hours=1), (lib, t)
        assert t.astimezone(NEW_YORK).date() == first.date(), lib
