#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A test script leaves nothing of its EAL prefixes behind (TAP).

A child script marks a unique prefix as its own (eal_prefix.mine()) and
runs PROGRAM (rxrefill) with it, on hugepages when usable and without
--huge-unlink: EAL leaves the runtime directory /run/dpdk/<prefix> and the
hugepage map files, which the child checks are there. Once the child has
ended (normally, by an exception, by SIGTERM) nothing of the prefix may be
left. Only this test's own prefixes are looked at and removed.
Usage: test_eal_prefix.py PROGRAM
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from eal_prefix import leftovers, remove  # noqa: E402
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


def main():
    if len(sys.argv) != 2:
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
    print("1..%d" % len(ends))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
