#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A test program leaves nothing of its EAL prefix behind (TAP).

Runs PROGRAM (a unit test that starts EAL through rxr_test_eal_init(), on
hugepages when they are usable) and then looks for what its EAL prefix,
rxrt_<pid>, left: a file in a hugetlbfs mount (EAL keeps them after the
process ends unless told to unlink them: a few MiB of hugepages per test,
run after run) and its runtime directory /run/dpdk/rxrt_<pid> (DPDK 22.11
keeps it: one per test run, thousands on a CI machine). The hugepage half
is skipped where hugepages are not usable.
Usage: test_no_leftovers.py PROGRAM
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eal_prefix import leftovers, remove  # noqa: E402
from hugepages import usable  # noqa: E402


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    print("1..2")
    huge = usable()
    p = subprocess.Popen([sys.argv[1]], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out, _ = p.communicate(timeout=120)
    prefix = "rxrt_%d" % p.pid
    left = leftovers(prefix)
    dirs = [x for x in left if os.path.isdir(x)]
    files = [x for x in left if x not in dirs]
    # The prefix holds the test's pid: what it left is the test's own.
    remove(prefix)
    lines = ["# " + line for line in out.splitlines()[-20:] +
             ["exit %d" % p.returncode] + ["left: " + x for x in left]]
    rc = 0
    if not huge:
        print("ok 1 - no leftover hugepage files # SKIP no usable hugepages")
    elif p.returncode != 0 or "# memory: hugepages" not in out or files:
        print("\n".join(lines))
        print("not ok 1 - no leftover hugepage files")
        rc = 1
    else:
        print("ok 1 - no leftover hugepage files (%s ran on hugepages)" %
              os.path.basename(sys.argv[1]))
    if p.returncode != 0 or dirs:
        if rc == 0:
            print("\n".join(lines))
        print("not ok 2 - no leftover runtime directory")
        return 1
    print("ok 2 - no leftover runtime directory")
    return rc


if __name__ == "__main__":
    sys.exit(main())
