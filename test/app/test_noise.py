#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Noise accounting on the app (TAP output for meson).

- A repetition stopped for about 2 s (SIGSTOP, then SIGCONT, as a host
  does to a VM) is marked disturbed with cause "duration"; stopped
  inside a window it outlasts, with --duration and with --loops, with
  cause "stopped" (the window's wall time hides it); every run
  carries its noise record, the env its machine checks, and under
  --disturbed exclude the summary leaves the disturbed runs out. Whether
  the other repetitions were quiet depends on the machine: not asserted.
- The planted delay of --test-refill-delay is inside the timed refill
  region: refill_cycles_per_frame rises with it.
- --disturbed takes count or exclude, and says so otherwise.
Usage: test_noise.py RXREFILL RXREFILL_GEN [CASE...]
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import tap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN = sys.argv[1], sys.argv[2]
ONLY = set(sys.argv[3:])
TMP = tempfile.mkdtemp(prefix="rxr_noise_")
EAL = ["-l", "0-1", "--no-pci", "--file-prefix",
       mine("rxr_noise_%d" % os.getpid()),
       "--log-level", "lib.eal:error"]
STOP_S = 2.0
CAUSES = {"duration", "steal", "switches", "stopped"}


def capture():
    prefix = os.path.join(TMP, "cap")
    if not os.path.exists(prefix + ".json"):
        subprocess.run([GEN, "-o", prefix, "--quiet", "-q", "2", "-s", "8",
                        "-n", "1000", "-l", "64"], check=True, timeout=60)
    with open(prefix + ".json") as f:
        return ",".join(q["file"] for q in json.load(f)["queues"])


def run(args, timeout=120):
    p = subprocess.run([RXREFILL] + EAL + ["--"] + args, capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def load(path):
    with open(path) as f:
        return json.load(f)


def check_record(r):
    """The noise fields of one run: present, typed, in range."""
    tag = "%s rep %d" % (r["strategy"], r["rep"])
    assert isinstance(r["disturbed"], bool), tag
    assert set(r["disturbed_by"]) <= CAUSES, (tag, r["disturbed_by"])
    assert bool(r["disturbed_by"]) == r["disturbed"], (tag, r)
    n = r["noise"]
    for k in ("asked_s", "duration_excess", "steal_share_max",
              "nonvoluntary_ctxt_switches", "migrations", "cpus", "lcores",
              "busy_tasks"):
        assert k in n, "%s: noise lacks %s" % (tag, k)
    assert n["nonvoluntary_ctxt_switches"] >= 0 and n["migrations"] >= 0
    assert n["cpus"], "%s: no poll CPU" % tag
    for c in n["cpus"]:
        assert c["steal_share"] is None or 0 <= c["steal_share"] <= 1, c
    assert n["lcores"], "%s: no poll lcore" % tag
    for lc in n["lcores"]:
        assert lc["tid"] > 0 and isinstance(lc["own_cpu"], bool), lc
        w = lc["runqueue_wait_share"]
        # Read a little apart from the window's clock: a little over 1.
        assert w is None or 0 <= w <= 1.2, lc
    for t in n["busy_tasks"]:
        assert t["pid"] > 0 and t["comm"], t
        assert t["cpu_share"] >= 0.05, t
    return n


def case_sigstop_disturbed():
    report = os.path.join(TMP, "stop.json")
    # The first progress line of the second repetition: it is being
    # measured. Stop the whole process there.
    text = stop_at([], ["--replay", capture(), "--strategy", "bh", "--bulk",
                        "on", "--reps", "3", "--warmup", "0.2", "--duration",
                        "1", "--stats-period", "0.1", "--disturbed",
                        "exclude", "--report", report], "rep 2/3]", "Gbit/s",
                   0)
    assert "rxrefill: machine: " in text, text[:2000]
    doc = load(report)
    runs = doc["runs"]
    assert len(runs) == 3, "%d runs" % len(runs)
    for r in runs:
        check_record(r)
    hit = runs[1]
    n = hit["noise"]
    print("# stopped rep: %.3f s measured of %.3f s asked, causes %s" % (
        hit["duration_s"], n["asked_s"], hit["disturbed_by"]))
    assert hit["disturbed"] and "duration" in hit["disturbed_by"], hit
    # Stopped 2 s into a 1 s window: it ends at once when it resumes.
    assert n["asked_s"] == 1, n
    assert n["duration_excess"] > 0.5, n
    assert abs(hit["duration_s"] - 1 - n["duration_excess"]) < 1e-6
    assert "[bh bulk on rep 2/3] disturbed, left out of the figures: " \
        "measured" in text, text[-3000:]
    # The count, in the report and the table; excluded from the summary.
    nd = sum(r["disturbed"] for r in runs)
    assert doc["noise"] == {"repetitions": 3, "disturbed": nd,
                            "counted": False}, doc["noise"]
    assert "noise: %d of 3 repetitions disturbed, left out of the figures " \
        "(--disturbed exclude)" % nd in text, text[-3000:]
    assert doc["env"]["options"]["disturbed"] == "exclude"
    counted = sum(s["reps"] for s in doc["summary"])
    assert counted == 3 - nd, doc["summary"]
    # The machine checks at start.
    m = doc["env"]["machine"]
    for k in ("cpu_model", "poll_cpus", "governor", "smt_sibling_pairs",
              "isolated", "nohz_full", "steal_share", "window_s",
              "busy_tasks"):
        assert k in m, "env.machine lacks %s" % k
    assert m["cpu_model"] == doc["env"]["cpu_model"], m
    assert m["window_s"] >= 0.99, m
    assert m["poll_cpus"] == [c["cpu"] for c in runs[0]["noise"]["cpus"]]
    lim = doc["env"]["noise_limits"]
    assert 0 < lim["duration_excess"] < 0.5, lim


def stop_at(eal, args, rep, wait_for, pause):
    """Run, and stop the process for STOP_S PAUSE seconds after a line
    with REP and WAIT_FOR; its output."""
    p = subprocess.Popen([RXREFILL] + EAL + eal + ["--"] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    out, stopped = [], False
    try:
        for line in p.stdout:
            out.append(line)
            if rep in line and wait_for in line:
                time.sleep(pause)
                p.send_signal(signal.SIGSTOP)
                time.sleep(STOP_S)
                p.send_signal(signal.SIGCONT)
                stopped = True
                break
        out += p.stdout.readlines()
        err = p.stderr.read()
        rc = p.wait(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    text = "".join(out)
    assert stopped, "never saw %s %s:\n%s" % (rep, wait_for, text[-2000:])
    assert rc == 0, "exit %d\n%s\n%s" % (rc, text[-2000:], err[-2000:])
    return text


def case_sigstop_inside_window():
    # A 2 s stop inside a 4 s window: the window is wall time, so the
    # measured duration is what was asked, and a stopped thread neither
    # runs nor waits, so neither switches nor the runqueue see it. The
    # poll lcore's runnable time against the time it polled does.
    big = os.path.join(TMP, "big")
    subprocess.run([GEN, "-o", big, "--quiet", "-q", "1", "-s", "8", "-n",
                    "100000", "-l", "64"], check=True, timeout=60)
    for name, eal, args, wait_for in (
            ("duration", ["--vdev", "net_null0"],
             ["--duration", "4", "--warmup", "0.2", "--stats-period", "0.5"],
             "Gbit/s"),
            ("loops", [], ["--replay", big + ".q0.pcap", "--loops", "40"],
             "replaying")):
        report = os.path.join(TMP, "inside.json")
        text = stop_at(eal, args + ["--strategy", "bh", "--bulk", "on",
                                    "--reps", "2", "--disturbed", "exclude",
                                    "--no-table", "--report", report],
                       "rep 1/2]", wait_for, 0.3)
        doc = load(report)
        runs = doc["runs"]
        for r in runs:
            check_record(r)
        hit = runs[0]
        shares = [lc["runnable_share"] for lc in hit["noise"]["lcores"]]
        print("# %s: %.3f s measured, causes %s, runnable %s" % (
            name, hit["duration_s"], hit["disturbed_by"], shares))
        assert "stopped" in hit["disturbed_by"], hit
        # The stop shows in proportion to the window (at least 3/4 of it).
        assert min(shares) < 1 - 0.75 * STOP_S / hit["duration_s"], shares
        assert "stopped" in text and "left out of the figures" in text, \
            text[-2000:]
        nd = sum(r["disturbed"] for r in runs)
        assert sum(s["reps"] for s in doc["summary"]) == 2 - nd, \
            doc["summary"]


def case_refill_delay_direction():
    delay = 20000
    got = {}
    for d in (0, delay):
        report = os.path.join(TMP, "delay%d.json" % d)
        rc, out, err = run(["--replay", capture(), "--loops", "2",
                            "--strategy", "bh", "--bulk", "on", "--reps", "1",
                            "--test-refill-delay", str(d), "--report", report,
                            "--latency-every", "16", "--no-table"])
        assert rc == 0, "exit %d\n%s\n%s" % (rc, out[-2000:], err[-2000:])
        doc = load(report)
        r = doc["runs"][0]
        got[d] = r["refill_cycles_per_frame"]
        # Default: disturbed runs count, and the run says so.
        assert doc["env"]["options"]["disturbed"] == "count"
        assert "(--disturbed count)" in out, out[-2000:]
        n = check_record(r)
        assert n["asked_s"] is None and n["duration_excess"] is None, n
    print("# refill_cycles_per_frame: %.1f without, %.1f with %d cycles" % (
        got[0], got[delay], delay))
    # A refill takes at most a burst of frames: the delay shows per frame.
    assert got[delay] > got[0] + delay / 64, got


def case_bad_option():
    rc, out, err = run(["--disturbed", "sometimes"])
    assert rc != 0, "accepted"
    assert "--disturbed: 'sometimes' is not count or exclude" in out + err, \
        out + err


def main():
    return tap.run(globals(), ONLY)


if __name__ == "__main__":
    sys.exit(main())
