#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A planted clear cost in one zeroing method: the paired verdict finds it
(TAP output for meson), as test_paired_load.py does for refills.

--zero-policy alloc --zero-method contig,nt runs the two methods in
interleaved rounds; --test-zero-delay CYCLES@nt adds that much work to the
clear of every frame nt clears, and to no other. The report must then
say, paired over the rounds with p < 0.05, that alloc/nt receives fewer
Gbit/s than alloc/contig, and its poll{} split must put the cost in the
clear cycles per packet, not in the rest. Nothing here asserts a time:
the delay is larger than the whole receive path's cycles per packet.
Usage: test_paired_zero.py RXREFILL RXREFILL_GEN [CASE...]
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import tap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from eal_prefix import mine  # noqa: E402

RXREFILL, GEN = sys.argv[1], sys.argv[2]
ONLY = set(sys.argv[3:])
TMP = tempfile.mkdtemp(prefix="rxr_paired_zero_")
EAL = ["-l", "0-1", "--no-pci", "--no-huge", "-m", "512", "--file-prefix",
       mine("rxr_paired_zero_%d" % os.getpid()), "--log-level",
       "lib.eal:error"]
DELAY = 8000
ROUNDS = 8


def run(extra, report=None):
    cap = os.path.join(TMP, "cap")
    if not os.path.exists(cap + ".json"):
        subprocess.run([GEN, "-o", cap, "--quiet", "-q", "1", "-s", "8",
                        "-n", "1000", "-l", "1500"], check=True, timeout=60)
    cmd = [RXREFILL] + EAL + ["--", "--replay", cap + ".q0.pcap",
                              "--strategy", "bh", "--bulk", "on",
                              "--consumer", "none"] + extra
    if report:
        cmd += ["--report", report]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def planted(slowed):
    """contig and nt under alloc, DELAY cycles in slowed's clears."""
    report = os.path.join(TMP, "planted_%s.json" % slowed)
    p = run(["--zero-policy", "alloc", "--zero-method", "contig,nt",
             "--reps", str(ROUNDS), "--warmup", "0.2", "--duration", "0.4",
             "--test-zero-delay", "%d@%s" % (DELAY, slowed)], report)
    assert p.returncode == 0, "exit %d\n%s" % (p.returncode, p.stderr[-2000:])
    with open(report) as f:
        doc = json.load(f)
    opts = doc["env"]["options"]
    assert opts["zero_method"] == "contig,nt" and \
        opts["test_zero_delay"] == DELAY and \
        opts["test_zero_delay_method"] == slowed, opts
    first, nt = doc["summary"][0], doc["summary"][1]
    assert first["zeroing"] == {"policy": "alloc", "method": "contig"}, first
    assert nt["zeroing"] == {"policy": "alloc", "method": "nt"}, nt
    v = nt["gbps"]["paired_vs_first"]
    print("# %s slowed: alloc/nt at %.3fx alloc/contig Gbit/s (CI %.3f-%.3f) "
          "p %.4g over %d rounds" % (slowed, v["ratio"], v["ci_lo"],
                                     v["ci_hi"], v["p"], v["rounds"]))
    # Found, in the direction of the plant ...
    assert v["paired"] and v["significant"] and v["p"] < 0.05, v
    assert (v["ci_hi"] < 1) if slowed == "nt" else (v["ci_lo"] > 1), v
    # ... and in the clears: the slowed method's exceed the other's by
    # most of the delay (the methods differ by themselves too).
    clear = {m: sorted(r["poll"]["clear_cycles_per_packet"]
                       for r in doc["runs"]
                       if r["zeroing"]["method"] == m)[ROUNDS // 2]
             for m in ("contig", "nt")}
    other = "contig" if slowed == "nt" else "nt"
    print("# median clear cycles per packet: %s" % clear)
    assert clear[slowed] > clear[other] + DELAY / 2, clear
    # The text verdict and the trade-off line name it, with an interval.
    text = re.sub(r"\n +", " ", p.stdout)
    assert re.search(r"bh-bulk zero=alloc/nt: [\d.]+x bh-bulk "
                     r"zero=alloc/contig Gbit/s \(95% CI", text), text[-3000:]
    line = re.search(r"bh-bulk zero=alloc/nt against alloc/contig: clear "
                     r"([-+])[\d.e+]+% \(CI [^)]*p ([\d.e-]+)\)", text)
    assert line and float(line.group(2)) < 0.05 and \
        line.group(1) == ("+" if slowed == "nt" else "-"), text[-3000:]


def case_planted_clear_cost_found():
    """Slowing each method in turn: the verdict follows the plant, not
    what the methods cost by themselves on this machine."""
    planted("nt")
    planted("contig")


def case_bad_zero_lists_refused():
    for args, msg in ((["--zero-policy", "alloc,,none"], "--zero-policy"),
                      (["--zero-method", "contig,fast"], "--zero-method"),
                      (["--test-zero-delay", "100@auto"],
                       "--test-zero-delay 100@auto: not a method"),
                      (["--test-zero-delay", "100"], "CYCLES@METHOD")):
        p = run(args + ["--reps", "1"])
        assert p.returncode == 2, "%s: exit %d" % (args, p.returncode)
        assert msg in p.stdout + p.stderr, (args, p.stderr[-800:])


def main():
    return tap.run(globals(), ONLY)


if __name__ == "__main__":
    sys.exit(main())
