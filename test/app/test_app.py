#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rxrefill end to end on net_pcap (TAP output for meson).

Generated captures are replayed a finite number of times under every
strategy; per-stream packets and bytes in the report must equal the
generator's manifest times the loops, and every packet must be received or
dropped with a cause. Bad input must fail with a message naming it, never a
crash or a hang. Usage: test_app.py RXREFILL RXREFILL_GEN [CASE...]
"""

import json
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

import tap
from fixtures import generate

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN = sys.argv[1], sys.argv[2]
ONLY = set(sys.argv[3:])
TMP = tempfile.mkdtemp(prefix="rxr_app_")
EAL = ["-l", "0-1", "--no-pci", "--file-prefix",
       mine("rxr_app_%d" % os.getpid()),
       "--log-level", "lib.eal:error"]
results = []


def run(args, timeout=120, eal=None, env=None):
    cmd = [RXREFILL] + (EAL if eal is None else eal) + ["--"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=None if env is None else dict(os.environ, **env))
    return p.returncode, p.stdout, p.stderr


def gen(name, *args):
    return generate(GEN, os.path.join(TMP, name), args)


def key(s):
    return (s["src"], s["dst"], s["sport"], s["dport"], s["proto"])


def check_exact(name, gen_args, loops=2, extra=()):
    manifest, files = gen(name, *gen_args)
    report = os.path.join(TMP, name + ".report.json")
    rc, out, err = run(["--replay", ",".join(files), "--loops", str(loops),
                        "--reps", "1", "--report", report, "--no-table"]
                       + list(extra))
    assert rc == 0, "exit %d\n%s\n%s" % (rc, out[-2000:], err[-2000:])
    with open(report) as f:
        rep = json.load(f)
    assert rep["schema"] == "rxrefill-report/1"
    assert rep["partial"] is False, "report marked partial"
    want = {key(s): s for s in manifest["streams"]}
    total_p = manifest["total"]["packets"] * loops
    total_b = manifest["total"]["bytes"] * loops
    assert len(rep["runs"]) >= 1
    for r in rep["runs"]:
        tag = "%s bulk=%s" % (r["strategy"], r["bulk"])
        drops = sum(r["drops"].values())
        assert r["rx_packets"] + drops == total_p, \
            "%s: %d received + %d dropped != %d replayed" % (
                tag, r["rx_packets"], drops, total_p)
        assert drops == 0, "%s: drops %s" % (tag, r["drops"])
        # Counter groups follow the strategy's capabilities.
        assert ("deferred" in r) == (r["strategy"] in ("bh", "recycle")), \
            "%s: deferred{} %s" % (tag, "deferred" in r)
        # recycle{} was recycle's before its counters became its own.
        assert "recycle" not in r, "%s: recycle{}" % tag
        assert ("strategy_counters" in r) == (
            r["strategy"] in ("irqsave", "recycle", "rseq")), \
            "%s: strategy_counters{} %s" % (tag, "strategy_counters" in r)
        assert r["rx_bytes"] == total_b, "%s: bytes %d != %d" % (
            tag, r["rx_bytes"], total_b)
        got = {key(s): s for s in r["streams"]}
        assert set(got) == set(want), "%s: streams differ: %s vs %s" % (
            tag, sorted(got)[:3], sorted(want)[:3])
        for k, s in want.items():
            assert got[k]["packets"] == s["packets"] * loops, \
                "%s: stream %s: %d packets, want %d" % (
                    tag, k, got[k]["packets"], s["packets"] * loops)
            assert got[k]["bytes"] == s["bytes"] * loops, \
                "%s: stream %s: %d bytes, want %d" % (
                    tag, k, got[k]["bytes"], s["bytes"] * loops)
    return rep


def case_exact_64b():
    check_exact("tcp64", ["-q", "2", "-s", "8", "-n", "500"])


def case_exact_imix_udp():
    check_exact("imix", ["-q", "2", "-s", "8", "-n", "300", "-l", "imix",
                         "-p", "udp"])


def case_exact_ipv6():
    check_exact("v6", ["-q", "2", "-s", "6", "-n", "200", "-6", "-l", "1500"])


def case_exact_vlan():
    check_exact("vlan", ["-q", "2", "-s", "4", "-n", "200", "--vlan",
                         "100,200", "-l", "256"])


def case_exact_more_streams_than_queues():
    check_exact("many", ["-q", "3", "-s", "40", "-n", "50", "-l", "128"])


def case_exact_consumer_threads():
    # Consumers on another CPU: frees are remote (task context).
    check_exact("remote", ["-q", "2", "-s", "8", "-n", "200", "-l", "512"],
                extra=["--consumer", "other-cpu", "--consumer-depth", "4096"])


def case_exact_oversize_chained():
    # 9000-byte frames in 2 KiB frames: received as mbuf chains, never lost.
    check_exact("jumbo", ["-q", "1", "-s", "2", "-n", "50", "-l", "9000"],
                extra=["--strategy", "bh,zone"])


def case_exact_replay_beside_another_port():
    # A --vdev port probed before the replay port: finite replay must
    # still wait for every packet of the files, on the replay port's
    # queues, whatever its port number.
    manifest, files = gen("beside", "-q", "2", "-s", "8", "-n", "500")
    report = os.path.join(TMP, "beside.report.json")
    rc, out, err = run(["--replay", ",".join(files), "--loops", "2",
                        "--reps", "1", "--strategy", "bh", "--bulk", "on",
                        "--report", report, "--no-table"],
                       eal=EAL + ["--vdev", "net_null0"])
    assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
    with open(report) as f:
        rep = json.load(f)
    pcap = [p["port"] for p in rep["env"]["ports"]
            if p["driver"] == "net_pcap"]
    assert len(rep["env"]["ports"]) == 2 and pcap, rep["env"]["ports"]
    want = manifest["total"]["packets"] * 2
    for r in rep["runs"]:
        got = sum(q["packets"] for q in r["queues"] if q["port"] in pcap)
        drops = sum(r["drops"].values())
        assert got + drops == want and drops == 0, \
            "replay port: %d received + %d dropped of %d replayed" % (
                got, drops, want)


def case_timed_queues_add_up():
    # In a timed run the queues' counts were read apart from rx_packets,
    # hundreds of packets later: the report's own counts disagreed.
    manifest, files = gen("qsum", "-q", "2", "-s", "8", "-n", "500")
    for eal, extra in ((EAL, ["--replay", ",".join(files)]),
                       (EAL + ["--vdev", "net_null0"], [])):
        report = os.path.join(TMP, "qsum.report.json")
        rc, out, err = run(extra + ["--duration", "0.3", "--warmup", "0.1",
                                    "--reps", "2", "--strategy", "bh",
                                    "--bulk", "on", "--report", report,
                                    "--no-table"], eal=eal)
        assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
        with open(report) as f:
            rep = json.load(f)
        for r in rep["runs"]:
            for key, field in (("rx_packets", "packets"),
                               ("rx_bytes", "bytes")):
                got = sum(q[field] for q in r["queues"])
                assert got == r[key] and got > 0, \
                    "queues' %s %d against %s %d" % (field, got, key, r[key])


def case_loops_shorter_than_sample_period():
    # Finite replay launches the poll loop once a loop; a loop of fewer
    # iterations than --latency-every restarted the period each time and
    # no iteration of the run was ever timed.
    manifest, files = gen("shortloop", "-q", "2", "-s", "8", "-n", "500")
    report = os.path.join(TMP, "shortloop.report.json")
    rc, out, err = run(["--replay", ",".join(files), "--loops", "12",
                        "--reps", "2", "--strategy", "bh", "--bulk", "on",
                        "--report", report, "--no-table"])
    assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
    with open(report) as f:
        rep = json.load(f)
    period = rep["runs"][0]["refill_latency_sample_every"]
    for r in rep["runs"]:
        # Fewer bursts a loop than a period: the test means what it says.
        assert manifest["total"]["packets"] / 64 < period, period
        assert r["refill_cycles_per_frame"] is not None, \
            "rep %d: no iteration timed in %d packets" % (
                r["rep"], r["rx_packets"])
        assert r["allocator_cycles_per_packet"] is not None


def case_vdev_pcap_endless_sized():
    # A user's own net_pcap port with infinite_rx keeps every packet of
    # its files in the pool: sized from its devargs as --replay is, and a
    # --frames too small for them refused by name before any queue. It
    # has a queue per rx_pcap file, each polled by default.
    manifest, files = gen("vdevpcap", "-q", "2", "-s", "8", "-n", "1000")
    vdev = "net_pcap0," + ",".join("rx_pcap=" + f for f in files) + \
        ",infinite_rx=1"
    report = os.path.join(TMP, "vdevpcap.report.json")
    args = ["--duration", "0.2", "--warmup", "0.05", "--reps", "1",
            "--strategy", "bh", "--bulk", "on", "--no-table"]
    rc, out, err = run(args + ["--report", report],
                       eal=EAL + ["--vdev", vdev])
    assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
    with open(report) as f:
        rep = json.load(f)
    assert rep["runs"][0]["rx_packets"] > 0
    # One poll lcore, two files: both polled, one queue each (one was
    # left unread).
    qs = rep["runs"][0]["queues"]
    assert len(qs) == 2 and all(q["packets"] > 0 for q in qs), qs
    total = manifest["total"]["packets"]
    rc, out, err = run(args + ["--frames", str(total // 2)],
                       eal=EAL + ["--vdev", vdev])
    assert rc == 1 and "--frames %d: endless replay keeps the %d packets " \
        "of net_pcap0's files" % (total // 2, total) in err \
        and "at least %d" % (total + 32) in err, \
        "exit %d: %s" % (rc, err[-2000:])
    # Read once (no infinite_rx), it holds nothing: a small pool is fine
    # (no warm-up: a capture read once is measured whole).
    rc, out, err = run(args + ["--frames", "64", "--burst", "128",
                               "--warmup", "0"],
                       eal=EAL + ["--vdev", vdev[:vdev.rindex(",")]])
    assert rc == 0 and "endless replay keeps" not in err, \
        "exit %d: %s" % (rc, err[-2000:])


def case_stalled_consumer():
    # Three streams go round robin to two consumers: the stalled one (0)
    # gets two, 3000 packets for a ring of 2048; the healthy one gets one,
    # 1500 packets, which its ring holds even when it cannot run at all
    # (a busy machine), so whatever it loses is the stall's doing.
    manifest, files = gen("stall", "-q", "1", "-s", "3", "-n", "1500",
                          "-l", "128")
    report = os.path.join(TMP, "stall.report.json")
    rc, out, err = run(["--replay", ",".join(files), "--loops", "1",
                        "--reps", "1", "--strategy", "bh", "--bulk", "on",
                        "--consumer", "other-cpu", "--consumers", "2",
                        "--consumer-depth", "2048", "--stall-consumer", "0",
                        "--report", report, "--no-table"])
    assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
    with open(report) as f:
        r = json.load(f)["runs"][0]
    total = manifest["total"]["packets"]
    full = r["drops"].get("consumer_full", 0)
    assert full >= 3000 - 2048, "the stalled consumer dropped %d: %s" % (
        full, r["drops"])
    assert r["rx_packets"] == total, "received %d of %d" % (
        r["rx_packets"], total)
    delivered = sum(s["packets"] for s in r["streams"])
    assert delivered + full == total, "%d delivered + %d dropped != %d" % (
        delivered, full, total)
    want = {key(s): s["packets"] for s in manifest["streams"]}
    whole = [s for s in r["streams"] if s["packets"] == want[key(s)]]
    assert len(whole) >= 1, "the healthy consumer's stream was affected: " \
        "%s" % ([(s["sport"], s["packets"]) for s in r["streams"]])


def case_slowest_refill_delay_stalls_and_ends():
    # The largest --test-refill-delay (2^30 cycles a refill): a burst of
    # net_pcap's one-frame refills outlasts the stall limit. The run must
    # say it stalled and end: freeing a pool takes every frame back one
    # call at a time, and each took the delay too (half an hour).
    # The stalled run is cut short and out of every figure; the other
    # configuration's whole run keeps a report to look at.
    report = os.path.join(TMP, "slowest.report.json")
    manifest, files = gen("slowest", "-q", "1", "-s", "4", "-n", "100")
    try:
        rc, out, err = run(["--replay", files[0], "--loops", "3", "--reps",
                            "1", "--strategy", "zone,bh", "--bulk", "on",
                            "--test-refill-delay", "1073741824@bh",
                            "--report", report, "--no-table"], timeout=90)
    except subprocess.TimeoutExpired:
        raise AssertionError("still running after 90 s")
    assert rc == 1 and "replay stalled" in err, \
        "exit %d: %s" % (rc, err[-2000:])
    # Stalled once, it stops: the loops after were stalls of 3 s each.
    assert err.count("replay stalled") == 1, err[-2000:]
    with open(report) as f:
        doc = json.load(f)
    r = [x for x in doc["runs"] if x["strategy"] == "bh"][0]
    assert r["complete"] is False and r["cut_short"] == "replay stalled", r
    assert [s["strategy"] for s in doc["summary"]] == ["zone"], \
        doc["summary"]
    # The burst in progress at the stall was received after it, and was
    # counted missing as well: received + unaccounted above what was sent.
    lost = r["drops"].get("unaccounted", 0)
    total = manifest["total"]["packets"]
    assert r["rx_packets"] + lost == total, \
        "%d received + %d unaccounted != %d replayed" % (
            r["rx_packets"], lost, total)
    assert "with %d packets unaccounted" % lost in err, err[-800:]


def case_sigint_during_stall():
    # A SIGINT while a replay stalls exits 130 like any other (it exited
    # 1, the stall's status).
    _, files = gen("stallsig", "-q", "1", "-s", "4", "-n", "100")
    p = subprocess.Popen([RXREFILL] + EAL + [
        "--", "--replay", files[0], "--loops", "8", "--reps", "1",
        "--strategy", "bh", "--bulk", "on", "--test-refill-delay",
        "1073741824", "--no-table"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = ""
    while "replaying" not in line:
        line = p.stdout.readline()
        assert line, "ended before replaying"
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=90)
    assert p.returncode == 130, "exit %d: %s" % (p.returncode, err[-800:])


def case_consumer_stop_leaves_nothing():
    # A consumer that waits after each empty look at its queue, while the
    # poll lcore fills it: a run's end must still find the queue empty
    # and every frame home (a stop read after the queue left the last
    # bursts to the next run's consumer, which freed them into a freed
    # pool).
    manifest, files = gen("lag", "-q", "1", "-s", "8", "-n", "400", "-l", "64")
    report = os.path.join(TMP, "lag.report.json")
    rc, out, err = run(["--replay", ",".join(files), "--strategy", "bh,rseq",
                        "--bulk", "on", "--reps", "3", "--duration", "0.3",
                        "--warmup", "0.1", "--consumer", "other-cpu",
                        "--test-consumer-lag", "2000", "--report", report,
                        "--no-table"], timeout=300)
    assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
    for needle in ("not home", "did not come back", "in its queue",
                   "lost"):
        assert needle not in err, "%r in: %s" % (needle, err[-2000:])
    with open(report) as f:
        runs = json.load(f)["runs"]
    assert len(runs) >= 4 and all(r["complete"] for r in runs), \
        [(r["strategy"], r["complete"]) for r in runs]


def case_busy_time_saturated():
    # net_null fills every burst: the poll loop reads the TSC once in
    # several iterations then, and must still count every iteration's
    # time as busy. Each poll lcore's busy share (busy cycles over its
    # cycles, both from the same TSC, so that another load on the CPU
    # moves neither) is then about 1; a zeroing policy makes the loop read
    # the TSC every iteration, the reference.
    def busy_shares(extra):
        report = os.path.join(TMP, "busy%d.report.json" % len(extra))
        rc, out, err = run(["--consumer", "none", "--strategy", "bh",
                            "--reps", "2", "--duration", "0.5",
                            "--warmup", "0.2", "--report", report,
                            "--no-table"] + extra,
                           eal=EAL + ["--vdev", "net_null0"], timeout=120)
        assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
        with open(report) as f:
            runs = json.load(f)["runs"]
        return [lc["busy_share"] for r in runs for lc in r["lcores"]]

    every = busy_shares(["--zero-policy", "free"])
    print("# every %s" % every)
    sparse = busy_shares([])
    print("# sparse %s" % sparse)
    assert every and sparse, "no poll lcore in the reports"
    ref = min(every)
    assert ref >= 0.9, "busy share %s with a read an iteration on a " \
        "saturated port" % every
    for v in sparse:
        assert 0.9 * ref <= v <= 1.0 + 1e-9, \
            "busy share %.3f with sparse reads, %s with a read an " \
            "iteration" % (v, ["%.3f" % x for x in every])


def case_consumer_cpu_placement():
    # Two poll lcores on two CPUs with the main lcore beside the first
    # (the default job's layout): --consumer other-cpu put the first poll
    # lcore's consumer on its own CPU, the main lcore's, which the
    # consumer thread's inherited affinity held it to. Each run's report
    # now says where each poll lcore's consumers ran.
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise tap.Skip("one CPU: no other CPU for a consumer")
    a, b = cpus[0], cpus[1]
    _, files = gen("place", "-q", "2", "-s", "4", "-n", "200", "-l", "64")
    eal = ["--lcores", "(0,1)@%d,2@%d" % (a, b)] + EAL[2:]
    for mode in ("other-cpu", "same-cpu", "inline"):
        report = os.path.join(TMP, "place-%s.report.json" % mode)
        rc, out, err = run(["--replay", ",".join(files), "--loops", "1",
                            "--reps", "1", "--strategy", "bh", "--consumer",
                            mode, "--report", report, "--no-table"], eal=eal)
        assert rc == 0, "%s: exit %d: %s" % (mode, rc, err[-2000:])
        with open(report) as f:
            run0 = json.load(f)["runs"][0]
        got = [(lc["cpu"], lc["consumer_cpu"]) for lc in run0["lcores"]]
        want = {"other-cpu": [(a, b), (b, a)], "same-cpu": [(a, a), (b, b)],
                "inline": [(a, None), (b, None)]}[mode]
        assert got == want, "%s: (poll CPU, consumer CPU) %s, not %s" % (
            mode, got, want)
        # Noise accounting knows it: a poll lcore sharing its CPU with a
        # consumer by design does not count its switches as noise.
        own = [lc["own_cpu"] for lc in run0["noise"]["lcores"]]
        want = [False, mode == "inline"]
        assert own == want, "%s: own_cpu %s, not %s" % (mode, own, want)
    # With CPUs no poll lcore runs on, the consumers spread over them, the
    # main lcore's first (on 4 CPUs or more).
    if len(cpus) >= 4:
        report = os.path.join(TMP, "place-spread.report.json")
        rc, out, err = run(["--replay", ",".join(files), "--loops", "1",
                            "--reps", "1", "--strategy", "bh", "--consumer",
                            "other-cpu", "--report", report, "--no-table"],
                           eal=["--lcores", "0@%d,1@%d,2@%d" % tuple(
                               cpus[:3])] + EAL[2:])
        assert rc == 0, "exit %d: %s" % (rc, err[-2000:])
        with open(report) as f:
            got = [lc["consumer_cpu"]
                   for lc in json.load(f)["runs"][0]["lcores"]]
        assert got == [cpus[0], cpus[3]], "consumer CPUs %s, not %s" % (
            got, [cpus[0], cpus[3]])


def case_sigint_partial_report():
    manifest, files = gen("sig", "-q", "2", "-s", "8", "-n", "200")
    report = os.path.join(TMP, "sig.report.json")
    cmd = [RXREFILL] + EAL + ["--", "--replay", ",".join(files),
                              "--duration", "30", "--reps", "1",
                              "--strategy", "bh,zone", "--report", report]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(4)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, "exit %d: %s" % (p.returncode, err[-1500:])
    # Whatever was running is cut short; a report exists only once a
    # repetition ran to its end, and is then marked partial.
    if os.path.exists(report):
        with open(report) as f:
            rep = json.load(f)
        assert rep["partial"] is True, "interrupted report not marked partial"
    assert "stopped by SIGINT" in err, err[-1500:]
    assert "frames lost" not in err, err


def case_exhaustion_recovers():
    # The zone runs out mid-run (a thread takes every free frame for 0.1 s):
    # refills fail and count as rx_nombuf, then reception recovers, and
    # every replayed packet is received or dropped with that cause.
    manifest, files = gen("exh", "-q", "1", "-s", "4", "-n", "25000")
    report = os.path.join(TMP, "exh.report.json")
    rc, out, err = run(["--replay", ",".join(files), "--loops", "20",
                        "--strategy", "zone", "--bulk", "on", "--reps", "1",
                        "--exhaust", "0.05:0.1", "--frames", "4096",
                        "--report", report, "--no-table"])
    assert rc == 0, "exit %d: %s" % (rc, err[-1500:])
    r = json.load(open(report))["runs"][0]
    total = manifest["total"]["packets"] * 20
    assert r["rx_packets"] + sum(r["drops"].values()) == total, r["drops"]
    assert r["drops"]["rx_nombuf"] > 0, "the zone never ran out: %s" % r["drops"]
    after = [l for l in out.splitlines() if "exhaust:" in l]
    assert after, out[-1000:]
    got = int(after[0].split(";")[1].split()[0])
    assert got > 0, "nothing received after the frames came back: " + after[0]


def case_signals_every_phase():
    # SIGINT/SIGTERM at start-up, in the warm-up and in a run: a clean stop
    # (exit 128+signal), a valid report marked partial, no frame lost.
    manifest, files = gen("sigs", "-q", "2", "-s", "8", "-n", "200")
    # delay None: as soon as EAL says its first word (start-up, EAL init).
    for sig, delay in ((signal.SIGTERM, None), (signal.SIGINT, None),
                       (signal.SIGTERM, 2.0), (signal.SIGINT, 5.0)):
        report = os.path.join(TMP, "sigs-%d-%s.json" % (sig, delay))
        cmd = [RXREFILL] + EAL + ["--", "--replay", ",".join(files),
                                  "--warmup", "3", "--duration", "30",
                                  "--reps", "1", "--strategy", "bh",
                                  "--report", report]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if delay is None:
            first = p.stderr.readline()
            assert first, "no output before exit %s" % p.poll()
        else:
            time.sleep(delay)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        assert p.returncode == 128 + sig, "signal %d after %s: exit %d: %s" % (
            sig, delay, p.returncode, err[-800:])
        assert "frames lost" not in err, err
        if os.path.exists(report):
            rep = json.load(open(report))
            assert rep["partial"] is True, "not marked partial"


def case_sigkill_keeps_previous_report():
    # Killed at any moment, the report at the path is the previous one or
    # a complete new one: never half written.
    manifest, files = gen("kill", "-q", "1", "-s", "4", "-n", "100")
    report = os.path.join(TMP, "kill.json")
    rc, out, err = run(["--replay", files[0], "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--report",
                        report, "--no-table"])
    assert rc == 0, err[-800:]
    for i, delay in enumerate((0.3, 0.6, 0.9, 1.2, 1.5, 2.0)):
        cmd = [RXREFILL] + EAL + ["--", "--replay", files[0], "--loops",
                                  "200", "--reps", "3", "--report", report,
                                  "--no-table"]
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.kill()
        p.wait(timeout=30)
        rep = json.load(open(report))
        assert rep["schema"] == "rxrefill-report/1", rep.get("schema")
        assert rep["runs"], "a report with no run replaced the previous one"


def case_memory_too_small():
    ok = os.path.join(TMP, "mem.pcap")
    write_pcap(ok, [(64, 64, bytes(64))])
    bad(["--replay", ok, "--frames", "1000000"], "cannot create a pool",
        eal=["-l", "0-1", "--no-pci", "--no-huge", "-m", "64",
             "--file-prefix", mine("rxr_app_m%d" % os.getpid())])


def case_memory_backing_said():
    manifest, files = gen("mem2", "-q", "1", "-s", "1", "-n", "10")
    rc, out, err = run(["--replay", files[0], "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--report",
                        os.path.join(TMP, "mem2.json"), "--no-table"])
    assert rc == 0, err[-800:]
    assert "memory: hugepages" in out or "ordinary memory (--no-huge)" in out, \
        out[:1000]


def bad(args, needle, eal=None, env=None, status=None):
    """Refused with a message naming needle; status: the exit status
    (2 bad usage, 1 a runtime error, as --help says), when given."""
    rc, out, err = run(args, timeout=60, eal=eal, env=env)
    assert rc != 0, "exit 0 for %s" % args
    assert rc < 128, "killed by a signal (%d) for %s" % (rc, args)
    assert status is None or rc == status, "exit %d, not %d, for %s" % (
        rc, status, args)
    assert needle in err, "message lacks '%s': %s" % (needle, err[-1500:])


def write_pcap(path, records, snaplen=65535, truncate=0):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, 1))
        for caplen, length, data in records:
            f.write(struct.pack("<IIII", 0, 0, caplen, length) + data)
    if truncate:
        size = os.path.getsize(path)
        os.truncate(path, size - truncate)


def case_bad_input():
    frame = bytes(14) + bytes(50)
    ok = os.path.join(TMP, "ok.pcap")
    write_pcap(ok, [(64, 64, frame)])
    bad(["--bogus"], "--bogus", status=2)
    bad(["--strategy", "slab"], "unknown strategy 'slab'", status=2)
    bad(["--strategy", "none"], "unknown strategy 'none'", status=2)
    bad(["--bulk", "maybe"], "--bulk", status=2)
    bad(["--stream-counting", "later"], "--stream-counting: 'later'", status=2)
    bad(["--reps", "0"], "--reps", status=2)
    bad(["--duration", "-1"], "--duration", status=2)
    bad(["--loops", "2"], "--loops needs --replay", status=2)
    bad(["--replay", os.path.join(TMP, "missing.pcap")], "missing.pcap", status=2)
    txt = os.path.join(TMP, "notes.txt")
    with open(txt, "w") as f:
        f.write("not a capture\n" * 10)
    bad(["--replay", txt], "notes.txt: not a pcap or pcapng capture", status=1)
    trunc = os.path.join(TMP, "trunc.pcap")
    write_pcap(trunc, [(64, 64, frame), (64, 64, frame)], truncate=10)
    bad(["--replay", trunc], "record 2: the file ends inside it", status=1)
    # A record of zero length is skipped and counted, as --split does.
    zero = os.path.join(TMP, "zero.pcap")
    write_pcap(zero, [(64, 64, frame), (0, 64, b"")])
    rc, out, err = run(["--replay", zero, "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--no-table"])
    assert rc == 0 and "zero.pcap: skipped: 1 of zero length" in out, \
        "exit %d: %s%s" % (rc, out[-800:], err[-800:])
    huge = os.path.join(TMP, "huge.pcap")
    write_pcap(huge, [(300000, 300000, b"\0" * 300000)])
    bad(["--replay", huge], "huge.pcap")
    # Endless replay holds each frame in one mbuf: a frame above the data
    # room is refused up front with the frame size that holds it, which
    # must then run, as finite replay (chained mbufs) does.
    jumbo = os.path.join(TMP, "jumbo.pcap")
    write_pcap(jumbo, [(3000, 3000, bytes(14) + bytes(2986))] * 4)
    rc, out, err = run(["--replay", jumbo, "--strategy", "bh", "--bulk",
                        "on", "--reps", "1", "--duration", "0.2",
                        "--no-table"])
    assert rc == 1, "exit %d for a 3000-byte frame: %s" % (rc, err[-1500:])
    m = re.search(r"jumbo\.pcap: frames of up to 3000 bytes.*"
                  r"--frame-size (\d+) or more", err)
    assert m, "no frame size named: %s" % err[-1500:]
    assert "lost" not in err, err[-1500:]
    for extra in (["--frame-size", m.group(1), "--duration", "0.2"],
                  ["--loops", "2"]):
        rc, out, err = run(["--replay", jumbo, "--strategy", "bh", "--bulk",
                            "on", "--reps", "1", "--no-table"] + extra)
        assert rc == 0, "exit %d with %s: %s" % (rc, extra, err[-1500:])
    empty = os.path.join(TMP, "empty.pcap")
    write_pcap(empty, [])
    bad(["--replay", empty], "empty.pcap: no record to replay", status=1)
    bad(["--replay", ok, "--queues", "3"], "net_pcap has one RX queue per file",
        status=2)
    bad(["--replay", ok, "--consumer", "other-poll"],
        "--consumer other-poll: needs two poll lcores, there is 1", status=2)
    # Too little memory for the pool: the cause named, no frame said lost
    # (the pool was never whole), no report.
    rc, out, err = run(["--replay", ok, "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--frames", "8192"], timeout=60,
                       eal=["-l", "0,1", "--no-pci", "--file-prefix",
                            mine("rxr_app_m%d" % os.getpid()), "--no-huge",
                            "-m", "8"])
    assert rc == 1, "exit %d with -m 8: %s" % (rc, err[-1500:])
    assert "raise EAL's -m" in err and "not home" not in err, err[-1500:]
    # How much the frames take, so that the user knows how far to raise it.
    frame = 2368
    assert "8192 frames of %d bytes (bh, %d MiB for the frames alone)" % (
        frame, (8192 * frame + (1 << 20) - 1) >> 20) in err, err[-1500:]
    # A ring with no room for a whole burst: the poll lcore never received.
    bad(["--replay", ok, "--consumer", "other-poll", "--main-polls",
         "--consumer-depth", "31"],
        "--consumer-depth 31 is below --burst 32", status=2)
    bad(["--replay", ok], "no worker lcore",
        eal=["-l", "0", "--no-pci", "--file-prefix",
             mine("rxr_app_b%d" % os.getpid())],
        status=2)
    bad(["--replay", ok, "--frame-size", "600"], "--frame-size 600")
    bad(["--replay", ok, "--report", os.path.join(TMP, "no/such/dir/r.json")],
        "no/such/dir", status=2)
    bad([], "no port", status=1)


def setting_defaults():
    """{"recycle.ring": 1024, ...}: every strategy's settings and their
    defaults, as --strategy-setting help lists them."""
    p = subprocess.run([RXREFILL, "--", "--strategy-setting", "help"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    got = {}
    for line in p.stdout.splitlines():
        if "(default " in line:
            got[line.split("=")[0]] = int(
                line.split("(default ")[1].split(")")[0])
    return got


def case_strategy_setting_errors():
    defaults = setting_defaults()
    assert "recycle.ring" in defaults, defaults
    keys = ", ".join(defaults)
    for arg, needle in (
            ("foo.ring=1", "unknown strategy 'foo'"),
            ("foo.ring=1", keys),
            ("recycle.rnig=1", "no setting 'rnig' (it has cache, refill, "
             "ring)"),
            ("bh.ring=1", "strategy bh has no settings"),
            ("recycle", "'recycle' is not STRATEGY.SETTING"),
            ("recycle.ring=abc", "recycle.ring=abc: expected a decimal "
             "whole number in 1..32768"),
            ("recycle.ring=0x10", "1..32768"),
            ("recycle.ring=0", "1..32768"),
            ("recycle.ring=32769", "1..32768"),
            ("recycle.ring", "'recycle.ring' has no value"),
            ("", "give STRATEGY.SETTING=VALUE"),
            ("recycle.ring=1,,recycle.cache=2", "give STRATEGY.SETTING"),
            ("recycle.cache=16,recycle.refill=32",
             "refused by recycle: refill 32 is over cache 16"),
            ("recycle.refill=%d" % (defaults["recycle.cache"] + 1),
             "cache %d (the default)" % defaults["recycle.cache"])):
        bad(["--strategy", "recycle", "--strategy-setting", arg], needle,
            status=2)
    # Checked together across repeats: the later cache refuses the refill.
    bad(["--strategy-setting", "recycle.refill=32", "--strategy-setting",
         "recycle.cache=16"], "recycle.cache=16,recycle.refill=32", status=2)
    # A profile line goes through the same table.
    prof = os.path.join(TMP, "bad_setting.profile")
    with open(prof, "w") as f:
        f.write("strategy-setting recycle.ring=40000\n")
    bad(["--profile", prof], "recycle.ring=40000: expected", status=2)
    # A bad value is said where it is written: the file and its line.
    valprof = os.path.join(TMP, "bad_value.profile")
    with open(valprof, "w") as f:
        f.write("# lab\nstrategy bh\n\nburst 9999\n")
    bad(["--profile", valprof], "bad_value.profile:4: --burst: '9999'",
        status=2)
    # A binary file: refused as not text, its bytes not echoed.
    binprof = os.path.join(TMP, "binary.profile")
    with open(binprof, "wb") as f:
        f.write(b"strategy bh\n\x1b[2J\x07junk\n")
    bad(["--profile", binprof], "binary.profile:2: not a text file (byte "
        "0x1b)", status=2)


def case_strategy_settings_in_report():
    """What was set reaches the pools and the report, from the command
    line and from a profile, defaults filled in: a one-frame alloc cache
    overflows on every burst freed, the default one does not as often; a
    strategy without settings records none."""
    defaults = setting_defaults()
    manifest, files = gen("settings", "-q", "1", "-s", "4", "-n", "500")
    prof = os.path.join(TMP, "settings.profile")
    with open(prof, "w") as f:
        f.write("strategy-setting recycle.cache=1\n")
    report = os.path.join(TMP, "settings.report.json")
    # A ring of 40 is made of 64 slots: recorded as it runs.
    runs = ((["--profile", prof, "--strategy-setting", "recycle.ring=40"],
             "recycle.cache=1,recycle.refill=1,recycle.ring=64"),
            ([], ",".join("%s=%d" % kv for kv in defaults.items()
                          if kv[0].startswith("recycle."))))
    full = []
    for extra, want in runs:
        rc, out, err = run(["--replay", files[0], "--loops", "1", "--reps",
                            "1", "--strategy", "recycle,bh", "--bulk", "on",
                            "--no-table", "--report", report] + extra)
        assert rc == 0, "exit %d: %s" % (rc, err[-1500:])
        rep = json.load(open(report))
        got = rep["env"]["options"].get("strategy_settings")
        assert got == want, "%s: recorded %s, want %s" % (extra, got, want)
        assert all(r["rx_packets"] == manifest["total"]["packets"]
                   for r in rep["runs"]), [r["rx_packets"] for r in rep["runs"]]
        full += [r["strategy_counters"]["recycle_cache_full"]
                 for r in rep["runs"] if r["strategy"] == "recycle"]
    assert full[0] > 0 and full[0] > full[1], \
        "recycle_cache_full with a cache of 1: %d, of the default: %d" % (
            full[0], full[1])
    rc, out, err = run(["--replay", files[0], "--loops", "1", "--reps", "1",
                        "--strategy", "bh", "--bulk", "on", "--no-table",
                        "--report", report, "--strategy-setting",
                        "recycle.ring=64"])
    assert rc == 0, "exit %d: %s" % (rc, err[-1500:])
    assert "strategy recycle does not run" in err, err[-1500:]
    rep = json.load(open(report))
    assert "strategy_settings" not in rep["env"]["options"], \
        rep["env"]["options"]


def case_list_devices():
    p = subprocess.run([RXREFILL, "--list-devices"], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert "RDMA" in p.stdout or "device" in p.stdout, p.stdout


def case_help():
    p = subprocess.run([RXREFILL, "--help"], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0
    for opt in ("--strategy", "--bulk", "--loops", "--replay", "--consumer",
                "--report", "--list-devices"):
        assert opt in p.stdout, opt


def case_rseq_unavailable():
    """Without glibc's rseq registration: rseq named is refused with the
    reason; 'all' leaves it out and says so."""
    no_rseq = {"GLIBC_TUNABLES": "glibc.pthread.rseq=0"}
    bad(["--strategy", "rseq"], "--strategy rseq: not available here: "
        "glibc registered no rseq area", env=no_rseq)
    manifest, files = gen("norseq", "-q", "1", "-s", "2", "-n", "64")
    report = os.path.join(TMP, "norseq.report.json")
    rc, out, err = run(["--replay", files[0], "--loops", "1", "--reps", "1",
                        "--bulk", "on", "--report", report, "--no-table"],
                       env=no_rseq)
    assert rc == 0, "exit %d\n%s" % (rc, err[-2000:])
    assert "strategy rseq left out of all: glibc registered no rseq" in err, \
        err[-1500:]
    with open(report) as f:
        ran = {r["strategy"] for r in json.load(f)["runs"]}
    assert "rseq" not in ran and "bh" in ran, ran


def main():
    return tap.run(globals(), ONLY)


if __name__ == "__main__":
    sys.exit(main())
