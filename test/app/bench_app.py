#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rxrefill against dpdk-testpmd, and the reference experiment's shape.

1. dpdk-testpmd --forward-mode=rxonly (its mbuf pool as testpmd makes it:
   a per-lcore cache of 250) and rxrefill with its default refill options
   (--consumer none: the same work, rx_burst then free; bh and recycle, bulk
   on and off, refill timing as default) on the same port and lcores: a
   net_pcap infinite_rx capture at 64 B and 1500 B, and net_null. Five
   alternated pairs (testpmd first, then rxrefill first, ...); the ratio of
   each pair takes rxrefill's best run:
   ratio: rxrefill_over_testpmd.mpps.<64B|1500B|null> <median> (min, max).
2. The cost of the measurement: rxrefill as it runs by default (refill
   latency sampled in one poll iteration in 256) against --no-latency, bh
   with bulk on, 64 B, the two interleaved process by process, alternated:
   ratio: rxrefill_default_over_nolatency.mpps.64B (goal: at least 0.98).
3. the 2017 pcp regression's shape on this machine: 8 TCP streams, a poll
   lcore and consumers on the other CPU (remote frees), recycling off: zone
   against bh against recycle in Gbit/s, five interleaved rounds (one with
   --quick); each ratio of medians comes with the ratio of every round,
   its spread:
   ratio: zone_over_bh.gbps.remote_consumers <ratio> (paired rounds ...).

Everything runs twice: on hugepages (when usable) and on ordinary memory
(--no-huge), every figure's name ending .huge or .nohuge; the header names
the CPU model. The reference shape also prints what each strategy's
allocator cost per frame (the report's cycle counters), so that the
zone/bh ratio comes with its cause.

Prints "bench:" and "ratio:" lines; fails only when it cannot measure.
Usage: bench_app.py RXREFILL RXREFILL_GEN [--quick] [--memory huge|nohuge]
"""

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from fixtures import generate, programs_or_usage  # noqa: E402
from hugepages import mislabelled, usable as hugepages_usable  # noqa: E402
from eal_prefix import mine  # noqa: E402

programs_or_usage(__doc__, 2)
RXREFILL, GEN = sys.argv[1], sys.argv[2]
QUICK = "--quick" in sys.argv[3:]
ONLY_MEM = (sys.argv[sys.argv.index("--memory") + 1]
            if "--memory" in sys.argv[3:-1] else None)
MEM = "huge"    # the memory of the runs in progress: huge or nohuge
TMP = tempfile.mkdtemp(prefix="rxr_bench_")
TESTPMD = shutil.which("dpdk-testpmd")


def eal(prefix):
    args = ["-l", "0-1", "--no-pci", "--file-prefix", mine(prefix),
            "--log-level", "lib.eal:error"]
    # Never --no-huge under a .huge label: without hugepages EAL fails or
    # rxrefill says it fell back, and the run fails rather than mislabels.
    # On hugepages, no map file outlives the run, even a killed one.
    args += ["--no-huge", "-m", "2048"] if MEM == "nohuge" else \
        ["--huge-unlink"]
    return args


def tag(name):
    """A figure's name for the memory of the runs in progress."""
    return "%s.%s" % (name, MEM)


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def gen(name, *args):
    return generate(GEN, os.path.join(TMP, name), args, timeout=None)[0]


def testpmd_mpps(vdev, seconds):
    """Median of testpmd's per-second Rx-pps once it is warm."""
    cmd = [TESTPMD] + eal("rxr_bench_tp_%d" % os.getpid()) + [
        "--vdev", vdev, "--",
        "--forward-mode=rxonly", "--nb-cores", "1", "--rxq", "1", "--txq",
        "1", "--total-num-mbufs", "65536", "-a", "--stats-period", "1"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         text=True, bufsize=1)
    pps, tail = [], []
    deadline = time.monotonic() + seconds + 60
    # Count periods, not wall time: start-up time varies with memory.
    for line in p.stdout:
        tail = (tail + [line])[-40:]
        m = re.search(r"Rx-pps:\s+(\d+)", line)
        if m:
            pps.append(int(m.group(1)))
        if len(pps) > seconds or time.monotonic() > deadline:
            break
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
    pps = [x for x in pps[1:] if x > 0]  # the first period is the warm-up
    if not pps:
        print("# testpmd gave no rate:\n# " + "# ".join(tail))
        return None
    return statistics.median(pps) / 1e6


def rxrefill_runs(files, args, eal_extra=()):
    report = os.path.join(TMP, "r_%d.json" % time.monotonic_ns())
    replay = ["--replay", ",".join(files)] if files else []
    cmd = [RXREFILL] + eal("rxr_bench_rr_%d" % os.getpid()) + list(
        eal_extra) + ["--"] + replay + ["--report", report, "--no-table",
                                        "--stats-period", "0"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        print("# rxrefill failed: " + p.stderr[-800:].replace("\n", "\n# "))
        return None
    why = mislabelled(MEM, p.stdout)
    if why is not None:
        print("# rxrefill: %s; not measured" % why)
        return None
    return json.load(open(report))


def median_of(rep, strategy, bulk, key):
    vals = [r[key] for r in rep["runs"]
            if r["strategy"] == strategy and r["bulk"] == bulk]
    return statistics.median(vals) if vals else None


def paired_ratios(rep, a, b, key):
    """Per round (rep), key of configuration a over b: a and b are
    (strategy, bulk); rounds where either lacks the figure are left out."""
    by = {}
    for r in rep["runs"]:
        if r.get(key):
            by[(r["strategy"], r["bulk"], r["rep"])] = r[key]
    reps = sorted({k[2] for k in by})
    return [by[a + (i,)] / by[b + (i,)] for i in reps
            if a + (i,) in by and b + (i,) in by]


def versus_testpmd(label, testpmd_vdev, files, eal_extra=()):
    """rxrefill (default refill options, --consumer none) against testpmd
    rxonly on the same port, in alternated pairs (A B, B A, ...)."""
    secs = 3 if QUICK else 6
    pairs = 2 if QUICK else 5
    tp, ours, ratios, names = [], [], [], []
    for i in range(pairs):
        t = o = None
        for first in ((True, False) if i % 2 == 0 else (False, True)):
            if first:
                t = testpmd_mpps(testpmd_vdev, secs)
            else:
                # Default options: only the strategies compared and the
                # run lengths are given; bulk, timing, frame size are not.
                rep = rxrefill_runs(files, [
                    "--consumer", "none", "--strategy", "bh,recycle",
                    "--reps", "1", "--duration", "2", "--warmup", "0.5"],
                    eal_extra)
                if rep is not None:
                    best = max(rep["runs"], key=lambda r: r["mpps"] or 0)
                    o = best["mpps"]
                    names.append("%s%s" % (best["strategy"],
                                           "" if best["bulk"] else "/single"))
                    for r in rep["runs"]:
                        print("bench: %s %.3f Mpps" % (tag(
                            "rxrefill.rxonly.%s%s.%s" % (
                                r["strategy"], "" if r["bulk"] else ".single",
                                label)), r["mpps"] or 0))
        if t is None or o is None:
            return False
        print("bench: %s %.3f Mpps" % (tag("testpmd.rxonly.mpps.%s" % label),
                                        t))
        tp.append(t)
        ours.append(o)
        ratios.append(o / t)
    print("bench: %s %.3f Mpps (%.3f-%.3f)" % (
        tag("testpmd.rxonly.median.mpps.%s" % label), statistics.median(tp),
        min(tp), max(tp)))
    print("bench: %s %.3f Mpps (%.3f-%.3f; best of each run: %s)" % (
        tag("rxrefill.rxonly.best.median.mpps.%s" % label),
        statistics.median(ours), min(ours), max(ours), ",".join(names)))
    print("ratio: %s %.3f (min %.3f, max %.3f, %d alternated pairs)" % (
        tag("rxrefill_over_testpmd.mpps.%s" % label),
        statistics.median(ratios), min(ratios), max(ratios), len(ratios)))
    return True


def versus_testpmd_pcap(size):
    m = gen("tp%d" % size, "-q", "1", "-s", "8", "-n", "512", "-l", str(size))
    pcap = m["queues"][0]["file"]
    return versus_testpmd("%dB" % size,
                          "net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, [pcap])


def versus_testpmd_null():
    # net_null: no copy, no parsing; the receive path is the allocator.
    return versus_testpmd("null", "net_null0", [], ["--vdev", "net_null0"])


def default_over_nolatency():
    m = gen("lat64", "-q", "1", "-s", "8", "-n", "512", "-l", "64")
    files = [q["file"] for q in m["queues"]]
    pairs = 2 if QUICK else 5
    args = ["--consumer", "none", "--strategy", "bh", "--bulk", "on",
            "--reps", "1", "--duration", "1" if QUICK else "2",
            "--warmup", "0.5"]
    dflt, nolat = [], []
    # Interleaved and alternated (A B, B A, ...): a drift of the shared
    # machine hits both, and neither always runs first.
    for i in range(pairs):
        if i % 2 == 0:
            a = rxrefill_runs(files, args)
            b = rxrefill_runs(files, args + ["--no-latency"])
        else:
            b = rxrefill_runs(files, args + ["--no-latency"])
            a = rxrefill_runs(files, args)
        if a is None or b is None:
            return False
        dflt.append(a["runs"][0]["mpps"])
        nolat.append(b["runs"][0]["mpps"])
    ratios = [x / y for x, y in zip(dflt, nolat)]
    print("bench: %s %.3f Mpps (median of %d)" % (
        tag("rxrefill.bh.bulk.64B.default"), statistics.median(dflt), pairs))
    print("bench: %s %.3f Mpps (median of %d)" % (
        tag("rxrefill.bh.bulk.64B.nolatency"), statistics.median(nolat),
        pairs))
    # Within the pairs, as the runs were blocked: a drift between pairs
    # moves a ratio of medians, not a pair's ratio.
    print("ratio: %s %.3f (pairs %s; ratio of medians %.3f)" % (
        tag("rxrefill_default_over_nolatency.mpps.64B"),
        statistics.median(ratios), " ".join("%.3f" % r for r in ratios),
        statistics.median(dflt) / statistics.median(nolat)))
    return True


def reference_shape():
    m = gen("ref", "-q", "1", "-s", "8", "-n", "1000", "-l", "1500")
    files = [q["file"] for q in m["queues"]]
    rep = rxrefill_runs(files, [
        "--strategy", "zone,bh,recycle", "--bulk", "both",
        "--consumer", "other-cpu", "--consumers", "2",
        "--consumer-depth", "1024", "--reps", "1" if QUICK else "5",
        "--duration", "1" if QUICK else "2", "--warmup", "0.5"])
    if rep is None:
        return False
    g = {}
    for s in ("zone", "bh", "recycle"):
        for b in (True, False):
            v = median_of(rep, s, b, "gbps")
            w = median_of(rep, s, b, "mpps")
            t = "%s.%s" % (s, "bulk" if b else "single")
            g[t] = v
            print("bench: %s %.3f Gbit/s" % (tag(
                "reference.8streams.remote_consumers.%s.gbps" % t), v))
            print("bench: %s %.3f Mpps" % (tag(
                "reference.8streams.remote_consumers.%s.mpps" % t), w))
            # What the allocator cost per frame, from the report: the
            # poll lcore's refills, its whole allocator share, the
            # consumers' frees (where zone takes its lock remotely).
            for key, unit in (("refill_cycles_per_frame", "cycles/frame"),
                              ("allocator_cycles_per_packet",
                               "cycles/packet"),
                              ("consumer_free_cycles_per_packet",
                               "cycles/packet"),
                              ("cycles_per_packet", "cycles/packet")):
                c = median_of(rep, s, b, key)
                if c is not None:
                    print("bench: %s %.1f %s" % (tag(
                        "reference.%s.%s" % (t, key)), c, unit))
        ws = [r["zone_lock"]["wait_share"] for r in rep["runs"]
              if r["strategy"] == s and r["zone_lock"]["wait_share"] is not None]
        if ws:
            print("bench: %s %.4f" % (
                tag("reference.%s.zone_lock_wait_share" % s),
                statistics.median(ws)))
    for name, a, b in (
            ("zone_over_bh.gbps.remote_consumers", ("zone", True),
             ("bh", True)),
            ("recycle_over_bh.gbps.remote_consumers", ("recycle", True),
             ("bh", True)),
            ("zone_over_bh.gbps.remote_consumers.single", ("zone", False),
             ("bh", False)),
            ("bulk_over_single.bh.gbps", ("bh", True), ("bh", False))):
        num, den = median_of(rep, *a, "gbps"), median_of(rep, *b, "gbps")
        # The rounds are interleaved blocks: the figure is the median of
        # each round's ratio, the ratio of medians beside it.
        rounds = paired_ratios(rep, a, b, "gbps")
        if not rounds:
            print("# %s: no round holds both configurations" % tag(name))
            return False
        print("ratio: %s %.3f (paired rounds %s; ratio of medians %.3f)" % (
            tag(name), statistics.median(rounds),
            " ".join("%.3f" % x for x in rounds), num / den))
    return True


def main():
    global MEM
    ok = True
    print("# cpu: %s (%d online)" % (cpu_model(), os.cpu_count() or 0))
    print("# every figure twice: on hugepages (names end .huge) and on "
          "ordinary memory (--no-huge, .nohuge)")
    for MEM in ("huge", "nohuge"):
        if ONLY_MEM is not None and MEM != ONLY_MEM:
            continue
        if MEM == "huge" and not hugepages_usable():
            print("# memory huge: no usable hugepages here, not measured")
            continue
        print("# memory %s: %s" % (MEM, "hugepages" if MEM == "huge" else
                                   "ordinary memory (--no-huge)"))
        sys.stdout.flush()
        if TESTPMD is None:
            print("# dpdk-testpmd not found (package dpdk): cannot measure "
                  "the peer")
            ok = False
        else:
            for size in (64, 1500):
                ok &= versus_testpmd_pcap(size)
            ok &= versus_testpmd_null()
        ok &= default_over_nolatency()
        ok &= reference_shape()
    shutil.rmtree(TMP, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
