#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Real captures from other projects on every route (TAP, suite integration).

Each capture of captures/ (README.md there says where each comes from)
has its truth computed by tshark, never by rxrefill's reader: the frames
of link types rxrefill replays, their captured bytes once given an
Ethernet header, and their IP flows (addresses, protocol, ports of TCP
and UDP datagrams that are not fragments). Every route must match it:
--replay with --loops 1 (totals and every stream), the user's own
net_pcap device (--vdev rx_pcap=FILE) with --warmup 0 and a window
longer and shorter than the capture (every packet in the window or
counted outside it; every stream), and rxrefill-gen --split (written
records and every stream of the manifest). Captures that cannot be read
are refused on every route, naming the file, with exit status 1.
Usage: test_captures.py RXREFILL RXREFILL-GEN [CASE...]
"""

import collections
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine_family  # noqa: E402
import tap  # noqa: E402

RXREFILL, GEN = sys.argv[1], sys.argv[2]
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "captures")
TMP = tempfile.mkdtemp(prefix="rxr_captures_")
PID = os.getpid()
mine_family("rxr_cap_%d_" % PID)
n = [0]

# Wiretap's encapsulations rxrefill replays: the link header each has in
# place of Ethernet's 14 bytes.
LINK_HDR = {"1": 14, "15": 4, "174": 4, "7": 0, "25": 16, "210": 20,
            "129": 0, "130": 0}
# Cannot be read (damaged, another pcapng version) or hold nothing to
# replay: refused on every route.
REFUSED = {"dpkt-truncated_dns_2.pcap", "pcapfix-test_damaged.pcap",
           "gopacket-le-test901.pcapng", "gopacket-le-test017.pcapng"}
IPV6_EXT = {"0", "43", "44", "50", "51", "60", "135", "139", "140"}


def captures():
    return sorted(f for f in os.listdir(HERE) if f.endswith(("pcap",
                                                            "pcapng")))


def truth(path):
    """tshark's view: (packets, bytes, {stream key: [packets, bytes]})."""
    fields = ["frame.encap_type", "frame.cap_len", "frame.len", "ip.src",
              "ip.dst", "ip.proto", "ip.flags.mf", "ip.frag_offset",
              "ipv6.src", "ipv6.dst", "ipv6.nxt", "ipv6.hopopts.nxt",
              "ipv6.routing.nxt", "ipv6.fraghdr.nxt", "ipv6.dstopts.nxt",
              "frame.protocols", "tcp.srcport", "tcp.dstport",
              "udp.srcport", "udp.dstport"]
    cmd = ["tshark", "-n", "-r", path, "-o", "ip.defragment:FALSE",
           "-o", "ipv6.defragment:FALSE", "-T", "fields", "-E",
           "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         timeout=60).stdout
    pkts = byts = 0
    streams = collections.defaultdict(lambda: [0, 0])
    for line in out.splitlines():
        v = dict(zip(fields, line.split("\t")))
        first = {k: x.split(",")[0] for k, x in v.items()}
        if first["frame.encap_type"] not in LINK_HDR:
            continue
        cap = int(first["frame.cap_len"]) + 14 - \
            LINK_HDR[first["frame.encap_type"]]
        pkts += 1
        byts += cap
        # IP right after the link header (and VLAN tags), as NICs hash it.
        layers = first["frame.protocols"].split(":")
        if layers[0] not in ("ip", "ipv6"):  # IPV4 and IPV6 have no link
            layers.pop(0)
        while layers and layers[0] in ("ethertype", "vlan"):
            layers.pop(0)
        if not layers or layers[0] not in ("ip", "ipv6"):
            continue
        if layers[0] == "ip":
            src, dst, proto = first["ip.src"], first["ip.dst"], \
                first["ip.proto"]
            frag = first["ip.flags.mf"] in ("1", "True") or \
                first["ip.frag_offset"] not in ("", "0")
        else:
            src, dst = first["ipv6.src"], first["ipv6.dst"]
            nxt = [first[f] for f in ("ipv6.nxt", "ipv6.hopopts.nxt",
                                      "ipv6.routing.nxt", "ipv6.fraghdr.nxt",
                                      "ipv6.dstopts.nxt") if first[f]]
            proto = next((x for x in nxt if x not in IPV6_EXT), nxt[-1])
            frag = first["ipv6.fraghdr.nxt"] != ""
        sport = dport = 0
        if not frag and proto in ("6", "17"):
            p = "tcp" if proto == "6" else "udp"
            if first[p + ".srcport"]:
                sport = int(first[p + ".srcport"])
                dport = int(first[p + ".dstport"])
        key = (src, dst, sport, dport, int(proto), frag)
        streams[key][0] += 1
        streams[key][1] += cap
    return pkts, byts, dict(streams)


def rows(streams):
    got = collections.defaultdict(lambda: [0, 0])
    for s in streams:
        key = (s["src"], s["dst"], s["sport"], s["dport"], s["proto"],
               s.get("fragments", False))
        got[key][0] += s["packets"]
        got[key][1] += s["bytes"]
    return dict(got)


def rxrefill(eal, args, want_rc=0):
    n[0] += 1
    report = os.path.join(TMP, "r%d.json" % n[0])
    cmd = [RXREFILL, "-l", "0-1", "--no-pci", "--no-huge", "-m", "256",
           "--file-prefix", "rxr_cap_%d_%d" % (PID, n[0]), "--log-level",
           "lib.eal:error"] + eal + ["--", "--strategy", "bh", "--bulk",
                                    "on", "--reps", "1", "--no-table",
                                    "--stats-period", "0", "--report",
                                    report] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert p.returncode == want_rc, "%s: exit %d\n%s\n%s" % (
        " ".join(cmd), p.returncode, p.stdout[-1500:], p.stderr[-1500:])
    if want_rc != 0:
        return None, p.stdout + p.stderr
    with open(report) as f:
        doc = json.load(f)
    # What was converted or skipped is said in the output and the report.
    notes = [c["note"] for c in doc["env"]["captures"] if c["note"]]
    assert all(n in p.stdout for n in notes), (notes, p.stdout[-1500:])
    return doc, p.stdout


def check(name, route, want, got_pkts, got_bytes, got_rows):
    pkts, byts, streams = want
    assert (got_pkts, got_bytes) == (pkts, byts), \
        "%s %s: %d packets %d bytes, tshark %d %d" % (
            route, name, got_pkts, got_bytes, pkts, byts)
    if got_rows is not None:
        diff = {k: (streams.get(k), got_rows.get(k))
                for k in set(streams) | set(got_rows)
                if streams.get(k) != got_rows.get(k)}
        assert not diff, "%s %s: streams differ (tshark, rxrefill): %s" % (
            route, name, sorted(diff.items())[:6])


def each(fn, files=None):
    """fn(name, path, truth) on each capture that is not refused (of
    FILES, paths, when given), every failure listed."""
    failed = []
    paths = files or [os.path.join(HERE, f) for f in captures()
                      if f not in REFUSED]
    for path in paths:
        try:
            fn(os.path.basename(path), path, truth(path))
        except AssertionError as e:
            failed.append(str(e))
    assert not failed, "\n".join(failed)


def replay(name, path, want):
    doc, _ = rxrefill([], ["--replay", path, "--loops", "1"])
    r = doc["runs"][0]
    check(name, "--replay", want, r["rx_packets"], r["rx_bytes"],
          rows(r.get("streams", [])))
    return doc


def device(name, path, want, window="0.3"):
    doc, _ = rxrefill(["--vdev", "net_pcap0,rx_pcap=" + path],
                      ["--warmup", "0", "--duration", window])
    r = doc["runs"][0]
    out = r["outside_window"]
    check(name, "--vdev (%s s)" % window, want,
          r["rx_packets"] + out["before"] + out["after"],
          sum(s["bytes"] for s in r.get("streams", [])) +
          r["streams_untracked"]["bytes"], rows(r.get("streams", [])))
    # Captured whole in the window: the window's totals alone are exact.
    if out["after"] == 0:
        assert (r["rx_packets"], r["rx_bytes"]) == want[:2], name
    return doc


def split(name, path, want):
    prefix = os.path.join(TMP, "s_" + name)
    p = subprocess.run([GEN, "--split", path, "-o", prefix, "--queues",
                        "2", "--quiet"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, "%s: %s" % (name, p.stderr)
    with open(prefix + ".json") as f:
        m = json.load(f)
    got = collections.Counter()
    for s in m["streams"]:
        got[(s["src"], s["dst"], s.get("sport", 0), s.get("dport", 0),
             s["proto"], s.get("fragments", False))] += s["packets"]
    # The manifest counts frame lengths, not captured bytes: packets only.
    assert m["input"]["written"] == want[0], "--split %s: %d of %d" % (
        name, m["input"]["written"], want[0])
    assert got == {k: v[0] for k, v in want[2].items()}, \
        "--split %s: streams differ" % name
    return m


def case_replay():
    each(replay)


def case_device_longer_window():
    each(device)


def case_device_shorter_window():
    """A window shorter than the capture takes to deliver (a frame a
    refill, each refill slowed): what comes after the window is counted
    outside it, the streams still hold every packet."""
    def one(name, path, want):
        doc, _ = rxrefill(["--vdev", "net_pcap0,rx_pcap=" + path],
                          ["--warmup", "0", "--duration", "0.2", "--burst",
                           "1", "--test-refill-delay", "20000000"])
        r = doc["runs"][0]
        out = r["outside_window"]
        assert out["after"] > 0 or want[0] < 60, "%s: %s" % (name, out)
        assert r["rx_packets"] + out["after"] + out["before"] == want[0], \
            "%s: %s, tshark %d" % (name, r["rx_packets"], want[0])
        assert rows(r.get("streams", [])) == want[2], name
    each(one)


def case_split():
    each(split)


def case_device_named_as_replay_port():
    """A --vdev device with the name of the port --replay makes, without
    --replay, replays its own files, with a queue for each."""
    def one(name, path, want):
        doc, _ = rxrefill(["--vdev", "net_pcap_rxrefill,rx_pcap=" + path],
                          ["--warmup", "0", "--duration", "0.3"])
        r = doc["runs"][0]
        out = r["outside_window"]
        assert r["rx_packets"] + out["before"] + out["after"] == want[0], \
            "%s: %s, tshark %d" % (name, r["rx_packets"], want[0])
    each(one, [os.path.join(HERE, "dpkt-http.pcap")])


def rewrite(src, dst, linktype, record=None):
    """SRC's records under another link type (pcap, little-endian): each
    record's bytes through RECORD(bytes) when given, None leaving it out."""
    with open(src, "rb") as f:
        data = f.read()
    assert struct.unpack("<I", data[:4])[0] == 0xa1b2c3d4, src
    out = bytearray(data[:20] + struct.pack("<I", linktype))
    off = 24
    while off < len(data):
        ts, us, cap, ln = struct.unpack("<IIII", data[off:off + 16])
        rec = data[off + 16:off + 16 + cap]
        off += 16 + cap
        if record is not None:
            rec = record(rec)
        if rec is None:
            continue
        out += struct.pack("<IIII", ts, us, len(rec), ln - cap + len(rec))
        out += rec
    with open(dst, "wb") as f:
        f.write(out)
    return dst


def case_other_link_types():
    """LOOP (BSD loopback in network order), RAW written as DLT_RAW (12),
    IPV4 (228) and IPV6 (229), made from the corpus' NULL and RAW captures:
    exact on every route, as tshark reads them."""
    loop = rewrite(os.path.join(HERE, "gopacket-test_loopback.pcap"),
                   os.path.join(TMP, "loop.pcap"), 108,
                   lambda r: struct.pack(">I", struct.unpack("<I", r[:4])[0])
                   + r[4:])
    raw = os.path.join(HERE, "tcpdump-tun-raw.pcap")
    dlt = rewrite(raw, os.path.join(TMP, "dlt12.pcap"), 12)
    v4 = rewrite(raw, os.path.join(TMP, "ipv4.pcap"), 228,
                 lambda r: r if r[0] >> 4 == 4 else None)
    v6 = rewrite(raw, os.path.join(TMP, "ipv6.pcap"), 229,
                 lambda r: r if r[0] >> 4 == 6 else None)
    for fn in (replay, device, split):
        each(fn, [loop, dlt, v4, v6])


def case_record_rule():
    """caplen 0 and caplen above the frame length skipped and counted,
    a record longer than the snap length kept whole (libpcap trims it:
    31 bytes where tshark reads 34), the same on every route."""
    frame = bytes.fromhex("020000000002020000000001") + b"\x08\x06" + \
        bytes(20)
    path = os.path.join(TMP, "rule.pcap")
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 31, 1))
        for cap, ln in ((34, 34), (0, 60), (40, 34), (20, 34)):
            f.write(struct.pack("<IIII", 0, 0, cap, ln) +
                    (frame + bytes(6))[:cap])
    want = (2, 54, {})
    for fn in (replay, device, split):
        fn("rule.pcap", path, want)
    doc = replay("rule.pcap", path, want)
    c = doc["env"]["captures"][0]
    assert (c["records"], c["skipped_empty"], c["skipped_invalid"],
            c["snapped"], c["copied"]) == (4, 1, 1, 1, True), c


def case_snap_length_cuts_tcp_options():
    """Captures cut right after the TCP header's first 20 bytes (tcpdump
    -s 54/74; editcap -s here): the ports are there, so each segment is
    in its flow as tshark says, not untracked as "truncated"."""
    cut = []
    for name, snap in (("dpkt-http.pcap", 54), ("dpkt-nb6-http.pcap", 74)):
        path = os.path.join(TMP, "s%d-%s" % (snap, name))
        subprocess.run(["editcap", "-s", str(snap), os.path.join(HERE, name),
                        path], check=True, capture_output=True, timeout=60)
        cut.append(path)
    for fn in (replay, device, split):
        each(fn, cut)


def case_fragments_marked():
    """IPv4 fragments (ping -s 3000) are a stream of their own, marked in
    the JSON and in the stream rows' text."""
    path = os.path.join(HERE, "tcpdump-any-sll.pcap")
    doc, out = rxrefill([], ["--replay", path, "--loops", "1", "--table",
                             "full", "--stream-rows"])
    frags = [s for s in doc["runs"][0]["streams"] if s.get("fragments")]
    assert frags and all(s["sport"] == s["dport"] == 0 for s in frags), \
        doc["runs"][0]["streams"]
    assert "/icmp frag" in out, out[-2000:]


def case_refused():
    """Damaged files, another pcapng version, nothing to replay, a link
    type that cannot be given an Ethernet header: refused on every
    route, naming the file, exit status 1."""
    wifi = rewrite(os.path.join(HERE, "npm-pcap-parser-smtp.pcap"),
                   os.path.join(TMP, "wifi.pcap"), 105)
    for path in sorted(os.path.join(HERE, n) for n in REFUSED) + [wifi]:
        _, out = rxrefill([], ["--replay", path, "--loops", "1"], 1)
        assert "--replay " + path in out, out
        _, out = rxrefill(["--vdev", "net_pcap0,rx_pcap=" + path],
                          ["--warmup", "0"], 1)
        assert "--vdev net_pcap0 " + path in out, out
        p = subprocess.run([GEN, "--split", path, "-o",
                            os.path.join(TMP, "refused")],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 1 and path in p.stderr, p.stderr
    # A FIFO (it hung the device route) and a directory (called "empty").
    fifo = os.path.join(TMP, "fifo.pcap")
    os.mkfifo(fifo)
    for path, kind in ((fifo, "a FIFO"), (TMP, "a directory")):
        _, out = rxrefill(["--vdev", "net_pcap0,rx_pcap=" + path],
                          ["--warmup", "0"], 1)
        assert "%s: is %s, not a regular file" % (path, kind) in out, out
    # Endless replay with frames larger than an mbuf (7,306 bytes): said
    # before EAL, as --replay says it; net_pcap refused the queue with
    # EINVAL and two frames were lost.
    path = os.path.join(HERE, "tcpdump-any-sll.pcap")
    for eal, args in (([], ["--replay", path]), (["--vdev", "net_pcap0,"
                      "infinite_rx=1,rx_pcap=" + path], [])):
        _, out = rxrefill(eal, args, 1)
        assert "frames of up to 7306 bytes" in out and "lost" not in out, out
    # A capture that is not there: 1 as well, as --help says.
    missing = os.path.join(TMP, "missing.pcap")
    p = subprocess.run([GEN, "--split", missing, "-o",
                        os.path.join(TMP, "m")], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 1 and missing in p.stderr, p.stderr
    assert "1 when a capture cannot be read" in subprocess.run(
        [GEN, "--help"], capture_output=True, text=True).stdout


def big_capture(name, packets):
    """A capture of rxrefill-gen's, one file of PACKETS packets."""
    prefix = os.path.join(TMP, name)
    subprocess.run([GEN, "-o", prefix, "--quiet", "--streams", "8",
                    "--packets", str(packets // 8), "--queues", "1"],
                   check=True, timeout=120)
    return prefix + ".q0.pcap"


def case_capture_changed_during_loops():
    """A capture truncated by another process during a finite replay:
    the session stops at once naming it, the run is complete: false and
    out of the summary (it stalled every remaining loop for 3 s, and was
    kept whole)."""
    path = big_capture("shrink", 400000)
    n[0] += 1
    report = os.path.join(TMP, "shrink-report.json")
    cmd = [RXREFILL, "-l", "0-1", "--no-pci", "--no-huge", "-m", "512",
           "--file-prefix", "rxr_cap_%d_%d" % (PID, n[0]), "--log-level",
           "lib.eal:error", "--", "--strategy", "bh", "--bulk", "on",
           "--reps", "1", "--no-table", "--report", report, "--replay",
           path, "--loops", "1000"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    # Truncated once the loops run (a fixed delay could outlast them).
    deadline = time.time() + 60
    seen = ""
    while "replaying" not in seen and time.time() < deadline:
        seen += p.stdout.readline()
    time.sleep(0.3)
    os.truncate(path, os.path.getsize(path) // 2)
    t = time.time()
    out, err = p.communicate(timeout=120)
    assert p.returncode == 1, (p.returncode, out[-800:], err[-800:])
    assert time.time() - t < 10, "took %.1f s to stop" % (time.time() - t)
    assert path in err and "changed" in err, err[-800:]
    # Cut short, so not counted: with no whole run, no report.
    assert "cut short (capture changed)" in out, out[-800:]
    assert not os.path.exists(report), open(report).read()[:300]


def case_signal_after_failed_run():
    """A SIGINT after a run that failed (nothing received) exits 130, as
    it does after whole runs: it exited 1."""
    path = os.path.join(HERE, "npm-pcap-parser-smtp.pcap")
    n[0] += 1
    cmd = [RXREFILL, "-l", "0-1", "--no-pci", "--no-huge", "-m", "256",
           "--file-prefix", "rxr_cap_%d_%d" % (PID, n[0]), "--log-level",
           "lib.eal:error", "--vdev", "net_pcap0,rx_pcap=" + path, "--",
           "--strategy", "bh", "--bulk", "on", "--reps", "3", "--no-table",
           "--warmup", "0.2", "--duration", "2", "--report",
           os.path.join(TMP, "sig.json")]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.time() + 60
    seen = ""
    while "rep 2/3" not in seen and time.time() < deadline:
        seen += p.stdout.readline()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert "nothing received" in seen, seen[-800:]
    assert p.returncode == 130, (p.returncode, err[-800:])


if __name__ == "__main__":
    if shutil.which("tshark") is None:
        print("1..0 # SKIP tshark is not installed (usertools/quickstart.sh"
              " installs it)")
        sys.exit(0)
    sys.exit(tap.run(globals(), sys.argv[3:], TMP))
