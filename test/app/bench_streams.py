#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Per-stream accounting at 8 flows and at a million flows, same run.

Two captures of the same number of 64-byte UDP frames, one cycling over 8
flows, one where every frame is its own flow (1,000,000 flows on one poll
lcore), replayed RXR_BENCH_LOOPS times each (4; net_pcap, consumer inline:
every packet is parsed and counted), alternating, 5 times each. Prints the
median Mpps of each and the ratio of the million to the 8 (per pair, median
and range), for each way of counting: deferred (the default: the poll lcore
logs each packet's flow, the main lcore counts it into the table) and
inline (--stream-counting inline: the poll lcore counts in its table). A
ratio near 1 says counting does not slow the poll loop; net_pcap reading
the file bounds both.

Once on ordinary memory (--no-huge: 4 KiB pages, so the table costs TLB
misses too) and once on 2 MiB hugepages, as a poll lcore on a NIC runs:
the pages are reserved for the duration, in a mount namespace of each run's
own, and only those this benchmark added are given back. Without root or
free memory the hugepage half is skipped with the reason.

Prints "bench:" and "ratio:" lines (suffix .deferred or .inline, then
.nohuge or .hugepages); fails
only when it cannot measure.
Usage: bench_streams.py RXREFILL [--quick]
"""

import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from hugepages import Hugepages  # noqa: E402
from eal_prefix import mine  # noqa: E402
from fixtures import programs_or_usage  # noqa: E402

programs_or_usage(__doc__, 1)
RXREFILL = sys.argv[1]
QUICK = "--quick" in sys.argv[2:]
TMP = tempfile.mkdtemp(prefix="rxr_bench_st_")
FRAMES = 200000 if QUICK else 1000000
PAIRS = 2 if QUICK else 5
LOOPS = int(os.environ.get("RXR_BENCH_LOOPS", "4"))
# 2 MiB pages for the hugepage half: the table (128 MiB at a million flows)
# and the pools, with room to spare.
HUGE_PAGES = 1024


def write_pcap(path, frames, flows):
    """Ethernet/IPv4/UDP frames of 60 bytes; frame i is flow i % flows."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        eth = bytes.fromhex("020000000002" "020000000001" "0800")
        pay = bytes(18)
        rec = struct.Struct("<IIII")
        for i in range(frames):
            k = i % flows
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 46, 0, 0, 64, 17, 0,
                             bytes((10, (k >> 16) & 255, (k >> 8) & 255,
                                    k & 255)), bytes((192, 168, 0, 1)))
            udp = struct.pack("!HHHH", 1024 + (k >> 24), 9, 26, 0)
            f.write(rec.pack(i // 1000000, i % 1000000, 60, 60))
            f.write(eth + ip + udp + pay)


def memories():
    """(label, EAL memory arguments or None with the reason, wrapper)."""
    yield "nohuge", ["--no-huge", "-m", "2048"], None, lambda c: c
    with Hugepages(HUGE_PAGES, HUGE_PAGES * 2 - 64,
                   "rxr_bst_huge_") as h:
        if h.why is not None:
            yield "hugepages", None, h.why, None
        else:
            yield "hugepages", h.eal(), None, h.wrap


def run(pcap, n, mem, wrap, label, counting):
    report = os.path.join(TMP, "r%d.json" % n)
    cmd = wrap([RXREFILL, "-l", "0-1", "--no-pci"] + mem + [
           "--file-prefix", mine("rxr_bst_%d_%d" % (os.getpid(), n)),
           "--log-level", "lib.eal:error", "--", "--replay", pcap,
           "--loops", str(LOOPS), "--reps", "1", "--strategy", "bh", "--bulk", "on",
           "--consumer", "inline", "--stream-counting", counting,
           "--no-table", "--no-latency", "--report", report])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        print("# rxrefill failed: %s" % p.stderr[-1500:])
        sys.exit(1)
    want = "memory: hugepages" if label == "hugepages" else \
        "memory: ordinary memory"
    if want not in p.stdout + p.stderr:
        print("# %s run without %r:\n%s" % (label, want, p.stdout[-1500:]))
        sys.exit(1)
    if "logged packets themselves" in p.stdout:
        print("# %s, %s counting: the poll lcore counted some itself: %s" % (
            os.path.basename(pcap), counting,
            [x for x in p.stdout.splitlines() if "themselves" in x][0]))
    with open(report) as f:
        r = json.load(f)["runs"][0]
    flows = len(r["streams"])
    if r["rx_packets"] != FRAMES * LOOPS or r["streams_untracked"]["packets"]:
        print("# %s: %d of %d packets, %s untracked" % (
            pcap, r["rx_packets"], FRAMES, r["streams_untracked"]))
        sys.exit(1)
    return r["mpps"], flows


def measure(label, mem, wrap, few, many, counting):
    a, b, ratios = [], [], []
    tag = "%s.%s" % (counting, label)
    for i in range(PAIRS):
        # Alternate which goes first: a drift of the machine hits both.
        order = [(few, a), (many, b)] if i % 2 == 0 else [(many, b), (few, a)]
        for pcap, out in order:
            mpps, flows = run(pcap, len(a) + len(b), mem, wrap, label,
                              counting)
            out.append(mpps)
            print("# %s %s: %.3f Mpps, %d flows" % (
                tag, os.path.basename(pcap), mpps, flows), flush=True)
        ratios.append(b[-1] / a[-1])
    print("bench: streams.flows8.mpps.%s %.3f Mpps (%.3f-%.3f)" % (
        tag, statistics.median(a), min(a), max(a)))
    print("bench: streams.flows%d.mpps.%s %.3f Mpps (%.3f-%.3f)" % (
        FRAMES, tag, statistics.median(b), min(b), max(b)))
    print("ratio: streams.flows%d_over_flows8.mpps.%s %.3f (min %.3f, "
          "max %.3f)" % (FRAMES, tag, statistics.median(ratios),
                         min(ratios), max(ratios)))
    print("# %s ratio per pair: %s" % (
        tag, " ".join("%.3f" % r for r in ratios)), flush=True)


def main():
    few = os.path.join(TMP, "flows8.pcap")
    many = os.path.join(TMP, "flowsM.pcap")
    write_pcap(few, FRAMES, 8)
    write_pcap(many, FRAMES, FRAMES)
    for label, mem, why, wrap in memories():
        if mem is None:
            print("# %s: skipped: %s" % (label, why))
            continue
        for counting in ("deferred", "inline"):
            measure(label, mem, wrap, few, many, counting)
    shutil.rmtree(TMP, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
