"""Where the faust runner's lag goes: stage samples, the CPU split and meter, the records
the broker-hop baseline sends, and the worker's log level (no server needed)."""

from __future__ import annotations

import json
import logging
import os

import pytest

from benchmarks.broker import relayed
from benchmarks.cpus import CpuMeter, children_named, split_cpus
from services.platform.envelope import NewEvent
from services.projections.stages import Stages, quantiles


def test_given_samples_then_quantiles_are_the_median_and_the_99th():
    # given 1..100 ms
    samples = [i / 1000 for i in range(1, 101)]
    # then p50 and p99 are the 51st and the 100th sample (index rule of the status record)
    assert quantiles(samples) == (0.051, 0.1)
    assert quantiles([]) == (0.0, 0.0)


def test_given_stage_times_then_the_status_has_each_stage_and_a_skewed_time_counts_as_zero():
    stages = Stages(keep=3)
    # given four relay times (one negative: clocks of two processes) and one broker time
    for t in (0.004, -0.001, 0.002, 0.010):
        stages.add("relay", t)
    stages.add("broker", 0.020)
    # then the relay keeps its last three, the negative one as 0, and both are reported
    status = stages.status()
    assert status["relay"] == {"p50_s": 0.002, "p99_s": 0.01, "n": 3}
    assert status["broker"] == {"p50_s": 0.02, "p99_s": 0.02, "n": 1}


def test_given_an_event_received_then_its_relay_and_broker_hops_are_recorded_when_stamped():
    stages = Stages()
    # given an event appended at 10.000 s, produced at 10.004 s and received at 10.020 s
    stages.record_hops(10.0, 10.004, 10.020)
    # and one whose record has no timestamp
    stages.record_hops(10.0, None, 10.030)
    # then only the stamped one is timed: 4 ms relay, 16 ms broker
    status = stages.status()
    assert status["relay"]["n"] == status["broker"]["n"] == 1
    assert status["relay"]["p50_s"] == pytest.approx(0.004)
    assert status["broker"]["p50_s"] == pytest.approx(0.016)


def test_given_a_machine_with_cores_when_split_then_the_worker_core_is_kept_free_and_restored():
    before = os.sched_getaffinity(0)
    with split_cpus() as split:
        if len(before) < 2:
            # a one-core machine cannot give the worker a core of its own
            assert split is None
            return
        assert split is not None
        # when split: the worker gets the last core, this thread the others
        assert split.worker == {max(before)} and split.rest == set(before) - {max(before)}
        assert os.sched_getaffinity(0) == split.rest
    # then every affinity is as it was
    assert os.sched_getaffinity(0) == before


def test_given_this_process_when_metered_then_its_cpu_and_the_machine_share_are_measured():
    meter = CpuMeter({"self": os.getpid(), "gone": 2**22 + 7})
    meter.start()
    sum(i * i for i in range(300_000))  # some CPU
    figures = meter.stop()
    # then the machine's busy share is a share, this process used some CPU, and a
    # process that does not exist has no figure
    assert 0 <= figures["machine_cpu_busy"] <= 1
    assert figures["self_cpu_cores"] > 0
    assert "gone_cpu_cores" not in figures


def test_given_no_such_child_then_children_named_finds_none():
    assert children_named("no-such-process-name") == []


def test_given_two_games_when_relayed_then_appends_alternate_and_records_are_keyed_by_game():
    a = [[NewEvent("A1", {"n": 1})], [NewEvent("A2", {"n": 2}), NewEvent("A3", {})]]
    b = [[NewEvent("B1", {"n": 1})]]
    # when the games' appends are made into the relay's records
    out = relayed([("ga", a), ("gb", b)])
    # then the games' appends are taken in turn, one list of records per append
    assert [len(records) for records in out] == [1, 1, 2]
    assert [k for records in out for k, _ in records] == [b"ga", b"gb", b"ga", b"ga"]
    # and each value is an envelope as the relay sends it, with the event's fields
    first = json.loads(out[0][0][1])
    assert first["stream"] == "game-ga" and first["type"] == "A1" and first["data"] == {"n": 1}
    assert {"event_id", "occurred_at", "prev_hash", "hash", "visibility"} <= set(first)


def test_given_the_worker_when_its_root_logger_is_set_up_then_debug_stays_off():
    from services.projections.faust_app import FaustConfig, QuietWorker, make_app

    # given a worker asked for WARNING (faust's own Worker sets the root to DEBUG to turn
    # its terminal spinner)
    app = make_app(FaustConfig("127.0.0.1:1", "memory://", "memory://", app_id="t-quiet"))
    worker = QuietWorker(app, loglevel="WARNING", quiet=True)
    root = logging.getLogger("t-quiet-root")
    root.addHandler(logging.NullHandler())
    root.setLevel(logging.WARNING)
    # when faust sets up the root logger
    worker.on_setup_root_logger(root, logging.WARNING)
    # then no spinner was added and the level is the one asked for
    assert worker.spinner is None
    assert root.level == logging.WARNING
    assert not root.isEnabledFor(logging.DEBUG)
