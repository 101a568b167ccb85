"""The same scripts on a real server and on Redis Cluster give the fakeredis traces, byte for
byte; on a cluster every key of a run shares one slot (the `{queue}` hash tag), so each
script touches one node, and clean-up finds the keys wherever they are.

The redis and cluster cases skip unless EMQSIM_REDIS_URL / EMQSIM_CLUSTER_URL are set
(.ci/run sets both)."""

from __future__ import annotations

import pytest

from backends import make_store, url_of
from emqsim import Every, Pump, Schedule, Worker, cli
from emqsim.engine.faults import Faults
from emqsim.engine.sim import PumpDesign
from emqsim.engine.store import ENV, ServerError, Store, connect
from servers import needs_redis_server, redis_server

T9 = 1796029200000  # 2026-11-30T09:00:00Z

SCENARIOS = {
    "finish": ["--every", "15m", "--run", "4m", "--rule", "finish", "--fires", "40"],
    "crash-two-step": ["--every", "15m", "--fires", "30", "--crash-after-enqueue", "3", "--format", "json"],
    "crash-atomic": ["--every", "15m", "--fires", "30", "--crash-after-enqueue", "3", "--pump", "atomic",
                     "--format", "json"],
    "cron-berlin-buffer": ["--cron", "*/5 * * * *", "--tz", "Europe/Berlin", "--run", "12m",
                           "--overlap", "buffer-one", "--fires", "40"],
    "outage-all": ["--every", "1m", "--outage", "2026-11-30T09:10:00Z/2026-11-30T10:00:00Z", "--missed", "all",
                   "--concurrency", "3", "--run", "5m", "--fires", "120", "--format", "json"],
}


def cli_trace(monkeypatch, capsys, url: str | None, args: list[str]) -> str:
    if url is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, url)
    assert cli.main(["trace", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("backend", ["redis", "cluster"])
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_cli_traces_are_byte_identical_to_fakeredis(backend, scenario, monkeypatch, capsys):
    url = url_of(backend)
    args = SCENARIOS[scenario]
    assert cli_trace(monkeypatch, capsys, url, args) == cli_trace(monkeypatch, capsys, None, args)


def test_many_rows_atomic_pump_same_on_every_backend(store):
    """100 rows due on each beat: `fire` takes 2 keys per row plus 3, all in the queue's slot."""
    def run(s):
        scheds = [Schedule(f"s{i:03d}", Every(1000 + 10 * i)) for i in range(100)]
        with PumpDesign(scheds, start=T9, pump=Pump(mode="atomic", tick=1000, batch=100), store=s,
                        worker=Worker(run="3s", concurrency=4), faults=Faults(outage=(T9 + 5000, T9 + 9000)),
                        retain=300) as sim:
            return sim.run(fires=600).records()

    reference = run(make_store("fakeredis"))
    assert run(store) == reference


def _run_keys(store: Store) -> list[str]:
    """The keys a short run leaves in `store`, with the queue name written as {q}."""
    with PumpDesign(Schedule("reports", Every("15m")), start=T9, store=store, worker=Worker(run="20m")) as sim:
        sim.run(fires=5)
    return sorted(k.decode().replace(store.keys.queue, "q") for k in store.queue_keys())


def test_cluster_keys_share_one_slot_and_are_removed():
    url = url_of("cluster")
    store = Store(url=url)
    assert store.backend == "cluster"
    client = store.client
    keys = _run_keys(store)
    assert keys == _run_keys(make_store("fakeredis"))  # the same keys as fakeredis (SCAN on every node)
    assert "emq:{q}:repeat" in keys and len(keys) > 5
    slots = {client.cluster_keyslot(k.replace("{q}", "{" + store.keys.queue + "}")) for k in keys}
    assert slots == {client.cluster_keyslot(store.keys.repeat)}
    store.close()
    reader = Store(url=url)  # a fresh client: nothing of the run is left on any node
    try:
        assert list(reader.client.scan_iter(match=store.keys.pattern, count=1000)) == []
    finally:
        reader.close()


def test_a_cluster_node_asked_as_one_server_says_so():
    url = url_of("cluster")
    node = url.replace("redis+cluster://", "redis://") + "/0"
    client = connect(node)
    try:
        with pytest.raises(ServerError) as err:
            for tag in range(50):  # some of these slots live on another of the three masters
                client.get(f"emq:{{probe-{tag}}}:x")
    finally:
        client.close()
    assert err.value.status == 11
    assert str(err.value).startswith(f"{node}: the server refused a command (MOVED ")
    assert str(err.value).endswith("; this is a cluster node, so the URL starts with redis+cluster://)")


@needs_redis_server
def test_a_cluster_url_to_a_single_server_says_so(tmp_path):
    with redis_server(tmp_path) as server:
        url = f"redis+cluster://127.0.0.1:{server.port}"
        with pytest.raises(ServerError) as err:
            Store(url=url)
        assert server.keys() == []
    assert err.value.status == 11
    # the client's own words sit between the project's: held by their ends, not their wording
    assert str(err.value).startswith(f"{url}: the server refused a command (")
    assert str(err.value).endswith("; for a single server the URL starts with redis://)")
