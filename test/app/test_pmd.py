#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every PMD that runs without a NIC, and the veth lab (suite system, TAP).

The PMD matrix runs every strategy configuration (--strategy all --bulk
both) on net_null, net_pcap, net_ring, net_af_packet and net_af_xdp on a
veth pair, net_tap, and net_memif against dpdk-testpmd (txonly, memif
server). Each run must exit 0 (at exit every frame is home: conservation)
and every configuration must receive packets where traffic was sent.

The lab: a sender replays a capture into one end of a veth pair (tcpreplay),
rxrefill receives on the other end (net_af_xdp, else net_af_packet). Packets
sent = received + dropped with a cause, with no drop when the receiver keeps
up and drops at the receiving "NIC" when it is made slower (every free frame
taken for a while: the fill ring runs dry, as an mlx5 RX ring without
posted buffers does).

Network namespaces, veth and tap devices are this test's own, named after
its pid, and removed at the end, also on failure or SIGTERM. A PMD the kernel
refuses is skipped with the reason. Usage: test_pmd.py RXREFILL RXREFILL_GEN
RXREFILL_SWEEP [CASE...]
"""

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import tap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN, SWEEP = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = set(sys.argv[4:])
PID = os.getpid()
TMP = tempfile.mkdtemp(prefix="rxr_pmd_")
NS = "rxrpmd%d" % PID
RECV, SEND = "rxr%dr" % PID, "rxr%ds" % PID     # veth ends, < 16 chars
TAP = "rxr%dt" % PID
MATRIX = ["--strategy", "all", "--bulk", "both", "--reps", "1",
          "--warmup", "0", "--duration", "1", "--stats-period", "0",
          "--no-table"]
seq = [0]
ns_made = [False]


Skip = tap.Skip


def sh(cmd, check=True, timeout=60):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                               p.stderr.strip()))
    return p


def ns_exec(cmd):
    return ["ip", "netns", "exec", NS] + cmd


def lab_up():
    """The namespace and its veth pair, once; IPv6 off so that the kernel
    sends nothing of its own on the link."""
    if ns_made[0]:
        return
    if os.geteuid() != 0:
        raise Skip("not root: cannot make a network namespace")
    need("ip")         # iproute2
    need("sysctl")     # procps
    p = sh(["ip", "netns", "add", NS], check=False)
    if p.returncode != 0:
        raise Skip("the kernel refused a network namespace: %s" %
                   p.stderr.strip())
    ns_made[0] = True
    for k in ("all", "default"):
        sh(ns_exec(["sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % k]))
    p = sh(["ip", "-n", NS, "link", "add", RECV, "type", "veth", "peer",
            "name", SEND], check=False)
    if p.returncode != 0:
        raise Skip("the kernel refused a veth pair: %s" % p.stderr.strip())
    for dev in ("lo", RECV, SEND):
        sh(["ip", "-n", NS, "link", "set", dev, "up"])


def lab_down():
    if ns_made[0]:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        ns_made[0] = False


def on_signal(sig, frame):
    lab_down()
    shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(128 + sig)


atexit.register(lambda: (lab_down(), shutil.rmtree(TMP, ignore_errors=True)))
signal.signal(signal.SIGTERM, on_signal)
signal.signal(signal.SIGINT, on_signal)


def gen(name, *args):
    prefix = os.path.join(TMP, name)
    if not os.path.exists(prefix + ".json"):
        sh([GEN, "-o", prefix, "--quiet"] + list(args))
    with open(prefix + ".json") as f:
        manifest = json.load(f)
    return manifest, [q["file"] for q in manifest["queues"]]


def eal(vdevs, mem=1024):
    seq[0] += 1
    args = ["-l", "0-1", "--no-pci", "--no-huge", "-m", str(mem),
            "--file-prefix", mine("rxr_pmd_%d_%d" % (PID, seq[0])),
            "--log-level", "lib.eal:error"]
    for v in vdevs:
        args += ["--vdev", v]
    return args


def rxrefill(vdevs, args, in_ns=False, timeout=240):
    report = os.path.join(TMP, "r%d.json" % (seq[0] + 1))
    cmd = [RXREFILL] + eal(vdevs) + ["--"] + args + ["--report", report]
    if in_ns:
        cmd = ns_exec(cmd)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    rep = None
    if os.path.exists(report):
        with open(report) as f:
            rep = json.load(f)
    return p, rep


def tail(p):
    return "stdout:\n%s\nstderr:\n%s" % (p.stdout[-2500:], p.stderr[-2500:])


def registry_strategies():
    """The strategies rxrefill offers, as its --help lists them."""
    out = subprocess.run([RXREFILL, "--help"], capture_output=True,
                         text=True, timeout=60).stdout
    m = re.search(r"^  --strategy LIST\s+(.*?), comma separated", out, re.M)
    assert m, out[:1500]
    return [n.strip() for n in m.group(1).split(",")]


def check_matrix(name, p, rep, traffic):
    assert p.returncode == 0, "%s: exit %d\n%s" % (name, p.returncode, tail(p))
    assert rep is not None and rep["partial"] is False, \
        "%s: no complete report\n%s" % (name, tail(p))
    runs = rep["runs"]
    got = sorted((r["strategy"], r["bulk"]) for r in runs)
    # Every strategy of the program's registry (its --help), less those
    # 'all' left out here with a note.
    names = [n for n in registry_strategies()
             if "strategy %s left out of all" % n not in p.stdout + p.stderr]
    want = sorted((s, b) for s in names for b in (True, False))
    assert got == want, "%s: configurations %s" % (name, got)
    for r in runs:
        if traffic:
            assert r["rx_packets"] > 0, "%s: %s bulk=%s received nothing\n%s" % (
                name, r["strategy"], r["bulk"], tail(p))
    for line in p.stdout.splitlines() + p.stderr.splitlines():
        if "probing" in line or "back in" in line or "took are" in line:
            print("# " + line)
    print("# %s: %s" % (name, ", ".join(
        "%s%s %d" % (r["strategy"], "" if r["bulk"] else "-nobulk",
                     r["rx_packets"]) for r in runs)))


class Sender:
    """A sender that keeps sending in the namespace until stopped (a loop
    of tcpreplay: an interface that comes and goes makes it exit)."""

    def __init__(self, iface, pcap, pps):
        loop = ("while :; do tcpreplay -q -i %s --pps %d %s >/dev/null 2>&1;"
                " sleep 0.05; done" % (iface, pps, pcap))
        self.p = subprocess.Popen(ns_exec(["sh", "-c", loop]),
                                  start_new_session=True)

    def stop(self):
        try:
            os.killpg(self.p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.p.wait(timeout=30)


def need(prog):
    if shutil.which(prog) is None:
        raise Skip("%s is not installed" % prog)


# --- the matrix ---------------------------------------------------------

def case_matrix_null():
    p, rep = rxrefill(["net_null0"], MATRIX)
    check_matrix("net_null", p, rep, True)


def case_matrix_pcap_vdev():
    # net_pcap probed by the user, infinite_rx: loads its file at queue
    # setup, so switching pools must give the old pool's mbufs back.
    _, files = gen("pcap", "-q", "1", "-s", "8", "-n", "200", "-l", "512")
    p, rep = rxrefill(["net_pcap0,rx_pcap=%s,infinite_rx=1" % files[0]],
                      MATRIX)
    check_matrix("net_pcap (infinite_rx)", p, rep, True)


def case_matrix_pcap_replay_finite():
    _, files = gen("pcap2", "-q", "2", "-s", "8", "-n", "100", "-l", "256")
    i = MATRIX.index("--duration")
    args = MATRIX[:i] + MATRIX[i + 2:]
    p, rep = rxrefill([], args + ["--replay", ",".join(files), "--loops", "1"])
    check_matrix("net_pcap (--replay --loops)", p, rep, True)


def case_matrix_ring():
    # Nothing sends on a net_ring port: it must run every configuration and
    # give every frame back, receiving nothing.
    p, rep = rxrefill(["net_ring0"], MATRIX)
    check_matrix("net_ring", p, rep, False)


def veth_matrix(name, vdev):
    lab_up()
    need("tcpreplay")
    _, files = gen("veth", "-q", "1", "-s", "8", "-n", "500", "-l", "256")
    snd = Sender(SEND, files[0], 2000)
    try:
        p, rep = rxrefill([vdev], MATRIX, in_ns=True)
    finally:
        snd.stop()
    if p.returncode != 0 and (rep is None or not rep["runs"]) and \
            re.search(r"xsk|XDP|bpf", p.stderr):
        raise Skip("the kernel refused %s: %s" % (name, " / ".join(
            l for l in p.stderr.splitlines() if re.search(
                r"xsk|XDP|bpf|cannot", l))[:300]))
    check_matrix(name, p, rep, True)


def case_matrix_af_packet():
    veth_matrix("net_af_packet", "net_af_packet0,iface=%s" % RECV)


def case_matrix_af_xdp():
    veth_matrix("net_af_xdp", "net_af_xdp0,iface=%s,start_queue=0,"
                "queue_count=1" % RECV)


def case_matrix_tap():
    lab_up()
    need("tcpreplay")
    if not os.path.exists("/dev/net/tun"):
        raise Skip("no /dev/net/tun")
    _, files = gen("veth", "-q", "1", "-s", "8", "-n", "500", "-l", "256")
    # The kernel sends on the tap interface: the PMD receives it.
    snd = Sender(TAP, files[0], 2000)
    try:
        p, rep = rxrefill(["net_tap0,iface=%s" % TAP], MATRIX, in_ns=True)
    finally:
        snd.stop()
    check_matrix("net_tap", p, rep, True)


def case_matrix_memif():
    need("dpdk-testpmd")
    sock = os.path.join(TMP, "memif.sock")
    vdev = "net_memif0,socket=%s,socket-abstract=no" % sock
    seq[0] += 1
    log = open(os.path.join(TMP, "testpmd.log"), "w+")
    peer = subprocess.Popen(
        ["dpdk-testpmd", "-l", "0-1", "--no-pci", "--no-huge", "-m", "512",
         "--file-prefix", mine("rxr_pmd_peer_%d" % PID), "--log-level",
         "lib.eal:error", "--vdev", vdev + ",role=server", "--",
         "--forward-mode=txonly", "--auto-start", "--stats-period", "5",
         "--txpkts", "256", "--total-num-mbufs", "4096"],
        stdout=log, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        # Its port is started (and its memif socket listening) once it
        # checks link statuses, waiting for a client.
        for _ in range(300):
            log.seek(0)
            if "Checking link statuses" in log.read() or \
                    peer.poll() is not None:
                break
            time.sleep(0.1)
        if peer.poll() is not None:
            log.seek(0)
            raise Skip("dpdk-testpmd (memif server) did not start: %s" %
                       log.read()[-500:])
        p, rep = rxrefill([vdev + ",role=client"], MATRIX)
    finally:
        os.killpg(peer.pid, signal.SIGINT)
        try:
            peer.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(peer.pid, signal.SIGKILL)
            peer.wait()
        log.close()
    check_matrix("net_memif (dpdk-testpmd txonly server)", p, rep, True)


# --- the lab ------------------------------------------------------------

def link_stat(dev, name):
    p = sh(ns_exec(["cat", "/sys/class/net/%s/statistics/%s" % (dev, name)]))
    return int(p.stdout)


def lab_run(vdev, pcap, pps, extra, duration):
    """rxrefill in the namespace; tcpreplay sends pcap once at pps after
    the measurement started. Returns (sent, report run, wire drops, out)."""
    report = os.path.join(TMP, "lab%d.json" % (seq[0] + 1))
    out = open(os.path.join(TMP, "lab%d.out" % (seq[0] + 1)), "w+")
    cmd = ns_exec([RXREFILL] + eal([vdev]) + [
        "--", "--strategy", "bh", "--bulk", "on", "--reps", "1",
        "--warmup", "0", "--duration", str(duration), "--stats-period",
        "0.2", "--no-table", "--report", report] + extra)
    rx = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                          text=True)
    t0 = time.time()
    while True:    # the first progress line comes after the measurement start
        out.seek(0)
        if "Gbit/s | port" in out.read():
            break
        if rx.poll() is not None or time.time() - t0 > 60:
            rx.kill()
            rx.wait()
            out.seek(0)
            text = out.read()
            if re.search(r"xsk|XDP socket", text):
                raise Skip("the kernel refused an XDP socket: %s" % " / ".join(
                    l for l in text.splitlines() if "xsk" in l)[:300])
            raise RuntimeError("rxrefill did not start:\n" + text[-3000:])
        time.sleep(0.05)
    wire0 = link_stat(SEND, "tx_dropped")
    snd = sh(ns_exec(["tcpreplay", "-i", SEND, "--pps", str(pps), pcap]),
             timeout=duration + 60)
    done_at = time.time()
    rx.wait(timeout=duration + 120)
    out.seek(0)
    text = out.read()
    out.close()
    assert rx.returncode == 0, "exit %d\n%s" % (rx.returncode, text[-3000:])
    assert "over" in text
    m = re.search(r"Successful packets:\s+(\d+)", snd.stdout)
    failed = re.search(r"Failed packets:\s+(\d+)", snd.stdout)
    assert m, "tcpreplay said:\n" + snd.stdout + snd.stderr
    with open(report) as f:
        run = json.load(f)["runs"][0]
    # The sender must have finished inside the measured window.
    assert done_at - t0 < duration, \
        "the sender took longer than the run (%.1f s): raise the duration" % (
            done_at - t0)
    wire = link_stat(SEND, "tx_dropped") - wire0
    print("# sent %s (sender failures %s), received %d, drops %s, veth "
          "tx_dropped %d" % (m.group(1), failed.group(1) if failed else "?",
                             run["rx_packets"], run["drops"], wire))
    return int(m.group(1)), run, wire, text


def lab_vdev():
    return "net_af_xdp0,iface=%s,start_queue=0,queue_count=1" % RECV


def case_lab_keeps_up():
    lab_up()
    need("tcpreplay")
    manifest, files = gen("lab", "-q", "1", "-s", "8", "-n", "500", "-l",
                          "512")
    sent, run, wire, _ = lab_run(lab_vdev(), files[0], 2000, [], 8)
    drops = sum(run["drops"].values())
    assert sent == manifest["total"]["packets"], "the sender sent %d of %d" % (
        sent, manifest["total"]["packets"])
    assert run["rx_packets"] + drops + wire == sent, \
        "%d sent != %d received + %d dropped (%s) + %d on the wire" % (
            sent, run["rx_packets"], drops, run["drops"], wire)
    assert drops == 0 and wire == 0, "drops while keeping up: %s, wire %d" % (
        run["drops"], wire)


def case_lab_slower_receiver():
    lab_up()
    need("tcpreplay")
    _, files = gen("lab2", "-q", "1", "-s", "8", "-n", "2500", "-l", "512")
    # Every frame the zone can give is taken 0.3 s into the run, for 3 s,
    # while 5000 packets a second arrive: the posted buffers (the fill
    # ring) and the poll lcore's cache run out, refills fail, the socket's
    # rings fill and the kernel drops.
    sent, run, wire, text = lab_run(lab_vdev(), files[0], 5000,
                                    ["--exhaust", "0.3:3"], 10)
    drops = sum(run["drops"].values())
    assert run["rx_packets"] + drops + wire == sent, \
        "%d sent != %d received + %d dropped (%s) + %d on the wire" % (
            sent, run["rx_packets"], drops, run["drops"], wire)
    nic = sum(v for k, v in run["drops"].items() if k.startswith("xdp_"))
    assert nic > 0, "no drop at the receiving NIC while refills failed: " \
        "%s\n%s" % (run["drops"], text[-2000:])


def case_lab_sweep():
    # A short sweep on the lab: it must find a no-drop rate for the
    # strategy, with every step's packets accounted for.
    lab_down()    # the sweep makes its own namespace
    need("tcpreplay")
    need("ip")
    need("sysctl")
    if os.geteuid() != 0:
        raise Skip("not root: cannot make a network namespace")
    _, files = gen("sweep", "-q", "1", "-s", "8", "-n", "500", "-l", "64")
    out = os.path.join(TMP, "sweep.json")
    seq[0] += 1
    p = subprocess.run(
        [sys.executable, SWEEP, "--lab", "--strategy", "bh", "--min", "500",
         "--max", "1000000", "--seconds", "1", "--max-steps", "3", "--json",
         out, "--sender", "tcpreplay -i {iface} --pps {pps} --loop 0 "
         "--duration {seconds} %s" % files[0], "--", RXREFILL] +
        eal([]) + ["--"], capture_output=True, text=True,
        timeout=300)
    if p.returncode != 0 and re.search(r"xsk|XDP socket", p.stderr):
        raise Skip("the kernel refused an XDP socket")
    assert p.returncode == 0, "sweep: exit %d\n%s\n%s" % (
        p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    with open(out) as f:
        res = json.load(f)
    assert res["schema"] == "rxrefill-sweep/1"
    (st,) = res["strategies"]
    assert st["no_drop_rate"] is not None, "no rate passed: %s" % st
    for s in st["steps"]:
        assert s["unaccounted"] == 0, "step %s: %d packets unaccounted" % (
            s["rate"], s["unaccounted"])
    for line in p.stdout.splitlines():
        print("# " + line)


def main():
    return tap.run(globals(), ONLY)


if __name__ == "__main__":
    sys.exit(main())
