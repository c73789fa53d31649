#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A planted slowdown on a loaded machine: the paired test finds it where
the unpaired test misses it (TAP output for meson).

bh with bulk on and bh with bulk off run in interleaved rounds, and
--test-refill-delay CYCLES@CONFIG slows one of them (the other does 1
cycle of the same work, so only the amount differs). A busy
process pinned to the poll lcore's CPU is switched on for every other
round (SIGCONT, SIGSTOP between rounds; two of them): the Gbit/s of a round depend on
whether it was on far more than on the planted difference, but both
configurations of a round meet the same machine. That is the case the
paired comparison exists for: each round's log-ratio keeps the slowdown,
while the spread of each configuration's values hides it from the
unpaired test of the means.

- The twins differ by themselves too (bulk on and off are different
  code), by an amount that moves with the machine's load. So the batches
  cross over: one slows bulk off, the next bulk on, and the report they
  are gathered into names the slowed one bh-nobulk in every round; the
  twins' own difference then cancels instead of adding to the slowdown.
- The delay is calibrated first, in the same way, so that the slowed
  configuration runs at about 0.9 of its twin.
- Then pairs of batches of 5 rounds until the paired test finds the
  slowdown or 60 rounds: what else runs on the machine moves the two
  runs of a round apart too, and sets how many rounds it takes. Found:
  p < 0.05, the 95% interval below 1, the ratio 0.6-0.97; the unpaired
  test of the same runs is not significant.
- --test-refill-delay CYCLES@CONFIG takes a configuration of the run only.
Nothing here asserts a time. rxrefill and the busy process run at nice
-10 where allowed, so that they share the poll CPU mostly between them.
Usage: test_paired_load.py RXREFILL RXREFILL_GEN RXREFILL_COMPARE [CASE...]
"""

import ctypes
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile

import tap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN, COMPARE = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = set(sys.argv[4:])
TMP = tempfile.mkdtemp(prefix="rxr_paired_load_")
# Main lcore on CPU 0, the one poll lcore on CPU 1: the busy process's CPU.
POLL_CPU = 1
EAL = ["-l", "0-1", "--no-pci", "--no-huge", "-m", "512", "--file-prefix",
       mine("rxr_paired_load_%d" % os.getpid()), "--log-level",
       "lib.eal:error"]
ALPHA = 0.05
NICE = -10
# Busy processes on the poll CPU in a busy round: with two, the poll
# lcore gets about a third of its CPU, whatever else runs there (three
# left it so little on a loaded machine that a run measured next to
# nothing, and the rounds' own noise swamped everything).
BUSY = 2
PR_SET_PDEATHSIG = 1
TARGET = 0.88
BATCH = 5
# Which twin a batch slows, in turn.
CROSSOVER = ("bh-nobulk", "bh-bulk")
ROUNDS_MAX = 60
RESULT = re.compile(r"^\[bh bulk off rep (\d+)/\d+\] .*Gbit/s")


def capture():
    prefix = os.path.join(TMP, "cap")
    if not os.path.exists(prefix + ".json"):
        subprocess.run([GEN, "-o", prefix, "--quiet", "-q", "1", "-s", "8",
                        "-n", "1000", "-l", "64"], check=True, timeout=60)
    with open(prefix + ".json") as f:
        return ",".join(q["file"] for q in json.load(f)["queues"])


def raise_():
    """Above the other tasks of a shared machine, where allowed: the busy
    process and rxrefill then share the poll CPU between them, and what
    else runs there moves each round's Gbit/s less."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, NICE)
    except OSError:
        pass


def die_with_parent():
    """SIGKILL when this test ends, even killed by a timeout: a busy
    process left spinning (or stopped) would outlive it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG,
                                                signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def busy_on(rnd):
    """The busy process runs in every even round (rounds from 1)."""
    return rnd % 2 == 0


def measure(delay, rounds, name, first=1, slowed="bh-nobulk"):
    """bh bulk on and off in interleaved rounds, delay cycles in slowed,
    the busy process switched between rounds (numbered from first, for
    the on/off pattern). Returns (report, stdout, {round: busy})."""
    report = os.path.join(TMP, name + ".json")
    busy = [subprocess.Popen(
        [sys.executable, "-c", "while True: pass"],
        preexec_fn=lambda: (os.sched_setaffinity(0, {POLL_CPU}), raise_(),
                            die_with_parent()))
        for _ in range(BUSY)]
    state = {}
    errpath = os.path.join(TMP, name + ".err")
    try:
        def switch(rnd):
            state[rnd] = busy_on(first + rnd - 1)
            for b in busy:
                os.kill(b.pid, signal.SIGCONT if state[rnd] else
                        signal.SIGSTOP)

        switch(1)
        cmd = [RXREFILL] + EAL + [
            "--", "--replay", capture(), "--strategy", "bh", "--bulk",
            "both", "--consumer", "none", "--reps", str(rounds),
            "--warmup", "0.2", "--duration", "0.4", "--test-refill-delay",
            "%d@%s" % (delay, slowed), "--report", report]
        out = []
        with open(errpath, "w") as err:
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err,
                                 text=True, preexec_fn=raise_)
            try:
                for line in p.stdout:
                    out.append(line)
                    m = RESULT.match(line)
                    # The round's last run ended: the next round's
                    # machine, set before its first run warms up.
                    if m and int(m.group(1)) < rounds:
                        switch(int(m.group(1)) + 1)
                p.wait(timeout=600)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    finally:
        for b in busy:
            b.kill()
            b.wait()
    with open(errpath) as f:
        err = f.read()
    text = "".join(out)
    assert p.returncode == 0, "exit %d\n%s\n%s" % (
        p.returncode, text[-2000:], err[-2000:])
    with open(report) as f:
        return json.load(f), text, state


def gbps_by_round(doc):
    """{round from 1: {bulk: Gbit/s}} of the complete runs."""
    got = {}
    for r in doc["runs"]:
        if r.get("complete", True):
            got.setdefault(r["rep"] + 1, {})[r["bulk"]] = r["gbps"]
    return got


def median_ratio(doc):
    """The median per-round ratio bh-nobulk / bh-bulk: a burst of the
    machine in one round moves it less than the mean."""
    x = sorted(v[False] / v[True] for v in gbps_by_round(doc).values()
               if len(v) == 2)
    return (x[(len(x) - 1) // 2] + x[len(x) // 2]) / 2


def slowed_first(doc, slowed):
    """The runs with the slowed configuration named bh-nobulk (bulk
    false) and its twin bh-bulk: every batch then reads the same way,
    whichever of the two it slowed."""
    if slowed == "bh-bulk":
        for r in doc["runs"]:
            r["bulk"] = not r["bulk"]
    return doc


def calibrate():
    """The delay that puts the slowed twin at about TARGET of the other,
    under the same switching. The delay is work, so the time per frame
    grows with it by the same amount however busy the machine: the slowed
    one's share is 1 / (1 + k d). The twins also differ by themselves (r0,
    moving with what else the machine runs): slowing each in turn (a
    crossover) cancels it, s = sqrt(r(slow nobulk) / r(slow bulk)). k is
    measured where the effect is large (s about 0.5), so that the
    machine's noise moves it little."""
    delay = 2000
    for step in range(4):
        r = [median_ratio(measure(delay, 6, "cal%d%s" % (step, c),
                                  slowed=c)[0])
             for c in CROSSOVER]
        share = math.sqrt(r[0] / r[1])
        print("# calibration: %d cycles: share %.3f (bulk off / on: %.3f "
              "slowing bulk off, %.3f slowing bulk on)" % (
                  delay, share, r[0], r[1]))
        if share <= 0.7:
            break
        delay *= 4 if share > 0.85 else 2
    k = max(1 / share - 1, 1e-3) / delay
    return max(2, int(round((1 / TARGET - 1) / k)))


def compare_rounds(path):
    """bh-nobulk against bh-bulk over the rounds of one report, by
    rxrefill-compare: the paired test and the unpaired one."""
    p = subprocess.run([COMPARE, "--json", "-m", "gbps", path],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    row = [r for r in out["rows"] if r["stat"] == "mean"][0]
    return out, {k: row[k][1] for k in ("ratio", "ci_lo", "ci_hi", "p",
                                        "significant", "test", "n",
                                        "p_unpaired")}


def case_planted_slowdown_under_load():
    delay = calibrate()
    merged, state, batch = None, {}, 0
    path = os.path.join(TMP, "merged.json")
    # Batches of rounds, gathered into one report, until the paired test
    # decides or ROUNDS_MAX: the machine's own noise inside a round (other
    # tasks, a host taking the CPU) sets how many it needs.
    while True:
        slowed = CROSSOVER[batch % 2]
        doc, out, st = measure(delay, BATCH, "main%d" % batch,
                               first=len(state) + 1, slowed=slowed)
        opts = doc["env"]["options"]
        assert opts["test_refill_delay"] == delay and \
            opts["test_refill_delay_config"] == slowed, opts
        # The busy process shared the poll lcore's CPU.
        assert doc["env"]["machine"]["poll_cpus"] == [POLL_CPU], \
            doc["env"]["machine"]
        done = len(state)
        slowed_first(doc, slowed)
        for r in doc["runs"]:
            r["rep"] += done
        for k, v in st.items():
            state[k + done] = v
        if merged is None:
            merged = doc
        else:
            merged["runs"] += doc["runs"]
        merged["summary"] = []
        with open(path, "w") as f:
            json.dump(merged, f)
        cmp, got = compare_rounds(path)
        batch += 1
        print("# %d rounds: %.3fx (CI %.3f-%.3f) p %.4g" % (
            len(state), got["ratio"], got["ci_lo"], got["ci_hi"], got["p"]))
        # Whole crossovers only: as many rounds slowing each twin.
        if batch % 2 == 0 and (got["p"] < ALPHA or
                               len(state) >= ROUNDS_MAX):
            break
    rounds = gbps_by_round(merged)
    assert sorted(rounds) == sorted(state) and all(
        len(v) == 2 for v in rounds.values()), rounds
    for on in (False, True):
        g = [rounds[k][True] for k in rounds if state[k] == on]
        print("# the twin, busy processes %s: %.3f to %.3f Gbit/s" % (
            "on" if on else "off", min(g), max(g)))
    logs = [math.log(v[False] / v[True]) for v in rounds.values()]
    mean = sum(logs) / len(logs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    base = [math.log(v[True]) for v in rounds.values()]
    bm = sum(base) / len(base)
    bsd = math.sqrt(sum((x - bm) ** 2 for x in base) / (len(base) - 1))
    print("# delay %d cycles; sd of log Gbit/s across rounds %.3f, of the "
          "per-round log-ratio %.3f" % (delay, bsd, sd))
    share, lo, hi = got["ratio"], got["ci_lo"], got["ci_hi"]
    print("# paired: the slowed twin at %.3fx the other (CI %.3f-%.3f) p "
          "%.4g over %d rounds; unpaired: p %.4g" % (
              share, lo, hi, got["p"], len(state), got["p_unpaired"]))
    assert cmp["paired"] is True and got["n"]["paired"] is True, cmp
    assert got["test"].startswith(("exact sign-flip", "Monte Carlo "
                                   "sign-flip")), got["test"]
    # Found by the paired test, near the planted ratio ...
    assert got["p"] < ALPHA and got["significant"] and hi < 1, got
    # Near the planted 0.9: the calibration is noisy on a loaded machine.
    assert 0.6 <= share <= 0.97, (share, got)
    # ... and missed by the unpaired test of the same runs.
    assert got["p_unpaired"] >= ALPHA, got


def case_delay_config_must_run():
    p = subprocess.run(
        [RXREFILL] + EAL + ["--", "--replay", capture(), "--strategy", "bh",
                            "--bulk", "on", "--test-refill-delay",
                            "100@zone", "--report",
                            os.path.join(TMP, "never.json")],
        capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, "exit %d: %s" % (p.returncode, p.stderr[-800:])
    assert "--test-refill-delay: 'zone' is not a configuration of this " \
        "run" in p.stdout + p.stderr, p.stderr[-800:]
    assert not os.path.exists(os.path.join(TMP, "never.json"))


def main():
    return tap.run(globals(), ONLY)


if __name__ == "__main__":
    sys.exit(main())
