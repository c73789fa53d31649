#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Per-stream accounting past thousands of flows (TAP, suite integration).

A capture of 20000 TCP streams replayed once must show 20000 stream rows
holding every packet (the table is sized from the capture). A port the
capture does not size (net_pcap probed with --vdev) starts with 65536 rows:
70000 flows leave some untracked, said in the output and in the report's
streams_untracked, and the next repetition's larger table holds them all.
Usage: test_streams.py RXREFILL RXREFILL_GEN
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

RXREFILL, GEN = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="rxr_streams_")
PID = os.getpid()
n = [0]


def gen(name, *args):
    prefix = os.path.join(TMP, name)
    subprocess.run([GEN, "-o", prefix, "--quiet"] + list(args), check=True,
                   timeout=120)
    with open(prefix + ".json") as f:
        m = json.load(f)
    return m, [q["file"] for q in m["queues"]]


def run(eal, args):
    n[0] += 1
    report = os.path.join(TMP, "r%d.json" % n[0])
    cmd = [RXREFILL, "-l", "0-1", "--no-pci", "--no-huge", "-m", "1024",
           "--file-prefix", "rxr_st_%d_%d" % (PID, n[0]), "--log-level",
           "lib.eal:error"] + eal + ["--", "--strategy", "bh", "--bulk",
                                     "on", "--no-table", "--stats-period",
                                     "0", "--report", report] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, "exit %d\n%s\n%s" % (
        p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    with open(report) as f:
        return json.load(f)["runs"], p.stdout


def case_sized_from_capture():
    m, files = gen("s20k", "-q", "1", "-s", "20000", "-n", "2")
    runs, out = run([], ["--replay", files[0], "--loops", "1", "--reps", "1"])
    (r,) = runs
    assert r["rx_packets"] == m["total"]["packets"] == 40000, r["rx_packets"]
    assert len(r["streams"]) == 20000, "%d stream rows" % len(r["streams"])
    assert sum(s["packets"] for s in r["streams"]) == 40000
    assert r["streams_untracked"] == {"packets": 0, "bytes": 0}, \
        r["streams_untracked"]
    assert "streams_untracked" not in out


def case_grows_between_runs():
    m, files = gen("s70k", "-q", "1", "-s", "70000", "-n", "1", "-l", "64")
    runs, out = run(["--vdev", "net_pcap0,rx_pcap=%s" % files[0]],
                    ["--reps", "2", "--warmup", "0", "--duration", "3"])
    first, second = runs
    rows = len(first["streams"])
    u = first["streams_untracked"]
    assert 0 < rows <= 65536, "%d rows in the first run" % rows
    assert u["packets"] == 70000 - rows and u["bytes"] == 64 * u["packets"], \
        "untracked %s with %d rows of 70000 flows" % (u, rows)
    assert "streams_untracked: %d packets" % u["packets"] in out, out[-2000:]
    assert len(second["streams"]) == 70000, "%d rows in the second run" % (
        len(second["streams"]))
    assert second["streams_untracked"]["packets"] == 0


def main():
    cases = [(k[5:], f) for k, f in sorted(globals().items())
             if k.startswith("case_")]
    failed = 0
    for i, (name, fn) in enumerate(cases, 1):
        try:
            fn()
            print("ok %d - %s" % (i, name))
        except Exception as e:
            failed += 1
            for line in str(e).splitlines() or [repr(e)]:
                print("# " + line)
            print("not ok %d - %s" % (i, name))
        sys.stdout.flush()
    print("1..%d" % len(cases))
    shutil.rmtree(TMP, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
