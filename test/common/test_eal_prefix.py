#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A test script leaves nothing of its EAL prefixes behind (TAP).

A child script marks a unique prefix as its own (eal_prefix.mine()) and
runs PROGRAM (rxrefill) with it, on hugepages when usable and without
--huge-unlink: EAL leaves the runtime directory /run/dpdk/<prefix> and the
hugepage map files, which the child checks are there. Once the child has
ended (normally, by an exception, by SIGTERM) nothing of the prefix may be
left. A test killed outright runs no exit handler: the start of the next
one (a C test's EAL start, EAL_START; a script's mine()) removes what
dead processes left of prefixes of its own name, and nothing of a live
one's. Only this test's own prefixes are looked at and removed.
Usage: test_eal_prefix.py PROGRAM EAL_START
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from eal_prefix import hugetlbfs_dirs, leftovers, remove, run_dir  # noqa: E402
from hugepages import usable  # noqa: E402

CHILD = r'''
import os, signal, subprocess, sys
sys.path.insert(0, sys.argv[1])
from eal_prefix import leftovers, mine
prog, prefix, huge, end = sys.argv[2:6]
cmd = [prog, "-l", "0-1", "--no-pci", "--file-prefix", mine(prefix),
       "--log-level", "lib.eal:error", "--vdev", "net_null0"]
if huge != "huge":
    cmd += ["--no-huge", "-m", "512"]
cmd += ["--", "--consumer", "none", "--strategy", "bh", "--reps", "1",
        "--duration", "0.2", "--warmup", "0", "--no-table",
        "--stats-period", "0"]
p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
print("# exit %d; left before the script ends: %s" % (
    p.returncode, " ".join(leftovers(prefix)) or "nothing"))
sys.stdout.flush()
if p.returncode != 0:
    print("# " + (p.stdout + p.stderr)[-1500:].replace("\n", "\n# "))
    sys.exit(3)
if end == "sigterm":
    os.kill(os.getpid(), signal.SIGTERM)
elif end == "exception":
    raise RuntimeError("the script fails")
'''


SWEEPER = r'''
import os, sys
sys.path.insert(0, sys.argv[1])
from eal_prefix import mine
mine("rxr_eal_sweep_%d" % os.getpid())
'''


def dead_pid():
    """The id of a process that has just ended (not reused so soon)."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def plant(paths):
    """Runtime directories (with a file, as EAL leaves them) and
    hugepage files, as a killed process leaves them."""
    for p in paths:
        if p.endswith("/"):
            os.makedirs(p, exist_ok=True)
            with open(os.path.join(p, "config"), "w") as f:
                f.write("x")
        else:
            open(p, "w").close()


def check_sweep(n, name, cmd, dead, live):
    plant(dead + live)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    left = [x for x in dead if os.path.exists(x)]
    lost = [x for x in live if not os.path.exists(x)]
    for x in dead + live:
        if os.path.isdir(x):
            shutil.rmtree(x, ignore_errors=True)
        elif os.path.exists(x):
            os.unlink(x)
    ok = p.returncode == 0 and not left and not lost
    if not ok:
        for line in (p.stdout + p.stderr).splitlines()[-10:] + [
                "exit %d" % p.returncode] + ["left: " + x for x in left] + [
                "removed though alive: " + x for x in lost]:
            print("# " + line)
    print("%s %d - %s" % ("ok" if ok else "not ok", n, name))
    return 0 if ok else 1


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    huge = "huge" if usable() else "nohuge"
    ends = (("normal exit", "normal", 0), ("SIGTERM", "sigterm", 128 + 15),
            ("exception", "exception", 1))
    failed = 0
    for n, (name, end, want_rc) in enumerate(ends, 1):
        prefix = "rxr_eal_prefix_%d_%d" % (os.getpid(), n)
        p = subprocess.run([sys.executable, "-c", CHILD, HERE, sys.argv[1],
                            prefix, huge, end],
                           capture_output=True, text=True, timeout=180)
        left = leftovers(prefix)
        remove(prefix)
        # The child had something to clean up (its check line), and
        # nothing of it is left.
        ok = p.returncode == want_rc and not left and \
            "left before the script ends: nothing" not in p.stdout
        if not ok:
            failed += 1
            for line in (p.stdout + p.stderr).splitlines()[-20:] + [
                    "exit %d (want %d)" % (p.returncode, want_rc)] + [
                    "left: " + x for x in left]:
                print("# " + line.lstrip("# "))
        print("%s %d - nothing of the prefix left after %s (%s)" % (
            "ok" if ok else "not ok", n, name, huge))
    # pid 1 is alive: its directories are kept.
    rd = run_dir()
    dead = dead_pid()
    failed += check_sweep(
        len(ends) + 1, "a C test's start removes dead tests' runtime directories",
        [sys.argv[2]],
        [os.path.join(rd, "rxrt_%d/" % dead)],
        [os.path.join(rd, "rxrt_1/")])
    dead = dead_pid()
    huge = [os.path.join(d, "rxr_eal_sweep_%dmap_0" % dead)
            for d in hugetlbfs_dirs()[:1]]
    failed += check_sweep(
        len(ends) + 2, "a script's mine() removes what dead scripts left of its name",
        [sys.executable, "-c", SWEEPER, HERE],
        [os.path.join(rd, "rxr_eal_sweep_%d/" % dead)] + huge,
        [os.path.join(rd, "rxr_eal_sweep_1/"),
         os.path.join(rd, "rxr_eal_sweep_x%d/" % dead)])
    print("1..%d" % (len(ends) + 2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
