#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""DPDK's own programs on rxrefill's mempool plugin (-d ... --mbuf-pool-ops-name).

  dpdk_plugin.py autotest PLUGIN [STRATEGY...]
                                    mempool_autotest and mbuf_autotest of
                                    Debian's dpdk-test, every strategy with
                                    every zeroing policy (zero=), on 4 KiB
                                    pages and on hugepages (TAP)
  dpdk_plugin.py testpmd PLUGIN [STRATEGY...]
                                    dpdk-testpmd io forwarding, mbufs freed
                                    on another lcore than the one that
                                    allocated them, every strategy, bulk
                                    on and off, every zero= policy; every
                                    frame home at exit (TAP)
  dpdk_plugin.py perf-autotest-quick PLUGIN SHIM [STRATEGY...]
        [--memory nohuge|huge|both] [--time-scale N]
                                    mempool_perf_autotest to its end, rows
                                    of 5/N s (N=1000) through the timer shim
                                    SHIM (librxr_tsc_scale.so); Test OK,
                                    every row of our ops, every frame of
                                    its pool home at the end (TAP)
  dpdk_plugin.py perf-autotest PLUGIN [STRATEGY...]
        [--memory nohuge|huge|both] [--time-scale N --shim SHIM]
                                    mempool_perf_autotest to its end (an
                                    hour a run at full length): our ops
                                    against ring_mp_mc from the same table
  dpdk_plugin.py mbuf-repeat PLUGIN [RUNS [POOL]]
                                    mbuf_autotest RUNS times (default
                                    2000) on --no-huge -m 512 with
                                    RXREFILL_POOL=POOL (default
                                    strategy=recycle,zero=free): no abort,
                                    Test OK in every run (TAP, one line)
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
from hugepages import Hugepages  # noqa: E402
from eal_prefix import mine  # noqa: E402



def registry_strategies():
    """The strategies offered to users, from the registry
    (lib/strategy/rxr_strategy_list.h): every line but the test-only
    last."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "lib", "strategy", "rxr_strategy_list.h")
    with open(path) as f:
        names = re.findall(r"^RXR_STRATEGY\(\w+,\s*(\w+)\)", f.read(), re.M)
    return names[:-1]


STRATEGIES = registry_strategies()
ZERO_POLICIES = ["none", "alloc", "free", "background"]
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
    return mine("rxrplg_%s_%d" % (tag, os.getpid()))


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


def unavailable(out):
    """The plugin's reason when the strategy cannot run here (rseq without
    glibc's registration, another architecture), else None."""
    m = re.search(r"strategy=\S+: not available here: (.*)", out)
    return m.group(1).strip() if m else None


def tap_run(ok, name, diag, out):
    """tap(), or a skip with the reason when the strategy cannot run here."""
    why = unavailable(out)
    if why is not None:
        globals()["tap_n"] += 1
        print("ok %d - %s # SKIP %s" % (tap_n, name, why))
        return
    tap(ok, name, diag)


def tail(out, n=25):
    lines = [ln for ln in out.splitlines()
             if not re.match(r"^[0-9A-F]{8}: ", ln)]  # hex dumps
    return "\n".join(lines[-n:])


def memories():
    """(name, EAL memory arguments or None with the reason to skip,
    command wrapper)."""
    yield "4 KiB pages", ["--no-huge", "-m", "1024"], None, lambda c: c
    with Hugepages(HUGE_PAGES, 256, "rxrplg_huge_") as h:
        if h.why is not None:
            yield "hugepages", None, h.why, None
        else:
            yield "hugepages", h.eal(), None, h.wrap


def not_home(out):
    """Pool-free lines of pools that lost frames. What DPDK's per-lcore
    caches hold is counted apart ("all N frames are home but the M in
    the mempool's per-lcore caches"), so any "not home" is a leak."""
    return [ln for ln in out.splitlines() if "frames are not home" in ln]


# --- dpdk-test -------------------------------------------------------------

def autotest(plugin, strategies):
    dpdk_test = find_prog("dpdk-test")
    for mem, eal_mem, why, wrap in memories():
        for s in strategies:
            for z in ZERO_POLICIES:
                for t in ["mempool_autotest", "mbuf_autotest"]:
                    autotest_one(dpdk_test, plugin, t, s, z, mem, eal_mem,
                                 why, wrap)
    print("1..%d" % tap_n)
    return 1 if tap_failed else 0


def autotest_one(dpdk_test, plugin, t, s, z, mem, eal_mem, why, wrap):
    name = "%s, %s, zero=%s, %s" % (t, s, z, mem)
    if eal_mem is None:
        print("ok %d - %s # SKIP %s" % (tap_n + 1, name, why))
        globals()["tap_n"] += 1
        return
    cmd = [dpdk_test, "-l", "0-1", "--no-pci", "--file-prefix",
           prefix(s), "-d", plugin, "--mbuf-pool-ops-name",
           "rxrefill"] + eal_mem
    rc, out = run(wrap(cmd), t + "\n", "strategy=%s,zero=%s" % (s, z), 240)
    # The policy asked for was applied to the pools with a data room.
    ours = re.search(r"rxrefill strategy=%s .*zero=%s " % (s, z),
                     out) is not None
    # Not the pools' ends in general: DPDK's tests free some pools while
    # they still hold mbufs (test_nb_segs_and_next_reset), and mbufs may
    # sit in the per-lcore caches. A zeroing that cleared the mbuf headers
    # of the pinned external-buffer pool lost every one of its frames.
    lost = [m.group(0) for m in re.finditer(
        r"test_pinned_pool: (\d+) of (\d+) frames are not home", out)
        if m.group(1) == m.group(2)]
    ok = rc == 0 and "Test OK" in out and ours and not lost
    tap_run(ok, name, "" if ok else "exit %d, ops used with zero=%s: %s\n%s"
            % (rc, z, ours, "\n".join(lost + [tail(out)])), out)


def mbuf_repeat(plugin, runs, pool):
    """mbuf_autotest over and over: its refcnt test allocates every mbuf
    of a 64-mbuf pool on one lcore while the other frees them."""
    dpdk_test = find_prog("dpdk-test")
    cmd = [dpdk_test, "-l", "0-1", "--no-pci", "--file-prefix",
           prefix("mbufrep"), "-d", plugin, "--mbuf-pool-ops-name",
           "rxrefill", "--no-huge", "-m", "512"]
    bad = []
    for i in range(runs):
        rc, out = run(cmd, "mbuf_autotest\n", pool, 240)
        if rc != 0 or "Test OK" not in out:
            bad.append("run %d: exit %d\n%s" % (i + 1, rc, tail(out, 8)))
    tap(not bad, "mbuf_autotest, %s, %d runs: %d failed" %
        (pool, runs, len(bad)), "\n".join(bad[:3]))
    print("1..%d" % tap_n)
    return 1 if bad else 0


# --- testpmd ---------------------------------------------------------------

def testpmd_cmd(plugin, tag, extra_eal, ops, args):
    cmd = [find_prog("dpdk-testpmd"), "--lcores", LCORES, "--no-pci",
           "--file-prefix", prefix(tag)] + extra_eal
    if ops:
        # The driver says at debug level that every frame came home.
        cmd += ["-d", plugin, "--mbuf-pool-ops-name", "rxrefill",
                "--log-level", "rxrefill:debug"]
    return cmd + ["--"] + args


def port_stats(out):
    """{port: (rx, tx)} of the last forward statistics printed."""
    st = {}
    for m in re.finditer(r"Forward statistics for port (\d+)\s+-+\s+"
                         r"RX-packets: (\d+).*?\n\s+TX-packets: (\d+)",
                         out, re.S):
        st[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    return st


def testpmd(plugin, strategies):
    # Port 0 (net_null) receives into fresh mbufs on lcore 1, which sends
    # them into port 1's ring; lcore 2 takes them off the ring and port 0's
    # transmit frees them there. rxonly at the end empties the ring.
    script = "start\nstop\nset fwd rxonly\nstart\nstop\nquit\n"
    nmbufs = 4096
    # Every strategy with bulk on and off, and with each zeroing policy.
    confs = [(s, "bulk=%s" % b) for s in strategies for b in ["on", "off"]]
    confs += [(s, "zero=%s" % z) for s in strategies
              for z in ZERO_POLICIES if z != "none"]
    # A strategy's own setting (recycle's ring), shown on the line too.
    confs += [(s, "recycle.ring=64") for s in strategies if s == "recycle"]
    for s, more in confs:
        conf = "strategy=%s,%s" % (s, more)
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
        # The settings line shows what was asked: bulk=..., zero=... or
        # STRATEGY.NAME=...
        ours = re.search(r"rxrefill strategy=%s [^\n]*%s[ ,]" % (s, more),
                         out) is not None
        ok = rc == 0 and crossed and home and not not_home(out) and ours
        tap_run(ok, "testpmd io, frees on the other lcore, %s" % conf,
                "ports (rx, tx): %s, whole at exit: %s, exit %d" %
                (st, home, rc) + ("" if ok else "\n" + tail(out)), out)
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

# mempool_perf_autotest's constants (DPDK 22.11, app/test/test_mempool_perf.c):
# each lcore repeats N gets and puts until TIME_S seconds have passed, and
# a row's rate is the sum over lcores of its count divided by TIME_S.
PERF_N = 65536
PERF_TIME_S = 5
PERF_ROW = re.compile(r"mempool_autotest cache=(\d+) cores=(\d+) "
                      r"n_get_bulk=(\d+) n_put_bulk=(\d+) n_keep=(\d+) "
                      r"(?:constant_n=(\d+) )?rate_persec=(\d+)")
QUICK_SCALE = 1000  # 5 ms rows: 5 to 10 s a run on two busy CPUs
MEMORY_MODES = {"nohuge": "4 KiB pages", "huge": "hugepages"}


def perf_section(line):
    """The section a "start performance test" line opens."""
    m = re.search(r"start performance test (?:for (\S+) )?\((.*)\)", line)
    if m is None:
        return None
    if m.group(1):
        return "ops:" + m.group(1)   # the --mbuf-pool-ops-name pool
    return {"without cache": "ring_mp_mc", "with cache": "cache",
            "with user-owned cache": "user_cache"}.get(m.group(2),
                                                      m.group(2))


def perf_tables(out):
    """{section: [pass, ...]}, a pass being the {(get, put, keep, const):
    (cores, rate)} of one lcore count (1, 2, then all lcores)."""
    tables, cur = {}, None
    for ln in out.splitlines():
        sec = perf_section(ln)
        if sec is not None:
            cur = tables.setdefault(sec, [])
            continue
        m = PERF_ROW.search(ln)
        if m is None or cur is None:
            continue
        g = [int(x or 0) for x in m.groups()]
        key = (g[2], g[3], g[4], g[5])
        # A pass is the full table of bulk sizes: it starts over at the
        # first row again, or when the lcore count changes.
        if not cur or key in cur[-1] or \
                next(iter(cur[-1].values()))[0] != g[1]:
            cur.append({})
        cur[-1][key] = (g[1], g[6])
    return tables


def perf_cmd(plugin, strategy, eal_mem, shim, scale):
    cmd = [find_prog("dpdk-test"), "-l", "0-1", "--no-pci", "--file-prefix",
           prefix("perf" + strategy), "-d", plugin,
           "--mbuf-pool-ops-name", "rxrefill",
           "--log-level", "rxrefill:debug"] + eal_mem
    # Line-buffered: the driver's messages land between whole lines.
    cmd = ["stdbuf", "-oL"] + cmd
    if scale != 1:
        cmd = ["env", "LD_PRELOAD=" + shim, "RXR_TSC_SCALE=%d" % scale] + cmd
    return cmd


def perf_run(cmd, strategy, timeout, progress):
    """Run mempool_perf_autotest to its end: (exit status, output,
    seconds)."""
    import threading
    import time
    env = dict(os.environ, RXREFILL_POOL="strategy=" + strategy)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env, text=True,
                         errors="replace")
    killer = threading.Timer(timeout, p.kill)
    killer.start()
    try:
        # dpdk-test runs the command, then quits at the end of its input.
        p.stdin.write("mempool_perf_autotest\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    log = []
    for ln in p.stdout:
        log.append(ln)
        if progress and "start performance test" in ln:
            print("# %5.0fs %s" % (time.monotonic() - t0, ln.strip()))
            sys.stdout.flush()
    p.wait()
    timed_out = not killer.is_alive()
    killer.cancel()
    out = "".join(log)
    if timed_out:
        out += "\n(timed out after %ds)" % timeout
    return p.returncode, out, time.monotonic() - t0


def perf_timeout(scale):
    # 720 rows (12 passes of 60) of TIME_S/scale s, slack for slow rows.
    return int(720 * PERF_TIME_S / scale * 1.5) + 300


def pool_size(out, name):
    """The size of a pool in rte_mempool_list_dump()'s output."""
    m = re.search(r"mempool <%s>@\S+\n(?:\s+\S.*\n)*?\s+size=(\d+)" %
                  re.escape(name), out)
    return int(m.group(1)) if m else None


def perf_check(out, strategy):
    """Whatever is wrong with a run that should have ended in Test OK."""
    why = []
    if "Test OK" not in out:
        why.append("no Test OK")
    if not re.search(r"default_pool: rxrefill strategy=%s " % strategy, out):
        why.append("default_pool did not use rxrefill strategy=%s" %
                   strategy)
    tables = perf_tables(out)
    ring, ours = tables.get("ring_mp_mc", []), tables.get("ops:rxrefill", [])
    if len(ours) != 3 or len(ring) != 3:
        why.append("passes (1, 2, all lcores): ring_mp_mc %d, rxrefill %d"
                   % (len(ring), len(ours)))
    for i, (r, o) in enumerate(zip(ring, ours)):
        if set(r) != set(o):
            why.append("rxrefill pass %d has %d rows, ring_mp_mc %d" %
                       (i + 1, len(o), len(r)))
        for k, (cores, rate) in sorted(o.items()):
            # Every lcore completes at least one round of N objects.
            if rate < cores * (PERF_N // PERF_TIME_S):
                why.append("rxrefill row %s cores=%d: rate %d is below "
                           "one round per lcore" % (k, cores, rate))
    size = pool_size(out, "default_pool")
    if size is None:
        why.append("no default_pool in the mempool list dump")
    elif not re.search(r"default_pool: all %d frames are home" % size, out):
        why.append("default_pool: no \"all %d frames are home\" at its "
                   "free" % size)
    why += not_home(out)
    return why, tables


def min_rounds(passes):
    """The fewest rounds of N objects an lcore made in any row."""
    return min((rate // (PERF_N // PERF_TIME_S) // cores
                for p in passes for cores, rate in p.values()), default=0)


def perf_memories(modes):
    """memories(), keeping the modes asked for: (tag, name, EAL memory
    arguments or None, reason to skip, wrapper)."""
    for name, eal_mem, why, wrap in memories():
        tag = [t for t, n in MEMORY_MODES.items() if n == name][0]
        if tag in modes:
            yield tag, name, eal_mem, why, wrap


def perf_checked(plugin, shim, strategy, eal_mem, wrap, scale, progress):
    """One mempool_perf_autotest run, checked: (what is wrong, a non-zero
    exit first; the tables; the output; seconds)."""
    rc, out, secs = perf_run(wrap(perf_cmd(plugin, strategy, eal_mem, shim,
                                           scale)),
                             strategy, perf_timeout(scale), progress)
    bad, tables = perf_check(out, strategy)
    if rc != 0:
        bad.insert(0, "exit %d" % rc)
    return bad, tables, out, secs


def perf_autotest_quick(plugin, shim, strategies, modes, scale):
    """mempool_perf_autotest to its end with rows of TIME_S/scale s."""
    for tag, mem, eal_mem, why, wrap in perf_memories(modes):
        for s in strategies:
            name = "mempool_perf_autotest, %s, %s, rows of %g ms" % \
                (s, mem, 1000.0 * PERF_TIME_S / scale)
            if eal_mem is None:
                print("ok %d - %s # SKIP %s" % (tap_n + 1, name, why))
                globals()["tap_n"] += 1
                continue
            bad, tables, out, secs = perf_checked(plugin, shim, s, eal_mem,
                                                  wrap, scale, False)
            ours = tables.get("ops:rxrefill", [])
            tap_run(not bad, name, "%.1f s, %d rxrefill rows, fewest "
                    "rounds of %d per lcore in a row: %d" %
                    (secs, sum(len(p) for p in ours), PERF_N,
                     min_rounds(ours)) +
                    ("" if not bad else "\n" + "\n".join(bad[:10]) + "\n" +
                     tail(out)), out)
    print("1..%d" % tap_n)
    return 1 if tap_failed else 0


def perf_autotest(plugin, shim, strategies, modes, scale):
    """mempool_perf_autotest's table: rxrefill ops and ring_mp_mc per row.

    The test measures the cacheless ring_mp_mc pool first, then a cacheless
    pool of the default ops (ours, by --mbuf-pool-ops-name), then pools
    with DPDK's own caches in front that never reach our ops, and frees its
    pools through their ops at the end. 720 rows of 5 s: about an hour per
    strategy and memory mode, unless scaled (--time-scale).
    """
    status = 0
    for tag, mem, eal_mem, why, wrap in perf_memories(modes):
        for s in strategies:
            if eal_mem is None:
                print("# %s, %s: skipped: %s" % (s, mem, why))
                continue
            print("# mempool_perf_autotest, strategy %s, %s, rows of %g s "
                  "(time scale %d)" % (s, mem, PERF_TIME_S / scale, scale))
            sys.stdout.flush()
            bad, tables, out, secs = perf_checked(plugin, shim, s, eal_mem,
                                                  wrap, scale, True)
            print("# %s after %.0f s%s" % ("Test OK" if not bad else "FAILED",
                  secs, "" if not bad else ": " + "; ".join(bad[:5])))
            if bad:
                print(tail(out))
                status = 1
            ring = tables.get("ring_mp_mc", [])
            ours = tables.get("ops:rxrefill", [])
            if not ours or not ring:
                continue
            # A scaled row counts over 1/scale of the time the test
            # divides by: its printed rate times the scale is the rate.
            print("# cacheless pools of 2048-byte objects, objects/s%s" %
                  ("" if scale == 1 else
                   " (the printed rates times the time scale, %d)" % scale))
            print("# cores get put keep const   rxrefill_ops     "
                  "ring_mp_mc  ratio")
            for i, (r, o) in enumerate(zip(ring, ours)):
                rs = []
                for k in sorted(set(r) & set(o)):
                    cores, a = o[k]
                    b = r[k][1]
                    rs.append(a / b if b else float("nan"))
                    print("# %5d %3d %3d %4d %5d %14d %14d %6.3f" %
                          ((cores,) + k + (a * scale, b * scale, rs[-1])))
                if not rs:
                    continue
                # The third pass is all lcores (2 here, as is the second).
                label = "cores%d" % cores if i < 2 else "coresmax"
                print("ratio: mempool_perf_%s_%s_over_ring_mp_mc_%s %.3f "
                      "(median of %d rows, min %.3f, max %.3f; %d lcores%s)"
                      % (s, label, tag, statistics.median(rs), len(rs),
                         min(rs), max(rs), cores,
                         "" if scale == 1 else
                         "; time scale %d: rows of %g ms" %
                         (scale, 1000.0 * PERF_TIME_S / scale)))
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


def perf_args(mode, argv):
    import argparse
    ap = argparse.ArgumentParser(prog="dpdk_plugin.py " + mode)
    ap.add_argument("plugin")
    if mode == "perf-autotest-quick":
        ap.add_argument("shim")
    ap.add_argument("strategies", nargs="*", metavar="STRATEGY",
                    help=", ".join(STRATEGIES) + " (default: all)")
    ap.add_argument("--memory", choices=["nohuge", "huge", "both"],
                    default="both")
    ap.add_argument("--time-scale", type=int, metavar="N",
                    default=QUICK_SCALE if mode == "perf-autotest-quick"
                    else 1,
                    help="rows of 5/N s, through the timer shim")
    if mode == "perf-autotest":
        ap.add_argument("--shim", help="the timer shim, for --time-scale")
    a = ap.parse_args(argv)
    for st in a.strategies:
        if st not in STRATEGIES:
            ap.error("%s: not a strategy (%s)" % (st, ", ".join(STRATEGIES)))
    a.strategies = a.strategies or STRATEGIES
    if a.time_scale < 1:
        ap.error("--time-scale must be at least 1")
    if a.time_scale != 1 and not a.shim:
        ap.error("--time-scale needs --shim (librxr_tsc_scale.so)")
    if a.shim:
        a.shim = os.path.abspath(a.shim)
        if not os.path.exists(a.shim):
            ap.error("%s: no such shim" % a.shim)
        if not os.path.isfile(a.shim):
            ap.error("%s: the shim is not a regular file" % a.shim)
    a.modes = ["nohuge", "huge"] if a.memory == "both" else [a.memory]
    return a


MODES = ("autotest", "testpmd", "mbuf-repeat", "perf-autotest-quick",
         "perf-autotest", "perf-testpmd")


def usage_error(msg):
    """Bad usage: said before any program runs, exit 2."""
    print("dpdk_plugin.py: %s" % msg, file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in MODES:
        print(__doc__, file=sys.stderr)
        if len(sys.argv) >= 2 and sys.argv[1] not in MODES:
            usage_error("unknown mode %s (%s)" % (sys.argv[1],
                                                  ", ".join(MODES)))
        sys.exit(2)
    mode = sys.argv[1]
    if mode in ("perf-autotest", "perf-autotest-quick"):
        a = perf_args(mode, sys.argv[2:])
        plugin = a.plugin
        strategies = a.strategies
    elif mode == "mbuf-repeat":
        plugin = sys.argv[2]
        runs = sys.argv[3] if len(sys.argv) > 3 else "2000"
        pool = sys.argv[4] if len(sys.argv) > 4 else \
            "strategy=recycle,zero=free"
        if not runs.isdigit() or int(runs) == 0:
            usage_error("RUNS: a whole number above 0, not '%s'" % runs)
    else:
        plugin = sys.argv[2]
        strategies = sys.argv[3:] or STRATEGIES
        # Every run of an unknown name failed, 64 of them for autotest.
        for st in strategies:
            if st not in STRATEGIES:
                usage_error("%s: not a strategy (%s)" % (
                    st, ", ".join(STRATEGIES)))
    plugin = os.path.abspath(plugin)
    if not os.path.exists(plugin):
        sys.exit("%s: no such plugin" % plugin)
    # EAL's -d DIR loads every .so in DIR.
    if not os.path.isfile(plugin):
        usage_error("%s: the plugin is not a regular file" % plugin)
    plugin = loadable(plugin)
    if mode == "autotest":
        return autotest(plugin, strategies)
    if mode == "testpmd":
        return testpmd(plugin, strategies)
    if mode == "mbuf-repeat":
        return mbuf_repeat(plugin, int(runs), pool)
    if mode == "perf-autotest-quick":
        return perf_autotest_quick(plugin, a.shim, strategies, a.modes,
                                   a.time_scale)
    if mode == "perf-autotest":
        return perf_autotest(plugin, a.shim, strategies, a.modes,
                             a.time_scale)
    return perf_testpmd(plugin, strategies)


if __name__ == "__main__":
    sys.exit(main())
