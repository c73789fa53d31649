#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Untracked packets by cause (TAP, suite integration).

A capture holding ARP frames, IPv4 headers that contradict themselves
(IHL 3, version 5), frames cut by the snap length inside their IPv4 or
IPv6 header and ordinary TCP (one of them cut after its headers) is
replayed on net_pcap: every record is received with the bytes net_pcap
delivers (its captured length), the TCP ones in stream rows, the others
in streams_untracked, and streams_untracked_by_cause names each cause
exactly, counted in place and deferred alike; endless replay (net_pcap's
infinite_rx) keeps the captured lengths too.
Usage: test_untracked.py RXREFILL
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine_family  # noqa: E402
import tap  # noqa: E402

RXREFILL = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="rxr_untracked_")
PID = os.getpid()
mine_family("rxr_ut_%d_" % PID)
n = [0]

MACS = bytes.fromhex("020000000002") + bytes.fromhex("020000000001")


def eth(ethertype, payload):
    return MACS + struct.pack("!H", ethertype) + payload


def ipv4(ver_ihl, proto, l4, src=0x0a000001, dst=0x0a000002):
    return struct.pack("!BBHHHBBHII", ver_ihl, 0, 20 + len(l4), 1, 0x4000,
                       64, proto, 0, src, dst) + l4


def tcp(sport, dport, payload=b""):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x10,
                       65535, 0, 0) + payload


def ipv6_tcp(payload=b""):
    l4 = tcp(40000, 5201, payload)
    return struct.pack("!IHBB", 6 << 28, len(l4), 6, 64) + \
        bytes.fromhex("fd00" + "00" * 13 + "01") + \
        bytes.fromhex("fd00" + "00" * 13 + "02") + l4


def arp():
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + MACS[6:] + \
        bytes(4) + bytes(6) + bytes(4)


def write_pcap(path, records):
    """records: (frame, caplen or None for the whole frame)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for frame, cap in records:
            cap = len(frame) if cap is None else cap
            f.write(struct.pack("<IIII", 0, 0, cap, len(frame)) +
                    frame[:cap])


def capture():
    """The capture and what each cause must count of one pass of it."""
    recs, want = [], {}

    def add(cause, frame, cap=None, times=1):
        for _ in range(times):
            recs.append((frame, cap))
            got = want.setdefault(cause, [0, 0])
            got[0] += 1
            got[1] += len(frame) if cap is None else cap

    pad = bytes(26)
    add("not_ip", eth(0x0806, arp() + bytes(18)), times=3)
    add("malformed", eth(0x0800, ipv4(0x43, 6, tcp(1, 2))), times=2)
    add("malformed", eth(0x0800, ipv4(0x55, 6, tcp(1, 2))))
    # Cut by the snap length: 30 of 40 IPv6 header bytes; 10 of the 20 of
    # a TCP header after IPv4 (44 bytes each, as every frame of a cause
    # has one size).
    add("truncated", eth(0x86dd, ipv6_tcp(pad)), cap=14 + 30, times=4)
    add("truncated", eth(0x0800, ipv4(0x45, 6, tcp(7, 8, pad))), cap=44)
    add("tcp", eth(0x0800, ipv4(0x45, 6, tcp(1000, 5201, pad))), times=3)
    add("tcp", eth(0x0800, ipv4(0x45, 6, tcp(1001, 5201, pad))), times=2)
    # Cut after its headers: a stream's packet, counted as delivered.
    add("tcp", eth(0x0800, ipv4(0x45, 6, tcp(1001, 5201, bytes(1400)))),
        cap=14 + 20 + 20 + 4)
    path = os.path.join(TMP, "mixed.pcap")
    write_pcap(path, recs)
    return path, want


def run(args):
    n[0] += 1
    report = os.path.join(TMP, "r%d.json" % n[0])
    cmd = [RXREFILL, "-l", "0-1", "--no-pci", "--no-huge", "-m", "256",
           "--file-prefix", "rxr_ut_%d_%d" % (PID, n[0]), "--log-level",
           "lib.eal:error", "--", "--strategy", "bh", "--bulk", "on",
           "--no-table", "--stats-period", "0", "--report", report] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, "exit %d\n%s\n%s" % (
        p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    with open(report) as f:
        return json.load(f)["runs"], p.stdout


def check(counting, loops=2):
    path, want = capture()
    runs, out = run(["--replay", path, "--loops", str(loops), "--reps", "1",
                     "--stream-counting", counting])
    (r,) = runs
    total = [loops * sum(v[0] for v in want.values()),
             loops * sum(v[1] for v in want.values())]
    assert [r["rx_packets"], r["rx_bytes"]] == total, \
        "%s: received %d packets %d bytes, not %s" % (
            counting, r["rx_packets"], r["rx_bytes"], total)
    assert r["drops"].get("consumer_full", 0) == 0, r["drops"]
    rows = [(s["sport"], s["packets"], s["bytes"]) for s in r["streams"]]
    assert sorted(rows) == [(1000, 3 * loops, 3 * loops * 80),
                            (1001, 3 * loops, loops * (2 * 80 + 58))], \
        "%s: rows %s" % (counting, rows)
    by = r["streams_untracked_by_cause"]
    exp = {}
    for cause in ("no_room", "not_ip", "truncated", "malformed"):
        p, b = want.get(cause, [0, 0])
        exp[cause + "_packets"] = loops * p
        exp[cause + "_bytes"] = loops * b
    assert by == exp, "%s: by cause %s, not %s" % (counting, by, exp)
    u = r["streams_untracked"]
    assert u == {"packets": sum(v for k, v in exp.items()
                                if k.endswith("_packets")),
                 "bytes": sum(v for k, v in exp.items()
                              if k.endswith("_bytes"))}, u
    # Rows plus untracked hold every packet received.
    assert sum(x[1] for x in rows) + u["packets"] == r["rx_packets"]
    assert sum(x[2] for x in rows) + u["bytes"] == r["rx_bytes"]
    line = [x for x in out.splitlines() if "streams_untracked:" in x]
    assert len(line) == 1, out[-2000:]
    for word in ("%d not IP" % exp["not_ip_packets"],
                 "%d with truncated headers" % exp["truncated_packets"],
                 "%d with malformed headers" % exp["malformed_packets"]):
        assert word in line[0], "%r not in %r" % (word, line[0])
    assert "no room" not in line[0], line[0]


def consumer_drops(counting):
    # A stalled consumer's queue drops: what it drops is taken back from
    # the row or the cause that counted it, never from another cause.
    path, want = capture()
    loops = 200
    runs, out = run(["--replay", path, "--loops", str(loops), "--reps", "1",
                     "--stream-counting", counting, "--consumer",
                     "other-cpu", "--consumer-depth", "64",
                     "--stall-consumer", "0:0.2"])
    (r,) = runs
    full = r["drops"].get("consumer_full", 0)
    assert full > 0, "the stalled consumer dropped nothing: %s" % r["drops"]
    by, u = r["streams_untracked_by_cause"], r["streams_untracked"]
    rows = sum(s["packets"] for s in r["streams"])
    assert rows + u["packets"] + full == r["rx_packets"], (rows, u, full)
    for cause, size in (("not_ip", 60), ("truncated", 44),
                        ("malformed", 54)):
        p, b = by[cause + "_packets"], by[cause + "_bytes"]
        assert p <= loops * want[cause][0] and b == size * p, (cause, by)
    assert by["no_room_packets"] == by["no_room_bytes"] == 0, by
    assert sum(v for k, v in by.items() if k.endswith("_packets")) == \
        u["packets"], (by, u)


def case_consumer_drops_inline():
    consumer_drops("inline")


def case_consumer_drops_deferred():
    consumer_drops("deferred")


def case_endless():
    # net_pcap's endless replay keeps the records as captured too.
    path, want = capture()
    runs, out = run(["--replay", path, "--reps", "1", "--warmup", "0",
                     "--duration", "0.3"])
    (r,) = runs
    by = r["streams_untracked_by_cause"]
    for cause, size in (("not_ip", 60), ("truncated", 44),
                        ("malformed", 54)):
        p, b = by[cause + "_packets"], by[cause + "_bytes"]
        assert p > 0 and b == size * p, (cause, by)
    rows = {s["sport"]: s for s in r["streams"]}
    assert sorted(rows) == [1000, 1001], sorted(rows)
    # Port 1001's rows hold 80-byte frames and 58 of a 1454-byte one.
    p, b = rows[1001]["packets"], rows[1001]["bytes"]
    assert (b - 80 * p) % (58 - 80) == 0 and b < 80 * p, rows[1001]


def case_inline():
    check("inline")


def case_deferred():
    check("deferred")


def main():
    return tap.run(globals(), tmp=TMP)


if __name__ == "__main__":
    sys.exit(main())
