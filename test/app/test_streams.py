#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Per-stream accounting past thousands of flows (TAP, suite integration).

A capture of 20000 TCP streams replayed once must show 20000 stream rows
holding every packet (the table is sized from the capture). A port the
capture does not size (net_pcap probed with --vdev) starts with 65536 rows:
70000 flows leave some untracked, said in the output and in the report's
streams_untracked (by cause: no room), and the next repetition's larger
table holds them all.
Deferred counting (the poll lcore logs, the main lcore counts) gives the
rows counting in place gives, flow for flow and in the same order, also
when nobody collects (--main-polls: the poll lcores count from their full
logs) and behind a consumer queue; packets that queue drops are in no row.
Two poll lcores sharing a CPU drain into one collector as exactly.
The default (auto) defers when the main lcore has a CPU of its own, and
counts inline when it shares one with a poll lcore or when the flow's
entry steers packets to several consumers.
Usage: test_streams.py RXREFILL RXREFILL_GEN
"""

import json
import os
import subprocess
import sys
import tempfile

from fixtures import generate

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine_family  # noqa: E402
import tap  # noqa: E402

RXREFILL, GEN = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="rxr_streams_")
PID = os.getpid()
mine_family("rxr_st_%d_" % PID)
n = [0]


def gen(name, *args):
    return generate(GEN, os.path.join(TMP, name), args, timeout=120)


def run(eal, args, lcores=("-l", "0-1"), whole=False):
    n[0] += 1
    report = os.path.join(TMP, "r%d.json" % n[0])
    cmd = [RXREFILL] + list(lcores) + ["--no-pci", "--no-huge", "-m", "1024",
           "--file-prefix", "rxr_st_%d_%d" % (PID, n[0]), "--log-level",
           "lib.eal:error"] + eal + ["--", "--strategy", "bh", "--bulk",
                                     "on", "--no-table", "--stats-period",
                                     "0", "--report", report] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, "exit %d\n%s\n%s" % (
        p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    with open(report) as f:
        d = json.load(f)
    return (d if whole else d["runs"]), p.stdout


def case_sized_from_capture():
    m, files = gen("s20k", "-q", "1", "-s", "20000", "-n", "2")
    runs, out = run([], ["--replay", files[0], "--loops", "1", "--reps", "1"])
    (r,) = runs
    assert r["rx_packets"] == m["total"]["packets"] == 40000, r["rx_packets"]
    assert len(r["streams"]) == 20000, "%d stream rows" % len(r["streams"])
    assert sum(s["packets"] for s in r["streams"]) == 40000
    assert r["streams_untracked"] == {"packets": 0, "bytes": 0}, \
        r["streams_untracked"]
    assert set(r["streams_untracked_by_cause"].values()) == {0}, \
        r["streams_untracked_by_cause"]
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
    by = first["streams_untracked_by_cause"]
    assert by["no_room_packets"] == u["packets"] and \
        by["no_room_bytes"] == u["bytes"] and \
        by["not_ip_packets"] + by["truncated_packets"] + \
        by["malformed_packets"] == 0, by
    assert "%d packets of flows a table of" % u["packets"] in out, out[-2000:]
    assert len(second["streams"]) == 70000, "%d rows in the second run" % (
        len(second["streams"]))
    assert second["streams_untracked"]["packets"] == 0


def rows(r):
    return [(s["src"], s["dst"], s["sport"], s["dport"], s["proto"],
             s["packets"], s["bytes"]) for s in r["streams"]]


def case_deferred_as_inline():
    m, files = gen("d30k", "-q", "1", "-s", "30000", "-n", "3")
    base = ["--replay", files[0], "--loops", "2", "--reps", "1"]
    total = 2 * m["total"]["packets"]
    want = None
    for name, extra in (("inline", ["--stream-counting", "inline"]),
                        ("deferred", ["--stream-counting", "deferred"]),
                        ("deferred, no collector",
                         ["--stream-counting", "deferred", "--main-polls"]),
                        ("deferred, consumer thread",
                         ["--stream-counting", "deferred",
                          "--consumer", "other-cpu",
                          "--consumer-depth", "65536"])):
        runs, out = run([], base + extra)
        (r,) = runs
        assert r["rx_packets"] == total, "%s: %d of %d" % (
            name, r["rx_packets"], total)
        # A consumer thread models a socket: on a loaded machine it may
        # fall behind and its queue drop (consumer_full). Those packets
        # are not counted in the rows; conservation is checked, not speed.
        full = r["drops"].get("consumer_full", 0)
        if "consumer thread" not in name:
            assert full == 0, (name, r["drops"])
        by_poll = r.get("streams_counted_by_poll")
        if name == "inline":
            assert by_poll is None, by_poll
        elif name == "deferred, no collector":
            assert by_poll and by_poll <= total, by_poll
            assert "themselves" not in out, "a line for --main-polls: " + out
        else:
            assert by_poll is not None and by_poll <= total, by_poll
        got = rows(r)
        assert sum(x[5] for x in got) + full == total, (name, full)
        if full:
            # A stream whose every packet was dropped may have no row.
            print("# %s: %d packets dropped by a consumer that fell "
                  "behind; rows checked for conservation" % (name, full))
            inline = {x[:5]: x[5:] for x in want}
            over = [x for x in got if x[:5] not in inline or
                    x[5] > inline[x[:5]][0] or x[6] > inline[x[:5]][1]]
            assert not over, "%s: row %s not within inline's" % (
                name, over[0])
            continue
        assert len(got) == 30000, "%s: %d rows" % (name, len(got))
        if want is None:
            want = got
        else:
            diff = [i for i in range(len(want)) if want[i] != got[i]]
            assert not diff, "%s: %d rows differ from inline, first %s " \
                "against %s" % (name, len(diff), got[diff[0]],
                                want[diff[0]])


def case_deferred_two_pollers():
    # Two poll lcores on CPU 1, the main lcore alone on CPU 0: auto defers
    # and the collector drains two logs; rows as counted in place.
    m, files = gen("two", "-q", "2", "-s", "4000", "-n", "5")
    base = ["--replay", ",".join(files), "--loops", "3", "--reps", "1"]
    lc = ("--lcores", "0@0,(1,2)@1")
    got = {}
    for mode in ("auto", "inline"):
        d, out = run([], base + ["--stream-counting", mode], lcores=lc,
                     whole=True)
        assert "2 poll lcore(s)" in out, out[-1000:]
        r = d["runs"][0]
        assert r["rx_packets"] == 3 * m["total"]["packets"], r["rx_packets"]
        got[mode] = (d["env"]["options"]["stream_counting"], rows(r))
    assert got["auto"][0] == "deferred", got["auto"][0]
    assert len(got["auto"][1]) == 4000, len(got["auto"][1])
    assert got["auto"][1] == got["inline"][1], "rows differ"


def case_auto_counting():
    m, files = gen("auto", "-q", "1", "-s", "100", "-n", "2")
    base = ["--replay", files[0], "--loops", "1", "--reps", "1"]
    # The main lcore has CPU 0 to itself: it collects.
    d, out = run([], base, whole=True)
    assert d["env"]["options"]["stream_counting"] == "deferred", \
        d["env"]["options"]
    assert "(streams counted deferred)" in out, out[-1000:]
    # Lcore 1 polls on the main lcore's CPU: the poll lcores count.
    d, out = run([], base, lcores=("--lcores", "(0,1)@0,2@1"), whole=True)
    assert d["env"]["options"]["stream_counting"] == "inline", \
        d["env"]["options"]
    assert "(streams counted inline)" in out, out[-1000:]
    assert sum(s["packets"] for s in d["runs"][0]["streams"]) == 200
    # More than one consumer: the flow's entry steers, so inline.
    d, out = run([], base + ["--consumers", "2", "--consumer", "other-cpu",
                             "--stream-counting", "deferred"], whole=True)
    assert d["env"]["options"]["stream_counting"] == "inline", \
        d["env"]["options"]
    assert "with 2 consumers per poll lcore" in out, out[-1000:]


def case_deferred_drops_uncounted():
    m, files = gen("dstall", "-q", "1", "-s", "500", "-n", "40")
    runs, out = run([], ["--replay", files[0], "--loops", "1", "--reps", "1",
                         "--consumer", "other-cpu", "--consumer-depth", "64",
                         "--stall-consumer", "0:0.2"])
    (r,) = runs
    full = r["drops"].get("consumer_full", 0)
    counted = sum(s["packets"] for s in r["streams"])
    assert full > 0, "the stalled consumer dropped nothing: %s" % r["drops"]
    assert r["rx_packets"] == m["total"]["packets"], r["rx_packets"]
    assert counted + full == r["rx_packets"], \
        "%d counted + %d dropped != %d received" % (
            counted, full, r["rx_packets"])


def main():
    return tap.run(globals(), tmp=TMP)


if __name__ == "__main__":
    sys.exit(main())
