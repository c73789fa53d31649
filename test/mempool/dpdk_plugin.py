#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""DPDK's own programs on rxrefill's mempool plugin (-d ... --mbuf-pool-ops-name).

  dpdk_plugin.py autotest PLUGIN    mempool_autotest and mbuf_autotest of
                                    Debian's dpdk-test, every strategy, on
                                    4 KiB pages and on hugepages (TAP)
  dpdk_plugin.py testpmd PLUGIN     dpdk-testpmd io forwarding, mbufs freed
                                    on another lcore than the one that
                                    allocated them, every strategy; every
                                    frame home at exit (TAP)
  dpdk_plugin.py perf-autotest PLUGIN [STRATEGY...]
                                    mempool_perf_autotest: our ops against
                                    ring_mp_mc from the same table
  dpdk_plugin.py perf-testpmd PLUGIN [STRATEGY...]
                                    testpmd rxonly on net_null, our ops
                                    against the default ops, interleaved

The hugepage half reserves 2 MiB pages, runs each program in a mount
namespace of its own on a hugetlbfs mount that holds them (no other
process sees it), and gives them back afterwards; when none can be had it
says why and skips.
"""

import atexit
import os
import re
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile

STRATEGIES = ["zone", "irqsave", "bh", "recycle"]
LCORES = "0@0,1@0,2@1"  # main and two workers on the machine's two CPUs
HUGE_PAGES = 192        # 384 MiB: -m 256 and DPDK's own overhead

tap_n = 0
tap_failed = 0


def tap(ok, name, diag=""):
    global tap_n, tap_failed
    tap_n += 1
    if not ok:
        tap_failed += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (tap_n, name))
    for line in diag.splitlines():
        print("# " + line)
    sys.stdout.flush()


def find_prog(name):
    for d in ["/usr/bin", "/usr/local/bin"] + \
            os.environ.get("PATH", "").split(":"):
        p = os.path.join(d, name)
        if d and os.access(p, os.X_OK):
            return p
    sys.exit("%s not found: install Debian's dpdk-dev package" % name)


def prefix(tag):
    return "rxrplg_%s_%d" % (tag, os.getpid())


def run(cmd, stdin_text, env_pool, timeout):
    env = dict(os.environ)
    env.pop("RXREFILL_POOL", None)
    if env_pool is not None:
        env["RXREFILL_POOL"] = env_pool
    try:
        p = subprocess.run(cmd, input=stdin_text, env=env, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return -1, out + "\n(timed out after %ds)" % timeout


def tail(out, n=25):
    lines = [ln for ln in out.splitlines()
             if not re.match(r"^[0-9A-F]{8}: ", ln)]  # hex dumps
    return "\n".join(lines[-n:])


class Hugepages:
    """2 MiB pages reserved for the duration.

    Each program runs in a mount namespace of its own with a hugetlbfs
    mount that reserves the pages (min_size): other processes on the
    machine neither see the mount nor take its pages.
    """

    def __init__(self, pages):
        self.pages = pages
        self.dir = None
        self.nr_path = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
        self.before = None
        self.added = 0
        self.why = None

    def __enter__(self):
        try:
            if shutil.which("unshare") is None:
                self.why = "unshare (util-linux) not found"
                return self
            with open(self.nr_path) as f:
                self.before = int(f.read())
            free = self._free()
            if free < self.pages:
                self.added = self.pages - free
                with open(self.nr_path, "w") as f:
                    f.write(str(self.before + self.added))
            if self._free() < self.pages:
                self.why = "only %d free 2 MiB hugepages after asking for " \
                    "%d more" % (self._free(), self.pages)
                return self
            self.dir = tempfile.mkdtemp(prefix="rxrplg_huge_")
        except (OSError, ValueError) as e:
            self.why = "cannot reserve hugepages: %s" % e
        return self

    def _free(self):
        with open(self.nr_path.replace("nr_hugepages", "free_hugepages")) as f:
            return int(f.read())

    def eal(self):
        return ["--huge-dir", self.dir, "-m", "256"]

    def wrap(self, cmd):
        """cmd inside its own mount namespace with the reserving mount."""
        return ["unshare", "--mount", "--propagation", "private", "sh",
                "-c", 'mount -t hugetlbfs -o pagesize=2M,min_size=%dM nodev '
                '"$0" && exec "$@"' % (2 * self.pages), self.dir] + cmd

    def __exit__(self, *exc):
        if self.dir is not None:
            os.rmdir(self.dir)
        if self.added:
            # Only what this test added: others may have changed it since.
            try:
                with open(self.nr_path) as f:
                    now = int(f.read())
                with open(self.nr_path, "w") as f:
                    f.write(str(max(0, now - self.added)))
            except (OSError, ValueError) as e:
                print("# could not give the hugepages back: %s" % e)
        return False


def memories():
    """(name, EAL memory arguments or None with the reason to skip,
    command wrapper)."""
    yield "4 KiB pages", ["--no-huge", "-m", "1024"], None, lambda c: c
    with Hugepages(HUGE_PAGES) as h:
        if h.why is not None:
            yield "hugepages", None, h.why, None
        else:
            yield "hugepages", h.eal(), None, h.wrap


def not_home(out):
    """Pool-free lines of pools that had no cache and lost frames."""
    return [ln for ln in out.splitlines()
            if "frames are not home" in ln and "per-lcore caches" not in ln]


# --- dpdk-test -------------------------------------------------------------

def autotest(plugin):
    dpdk_test = find_prog("dpdk-test")
    for mem, eal_mem, why, wrap in memories():
        for s in STRATEGIES:
            for t in ["mempool_autotest", "mbuf_autotest"]:
                name = "%s, %s, %s" % (t, s, mem)
                if eal_mem is None:
                    print("ok %d - %s # SKIP %s" % (tap_n + 1, name, why))
                    globals()["tap_n"] += 1
                    continue
                cmd = [dpdk_test, "-l", "0-1", "--no-pci",
                       "--file-prefix", prefix(s), "-d", plugin,
                       "--mbuf-pool-ops-name", "rxrefill"] + eal_mem
                rc, out = run(wrap(cmd), t + "\n", "strategy=" + s, 240)
                ours = "rxrefill strategy=%s" % s in out
                # Not the pools' ends: DPDK's tests free some pools while
                # they still hold mbufs (test_nb_segs_and_next_reset).
                ok = rc == 0 and "Test OK" in out and ours
                tap(ok, name, "" if ok else
                    "exit %d, ops used: %s\n%s" % (rc, ours, tail(out)))
    print("1..%d" % tap_n)
    return 1 if tap_failed else 0


# --- testpmd ---------------------------------------------------------------

def testpmd_cmd(plugin, tag, extra_eal, ops, args):
    cmd = [find_prog("dpdk-testpmd"), "--lcores", LCORES, "--no-pci",
           "--file-prefix", prefix(tag)] + extra_eal
    if ops:
        cmd += ["-d", plugin, "--mbuf-pool-ops-name", "rxrefill"]
    return cmd + ["--"] + args


def port_stats(out):
    """{port: (rx, tx)} of the last forward statistics printed."""
    st = {}
    for m in re.finditer(r"Forward statistics for port (\d+)\s+-+\s+"
                         r"RX-packets: (\d+).*?\n\s+TX-packets: (\d+)",
                         out, re.S):
        st[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    return st


def testpmd(plugin):
    # Port 0 (net_null) receives into fresh mbufs on lcore 1, which sends
    # them into port 1's ring; lcore 2 takes them off the ring and port 0's
    # transmit frees them there. rxonly at the end empties the ring.
    script = "start\nstop\nset fwd rxonly\nstart\nstop\nquit\n"
    nmbufs = 4096
    for s in STRATEGIES:
        for bulk in ["on", "off"]:
            conf = "strategy=%s,bulk=%s" % (s, bulk)
            cmd = testpmd_cmd(plugin, s, ["--no-huge", "-m", "512",
                              "--vdev", "net_null0", "--vdev", "net_ring0"],
                              True, ["-i", "--mbcache=0",
                                     "--total-num-mbufs=%d" % nmbufs,
                                     "--nb-cores=2", "--forward-mode=io"])
            # testpmd reads commands as they come: pace them so that
            # packets flow between start and stop.
            rc, out = run_paced(cmd, script, conf, pause_after="start\n")
            io = out.split("Set rxonly packet forwarding mode")[0]
            st = port_stats(io)
            crossed = st.get(1, (0, 0))[0] > 0 and st.get(0, (0, 0))[1] > 0
            home = "all %d frames are home" % nmbufs in out
            ok = rc == 0 and crossed and home and not not_home(out) and \
                "rxrefill strategy=%s" % s in out
            tap(ok, "testpmd io, frees on the other lcore, %s" % conf,
                "ports (rx, tx): %s, whole at exit: %s, exit %d" %
                (st, home, rc) + ("" if ok else "\n" + tail(out)))
    print("1..%d" % tap_n)
    return 1 if tap_failed else 0


def run_paced(cmd, script, env_pool, pause_after, secs=1.5, timeout=120):
    """Feed testpmd its commands, pausing after each start."""
    env = dict(os.environ)
    env.pop("RXREFILL_POOL", None)
    if env_pool is not None:
        env["RXREFILL_POOL"] = env_pool
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env, text=True,
                         errors="replace")
    import threading
    import time

    def feed():
        try:
            for line in script.splitlines(True):
                p.stdin.write(line)
                p.stdin.flush()
                time.sleep(secs if line == pause_after else 0.2)
            p.stdin.close()
        except (BrokenPipeError, ValueError):
            pass
    t = threading.Thread(target=feed)
    t.start()
    # Not communicate(): it would close stdin under the feeding thread.
    killer = threading.Timer(timeout, p.kill)
    killer.start()
    out = p.stdout.read()
    p.wait()
    timed_out = not killer.is_alive()
    killer.cancel()
    t.join()
    if timed_out:
        out += "\n(timed out after %ds)" % timeout
    return p.returncode, out


# --- perf ------------------------------------------------------------------

def perf_autotest(plugin, strategies):
    """mempool_perf_autotest's table: rxrefill ops and ring_mp_mc per row.

    The test measures the cacheless ring_mp_mc pool first, then a cacheless
    pool of the default ops (ours, by --mbuf-pool-ops-name), then pools
    with DPDK's own caches in front that never reach our ops. It is
    stopped once our section is complete: 5 s a row, 60 rows per lcore
    count, 1, 2 and all lcores, for each of the two pools: about 30
    minutes per strategy on two lcores.
    """
    dpdk_test = find_prog("dpdk-test")
    row = re.compile(r"mempool_autotest cache=(\d+) cores=(\d+) "
                     r"n_get_bulk=(\d+) n_put_bulk=(\d+) n_keep=(\d+) "
                     r"(?:constant_n=(\d+) )?rate_persec=(\d+)")
    status = 0
    for s in strategies:
        cmd = ["stdbuf", "-oL", dpdk_test, "-l", "0-1", "--no-pci",
               "--no-huge", "-m", "1024", "--file-prefix",
               prefix("perf" + s), "-d", plugin,
               "--mbuf-pool-ops-name", "rxrefill"]
        env = dict(os.environ, RXREFILL_POOL="strategy=" + s)
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             env=env, text=True, errors="replace")
        p.stdin.write("mempool_perf_autotest\n")
        p.stdin.flush()
        tables, cur, log = {}, None, []
        for ln in p.stdout:
            log.append(ln)
            if "start performance test" in ln:
                if "(without cache)" in ln and " for " not in ln:
                    cur = "ring_mp_mc"
                elif "for rxrefill" in ln:
                    cur = "rxrefill"
                else:
                    break   # DPDK's caches from here on: not our ops
            m = row.search(ln)
            if m and cur:
                g = m.groups()
                key = (int(g[1]), int(g[2]), int(g[3]), int(g[4]),
                       int(g[5] or 0))
                tables.setdefault(cur, {})[key] = int(g[6])
        p.terminate()
        try:
            p.stdin.close()
        except BrokenPipeError:
            pass
        p.wait()
        ring, ours = tables.get("ring_mp_mc", {}), tables.get("rxrefill", {})
        common = sorted(set(ring) & set(ours))
        if not common:
            print("# %s: no table to compare\n%s" % (s, tail("".join(log))))
            status = 1
            continue
        print("# strategy %s, cacheless pools of 2048-byte objects "
              "(rates in objects/s)" % s)
        print("# cores get put keep const   rxrefill_ops     ring_mp_mc  ratio")
        ratios = {}
        for k in common:
            r = ours[k] / ring[k] if ring[k] else float("nan")
            ratios.setdefault(k[0], []).append(r)
            print("# %5d %3d %3d %4d %5d %14d %14d %6.3f" %
                  (k + (ours[k], ring[k], r)))
        for cores, rs in sorted(ratios.items()):
            print("ratio: mempool_perf_%s_cores%d_over_ring_mp_mc %.3f "
                  "(median of %d rows, min %.3f, max %.3f)" %
                  (s, cores, statistics.median(rs), len(rs), min(rs),
                   max(rs)))
        sys.stdout.flush()
    return status


def perf_testpmd(plugin, strategies, reps=3, secs=4):
    """rxonly on net_null: Mpps with our ops over the default ops."""
    def mpps(ops, s):
        cmd = testpmd_cmd(plugin, "rx" + s, ["--no-huge", "-m", "512",
                          "--vdev", "net_null0"], ops,
                          ["-i", "--mbcache=0", "--total-num-mbufs=8192",
                           "--nb-cores=1", "--forward-mode=rxonly"])
        rc, out = run_paced(cmd, "start\nstop\nquit\n", "strategy=" + s,
                            "start\n", secs=secs)
        st = port_stats(out)
        if rc != 0 or 0 not in st:
            print("# testpmd failed (exit %d)\n%s" % (rc, tail(out)))
            return None
        return st[0][0] / secs / 1e6
    status = 0
    for s in strategies:
        ours, base = [], []
        for _ in range(reps):   # interleaved: the machine drifts
            a, b = mpps(True, s), mpps(False, s)
            if a is None or b is None:
                status = 1
                break
            ours.append(a)
            base.append(b)
        if not ours:
            continue
        rs = [a / b for a, b in zip(ours, base)]
        print("bench: testpmd_rxonly_rxrefill_%s.mpps %.2f Mpps" %
              (s, statistics.median(ours)))
        print("bench: testpmd_rxonly_default_beside_%s.mpps %.2f Mpps" %
              (s, statistics.median(base)))
        # The plain name is the plugin's default strategy (bh).
        name = "testpmd_rxrefill_ops_over_default" if s == "bh" else \
            "testpmd_rxrefill_%s_ops_over_default" % s
        print("ratio: %s.mpps %.3f (strategy %s, median of %d interleaved "
              "runs of %ds, min %.3f, max %.3f; --mbcache=0, net_null)" %
              (name, statistics.median(rs), s, len(rs), secs, min(rs),
               max(rs)))
    return status


def world_writable_dir(path):
    """The first directory above PATH that anyone may write, or None."""
    d = os.path.dirname(path)
    while True:
        if os.stat(d).st_mode & stat.S_IWOTH:
            return d
        if d == "/":
            return None
        d = os.path.dirname(d)


def loadable(plugin):
    """EAL refuses a plugin below a world-writable directory (a build
    tree under /tmp, say): load a private copy then."""
    bad = world_writable_dir(plugin)
    if bad is None:
        return plugin
    for base in ("/run", os.path.expanduser("~")):
        if os.path.isdir(base) and world_writable_dir(base + "/x") is None \
                and not os.stat(base).st_mode & stat.S_IWOTH:
            d = tempfile.mkdtemp(prefix="rxrefill-plugin-", dir=base)
            atexit.register(shutil.rmtree, d, True)
            copy = os.path.join(d, os.path.basename(plugin))
            shutil.copyfile(plugin, copy)
            os.chmod(copy, 0o644)
            print("# %s is world-writable, which EAL refuses for plugins: "
                  "loading a copy in %s" % (bad, d))
            return copy
    sys.exit("%s: below the world-writable %s, which EAL refuses for "
             "plugins, and no private directory to copy it to" % (plugin, bad))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, plugin = sys.argv[1], os.path.abspath(sys.argv[2])
    strategies = sys.argv[3:] or STRATEGIES
    if not os.path.exists(plugin):
        sys.exit("%s: no such plugin" % plugin)
    plugin = loadable(plugin)
    if mode == "autotest":
        return autotest(plugin)
    if mode == "testpmd":
        return testpmd(plugin)
    if mode == "perf-autotest":
        return perf_autotest(plugin, strategies)
    if mode == "perf-testpmd":
        return perf_testpmd(plugin, strategies)
    sys.exit("unknown mode %s\n%s" % (mode, __doc__))


if __name__ == "__main__":
    sys.exit(main())
