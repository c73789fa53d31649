#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A test program on hugepages leaves no hugepage file behind (TAP).

Runs PROGRAM (a unit test that starts EAL through rxr_test_eal_init(), on
hugepages when they are usable) and then looks in every hugetlbfs mount
for a file of its EAL prefix, rxrt_<pid>: EAL keeps its hugepage files
after the process ends unless told to unlink them, and tests with a prefix
of their own would leave a few MiB of hugepages each behind, run after run.
Skipped where no hugepage is free.
Usage: test_no_leftovers.py PROGRAM
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hugepages import free_pages  # noqa: E402


def hugetlbfs_dirs():
    with open("/proc/mounts") as f:
        return [l.split()[1] for l in f if l.split()[2] == "hugetlbfs"]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    print("1..1")
    dirs = hugetlbfs_dirs()
    if not dirs or free_pages() == 0:
        print("ok 1 - no leftover hugepage files # SKIP no free hugepages")
        return 0
    p = subprocess.Popen([sys.argv[1]], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out, _ = p.communicate(timeout=120)
    prefix = "rxrt_%d" % p.pid
    left = [os.path.join(d, n) for d in dirs for n in os.listdir(d)
            if n.startswith(prefix)]
    if p.returncode != 0 or "# memory: hugepages" not in out or left:
        print("not ok 1 - no leftover hugepage files")
        for line in (out.splitlines()[-20:] +
                     ["exit %d" % p.returncode] + ["left: " + x for x in left]):
            print("# " + line)
        for x in left:
            os.unlink(x)
        return 1
    print("ok 1 - no leftover hugepage files (%s ran on hugepages)" %
          os.path.basename(sys.argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
