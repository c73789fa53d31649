#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The plugin in a multi-process application (TAP): a primary testpmd on
rxrefill's ops, then a secondary testpmd of the same file prefix that
forwards from the primary's pool.

The secondary died of SIGSEGV at its first allocation: the pool's
strategy entry points are addresses in the primary's mapping of the
driver. Now its allocations and frees are refused with one message
naming the pool, the secondary ends normally, and the primary's pool is
whole when it quits. Needs root and free 2 MiB hugepages (a secondary
cannot attach to --no-huge memory): the hugepages are reserved on a
private mount in a mount namespace both processes share.
Usage: test_plugin_secondary.py PLUGIN [STRATEGY...]
"""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
sys.path.insert(0, HERE)
from hugepages import Hugepages  # noqa: E402
from eal_prefix import mine  # noqa: E402
import dpdk_plugin  # noqa: E402

# Both processes in one namespace: the primary reads Enter from a FIFO,
# the secondary starts once the primary forwards and runs for 3 s, then
# Enter ends the primary as a user would.
SCRIPT = r'''
pf=$1 sf=$2 in=$3
mkfifo "$in" || exit 99
{PRIMARY} < "$in" > "$pf" 2>&1 &
exec 3> "$in"
n=0
until grep -q "Press enter to exit" "$pf"; do
	n=$((n + 1)); [ $n -gt 300 ] && { echo "no primary"; exit 99; }
	sleep 0.1
done
sleep 3 | {SECONDARY} > "$sf" 2>&1
echo "secondary exit $?"
echo >&3
wait
echo "primary exit $?"
'''


def one(n, plugin, strategy, h, tmp):
    pre = mine("rxrplg_sec_%s_%d" % (strategy, os.getpid()))
    pf, sf, fifo = (os.path.join(tmp, "%s.%s" % (strategy, f))
                    for f in ("primary", "secondary", "in"))
    # Line-buffered: testpmd's "Press enter to exit" is what the script
    # waits for, and a file would hold it in stdio's buffer.
    eal = ("stdbuf -oL %s -l 0,1 --no-pci --file-prefix %s -d %s "
           "--mbuf-pool-ops-name rxrefill --log-level rxrefill:debug %s" %
           (dpdk_plugin.find_prog("dpdk-testpmd"), pre, plugin,
            " ".join(h.eal())))
    app = "--mbcache=0 --num-procs=2 --rxq=2 --txq=2 --forward-mode=io"
    script = SCRIPT.replace("{PRIMARY}", "%s --vdev net_null0 -- %s "
                            "--proc-id=0" % (eal, app)).replace(
        "{SECONDARY}", "%s --proc-type=secondary -- %s --proc-id=1" %
        (eal, app))
    env = dict(os.environ, RXREFILL_POOL="strategy=%s" % strategy)
    try:
        p = subprocess.run(h.wrap(["sh", "-c", script, "sh", pf, sf, fifo]),
                           env=env, capture_output=True, text=True,
                           timeout=120)
        out = p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        out = "timed out"
    prim = open(pf, errors="replace").read() if os.path.exists(pf) else ""
    sec = open(sf, errors="replace").read() if os.path.exists(sf) else ""
    why = []
    if "secondary exit 0" not in out or "primary exit 0" not in out:
        why.append("exits: %s" % out.strip())
    said = "mb_pool_0: an allocation refused in a secondary process"
    if sec.count("refused in a secondary process") != 1 or said not in sec:
        why.append("no single refusal naming the pool in the secondary")
    if "rxrefill strategy=%s " % strategy not in prim or \
            "mb_pool_0: all " not in prim or "frames are home" not in prim:
        why.append("the primary's pool not whole at exit")
    name = "secondary testpmd on the primary's %s pool" % strategy
    if why:
        print("not ok %d - %s" % (n, name))
        for ln in why + ["primary: " + prim[-1500:],
                         "secondary: " + sec[-1500:]]:
            for l in ln.splitlines():
                print("# " + l)
        return 1
    print("ok %d - %s" % (n, name))
    return 0


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: test_plugin_secondary.py PLUGIN [STRATEGY...]")
    strategies = sys.argv[2:] or ["bh", "rseq"]
    if os.geteuid() != 0:
        print("1..0 # SKIP needs root (hugepages, a mount namespace)")
        return 0
    plugin = dpdk_plugin.loadable(os.path.abspath(sys.argv[1]))
    tmp = tempfile.mkdtemp(prefix="rxr_plugin_secondary_")
    failed = 0
    try:
        with Hugepages(dpdk_plugin.HUGE_PAGES * 2, 512, "rxrplg_sec_") as h:
            if h.why is not None:
                print("1..0 # SKIP %s" % h.why)
                return 0
            for n, s in enumerate(strategies, 1):
                failed += one(n, plugin, s, h, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % len(strategies))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
