#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions and simulated cache misses per received packet: rxrefill's
poll lcore against dpdk-testpmd's rxonly forwarding lcore, on the same
vdev, under valgrind's callgrind (deterministic, unlike wall-clock rates on
a shared machine; doc/performance.md has the method and the figures).

Each program runs once under callgrind with its threads in separate
profiles, scheduled fairly (a spinning poll lcore would otherwise hold
valgrind's lock and stretch the window many times over), and a cache
simulation (the L1 data cache and a last level the
size of one core's L2, see CACHES); the receive loop is the thread that
called the PMD's receive function most. Packets are the bursts that
function returned (the calls from the application's binary into
librte_net_*) times the burst:
net_null and net_pcap's infinite_rx always fill the burst while the pool
has frames; testpmd's own RX-packets total is printed as a check.

Prints one "count:" line per program and case, per packet:
  count: <memory>.<case>.<program> Ir <n> D1miss <n> LLmiss <n> ...
and the functions of the receive thread with their Ir per packet.

Usage: count_app.py RXREFILL RXREFILL_GEN [--memory huge|nohuge]
         [--case null|64B|1500B] [--frame-size N] [--seconds S]
         [--only rxrefill|testpmd] [-- EXTRA RXREFILL OPTIONS]
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from hugepages import mislabelled, usable as hugepages_usable  # noqa: E402
from eal_prefix import mine  # noqa: E402

# Intel's L1d since Ice Lake (48 KiB, 12 ways: 64 sets, 4 KiB a way)
# and an L2 of 2 MiB as the last level: what a receive loop's frames and
# the PMD's copies live in. Same for both programs.
CACHES = ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=2097152,16,64"]
BURST = 32


def usage(msg):
    sys.stderr.write("count_app.py: %s\n" % msg)
    sys.stderr.write(__doc__.split("Usage: ", 1)[1])
    sys.exit(2)


def parse_args(argv):
    if "--help" in argv[1:2] or "-h" in argv[1:2]:
        print(__doc__.strip())
        sys.exit(0)
    if len(argv) < 3:
        usage("RXREFILL and RXREFILL_GEN are required")
    o = {"rxrefill": argv[1], "gen": argv[2], "memory": ["nohuge"],
         "case": ["null", "64B"], "frame_size": None, "seconds": 1.0,
         "extra": [], "only": ["rxrefill", "testpmd"]}
    rest = argv[3:]
    if "--" in rest:
        o["extra"] = rest[rest.index("--") + 1:]
        rest = rest[:rest.index("--")]
    i = 0
    while i < len(rest):
        k = rest[i]
        if k not in ("--memory", "--case", "--frame-size", "--seconds",
                     "--only") \
                or i + 1 >= len(rest):
            usage("unknown or incomplete option: %s" % k)
        v = rest[i + 1]
        if k == "--memory":
            if any(x not in ("huge", "nohuge") for x in v.split(",")):
                usage("--memory: huge, nohuge or both, comma separated")
            o["memory"] = v.split(",")
        elif k == "--case":
            if any(x not in ("null", "64B", "1500B") for x in v.split(",")):
                usage("--case: null, 64B, 1500B, comma separated")
            o["case"] = v.split(",")
        elif k == "--only":
            if v not in ("rxrefill", "testpmd"):
                usage("--only: rxrefill or testpmd")
            o["only"] = [v]
        elif k == "--frame-size":
            if not v.isdigit():
                usage("--frame-size: a number of bytes")
            o["frame_size"] = v
        else:
            try:
                o["seconds"] = float(v)
            except ValueError:
                usage("--seconds: a number")
            if not 0.1 <= o["seconds"] <= 60:
                usage("--seconds: 0.1 to 60")
        i += 2
    return o


def eal(prefix, memory):
    args = ["-l", "0-1", "--no-pci", "--file-prefix", mine(prefix),
            "--log-level", "lib.eal:error"]
    # On hugepages, no map file outlives the run, even a killed one.
    args += ["--no-huge", "-m", "1024"] if memory == "nohuge" else \
        ["--huge-unlink"]
    return args


def callgrind(out, cmd, stop_after=None):
    """Run cmd under callgrind; SIGINT after stop_after seconds of receive
    (testpmd runs until told). Returns the program's output."""
    vg = ["valgrind", "--tool=callgrind", "--cache-sim=yes",
          "--separate-threads=yes", "--fair-sched=yes",
          "--callgrind-out-file=" + out + ".%p"
          ] + CACHES
    p = subprocess.Popen(vg + cmd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         text=True)
    lines = []
    if stop_after is None:
        text = p.communicate(timeout=3600)[0]
        return text, p.returncode
    periods = 0
    deadline = time.monotonic() + 3600
    for line in p.stdout:
        lines.append(line)
        if "Rx-pps" in line:
            periods += 1
        # The first stats period is start-up.
        if periods > stop_after or time.monotonic() > deadline:
            break
    p.send_signal(signal.SIGINT)
    rest = p.communicate(timeout=600)[0]
    return "".join(lines) + rest, p.returncode


EV_RE = re.compile(r"^events:\s+(.*)$", re.M)


def thread_profiles(out):
    d = os.path.dirname(out)
    base = os.path.basename(out)
    return [os.path.join(d, f) for f in os.listdir(d)
            if f.startswith(base + ".") and "-" in f]


def totals(path):
    text = open(path).read()
    ev = EV_RE.search(text).group(1).split()
    m = re.search(r"^(?:summary|totals):\s+(.*)$", text, re.M)
    return dict(zip(ev, [int(x) for x in m.group(1).split()]))


def annotate(path):
    """Self cost per function and the calls from the application binary
    into a PMD (librte_net_*): (functions, bursts)."""
    flat = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", path],
        capture_output=True, text=True, check=True).stdout
    funcs = []
    for line in flat.splitlines():
        m = re.match(r"^\s*([\d,]+) \([^)]*\)\s.*?\s(\S+:\S+.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            funcs.append((int(m.group(1).replace(",", "")),
                          m.group(2).strip()))
    tree = subprocess.run(
        ["callgrind_annotate", "--tree=calling", "--threshold=100", path],
        capture_output=True, text=True, check=True).stdout
    bursts = 0
    caller_app = False
    for line in tree.splitlines():
        if " *  " in line:
            caller_app = "librte_" not in line and ".so" not in \
                line.rsplit("[", 1)[-1]
        elif caller_app and ">   " in line and "librte_net_" in line:
            m = re.search(r"\(([\d,]+)x\)", line)
            if m:
                bursts += int(m.group(1).replace(",", ""))
    return funcs, bursts


def short(fn):
    m = re.match(r"(.*?) \[(.*)\]$", fn)
    name, obj = (m.group(1), m.group(2)) if m else (fn, "")
    name = name.split(":", 1)[-1]
    return "%s (%s)" % (name, os.path.basename(obj)) if obj else name


def measure(o, tmp, memory, case, prog):
    pid = os.getpid()
    out = os.path.join(tmp, "%s.%s.%s" % (memory, case, prog))
    files = []
    if case != "null":
        size = case[:-1]
        prefix = os.path.join(tmp, "cap%s" % size)
        if not os.path.exists(prefix + ".json"):
            subprocess.run([o["gen"], "-o", prefix, "--quiet", "-q", "1",
                            "-s", "8", "-n", "512", "-l", size], check=True)
        files = [q["file"] for q in
                 json.load(open(prefix + ".json"))["queues"]]
        vdev = "net_pcap0,rx_pcap=%s,infinite_rx=1" % files[0]
    else:
        vdev = "net_null0"
    if prog == "testpmd":
        cmd = ["dpdk-testpmd"] + eal("rxr_cnt_tp_%d" % pid, memory) + [
            "--vdev", vdev, "--", "--forward-mode=rxonly", "--nb-cores",
            "1", "--rxq", "1", "--txq", "1", "--total-num-mbufs", "65536",
            "-a", "--stats-period", "1"]
        text, rc = callgrind(out, cmd, stop_after=max(2, int(o["seconds"]
                                                              * 4)))
    else:
        rep = out + ".json"
        cmd = [o["rxrefill"]] + eal("rxr_cnt_rr_%d" % pid, memory)
        if case == "null":
            cmd += ["--vdev", vdev]
        cmd += ["--"] + (["--replay", files[0]] if files else []) + [
            "--consumer", "none", "--strategy", "bh", "--bulk", "on",
            "--reps", "1", "--duration", str(o["seconds"]), "--warmup", "0",
            "--no-table", "--stats-period", "0", "--report", rep]
        if o["frame_size"]:
            cmd += ["--frame-size", o["frame_size"]]
        cmd += o["extra"]
        text, rc = callgrind(out, cmd)
    if rc not in (0, -signal.SIGINT, 130):
        print("# %s failed (%s):\n# %s" % (prog, rc, "\n# ".join(
            text.splitlines()[-15:])))
        return False
    # rxrefill says which memory it ran on (testpmd does not, but without
    # --no-huge its EAL fails rather than falls back).
    why = mislabelled(memory, text) if prog == "rxrefill" else None
    if why is not None:
        print("# %s: %s; not counted" % (prog, why))
        return False
    profs = thread_profiles(out)
    if not profs:
        print("# %s: no profile" % prog)
        return False
    # The receive loop: the thread that called the PMD most.
    best = max(((annotate(f), f) for f in profs), key=lambda x: x[0][1])
    (funcs, bursts), busiest = best
    t = totals(busiest)
    if bursts == 0:
        print("# %s: no receive burst found" % prog)
        return False
    burst = BURST
    if prog == "rxrefill" and "--burst" in o["extra"][:-1]:
        burst = int(o["extra"][o["extra"].index("--burst") + 1])
    pk = bursts * burst
    check = ""
    m = re.findall(r"RX-packets:\s+(\d+)", text)
    if m:
        check = " (testpmd's RX-packets %s)" % m[-1]
    d1 = t.get("D1mr", 0) + t.get("D1mw", 0)
    ll = t.get("DLmr", 0) + t.get("DLmw", 0)
    label = "%s.%s.%s" % (memory, case, prog)
    print("count: %s Ir %.1f D1miss %.3f LLmiss %.3f per packet "
          "(%d bursts of %d%s)" % (label, t["Ir"] / pk, d1 / pk, ll / pk,
                                   bursts, burst, check))
    for ir, fn in sorted(funcs, reverse=True)[:8]:
        print("  %s %7.1f Ir/packet  %s" % (label, ir / pk, short(fn)))
    sys.stdout.flush()
    for f in profs:
        os.unlink(f)
    return True


def main():
    o = parse_args(sys.argv)
    for tool in ("valgrind", "callgrind_annotate", "dpdk-testpmd"):
        if tool == "dpdk-testpmd" and "testpmd" not in o["only"]:
            continue
        if shutil.which(tool) is None:
            print("count_app.py: %s not found (packages valgrind, "
                  "dpdk)" % tool, file=sys.stderr)
            return 1
    tmp = tempfile.mkdtemp(prefix="rxr_count_")
    ok = True
    try:
        print("# callgrind, caches %s; one program at a time" %
              " ".join(CACHES))
        for memory in o["memory"]:
            if memory == "huge" and not hugepages_usable():
                print("# memory huge: no usable hugepages here, not "
                      "measured")
                continue
            for case in o["case"]:
                for prog in o["only"]:
                    ok &= measure(o, tmp, memory, case, prog)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
