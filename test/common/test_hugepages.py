#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""hugepages.py on fixture /proc/mounts, /proc/meminfo and sysfs (TAP).

usable() takes a mount for the page size it serves: free 2 MiB pages are
no use to EAL with only a 1 GiB-page hugetlbfs mounted. mislabelled()
says when a program's own "memory:" line contradicts a figure's label.
Usage: test_hugepages.py
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hugepages import mislabelled, usable  # noqa: E402

HUGE_2M = "nodev /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n"
HUGE_1G = "none /mnt/x hugetlbfs rw,relatime,pagesize=1024M 0 0\n"
HUGE_DEFAULT = "hugetlbfs /dev/hugepages hugetlbfs rw,relatime 0 0\n"
OTHER = "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"


def fixture(tmp, mounts, default_kb, free):
    """Files for usable(): FREE maps a page size (kB) to (free, resv)."""
    d = tempfile.mkdtemp(dir=tmp)
    with open(os.path.join(d, "mounts"), "w") as f:
        f.write(OTHER + mounts)
    with open(os.path.join(d, "meminfo"), "w") as f:
        f.write("HugePages_Total:    0\nHugepagesize:    %d kB\n" % default_kb)
    for kb, (nfree, resv) in free.items():
        h = os.path.join(d, "sysfs", "hugepages-%dkB" % kb)
        os.makedirs(h)
        for name, v in (("free_hugepages", nfree), ("resv_hugepages", resv)):
            with open(os.path.join(h, name), "w") as f:
                f.write("%d\n" % v)
    return (os.path.join(d, "mounts"), os.path.join(d, "meminfo"),
            os.path.join(d, "sysfs"))


CASES = [
    # name, mounts, default page kB, {kB: (free, resv)}, usable
    ("2M mount, free 2M pages", HUGE_2M, 2048,
     {2048: (8, 0), 1048576: (0, 0)}, True),
    ("only a 1G mount, free 2M pages", HUGE_1G, 2048,
     {2048: (8, 0), 1048576: (0, 0)}, False),
    ("2M mount, no free 2M page", HUGE_2M, 2048,
     {2048: (0, 0), 1048576: (0, 0)}, False),
    ("mount without pagesize=, default 2M, free 2M pages", HUGE_DEFAULT,
     2048, {2048: (8, 0), 1048576: (0, 0)}, True),
    ("mount without pagesize=, default 1G, free 2M pages only",
     HUGE_DEFAULT, 1048576, {2048: (8, 0), 1048576: (0, 0)}, False),
    ("1G mount, free 1G pages", HUGE_1G, 2048,
     {2048: (0, 0), 1048576: (2, 0)}, True),
    ("2M mount, every free page reserved by a mount", HUGE_2M, 2048,
     {2048: (8, 8)}, False),
    ("no hugetlbfs mounted, free 2M pages", "", 2048, {2048: (8, 0)}, False),
    ("2M mount, no 2M pool in sysfs", HUGE_2M, 2048, {}, False),
]

RXREFILL_HUGE = "memory: hugepages\nrxrefill: 1 port(s), memory hugepages\n"
RXREFILL_FALLBACK = ("memory: no usable hugepages (hugetlbfs mounted for 1 GiB"
                     " pages, 8 x 2 MiB and 0 x 1 GiB free): falling back to "
                     "--no-huge -m 2048 MiB\n"
                     "memory: ordinary memory (--no-huge)\n")
LABELS = [
    # label, output, mislabelled
    ("huge", RXREFILL_HUGE, False),
    ("huge", RXREFILL_FALLBACK, True),
    ("nohuge", RXREFILL_FALLBACK, False),
    ("nohuge", RXREFILL_HUGE, True),
    ("huge", "# memory: hugepages\n", False),
    ("huge", "# memory: no-huge\n", True),
    ("huge", "no statement at all\n", True),
]


def main():
    tmp = tempfile.mkdtemp(prefix="rxr_test_hp_")
    n = failed = 0
    try:
        for name, mounts, default_kb, free, want in CASES:
            n += 1
            got = usable(*fixture(tmp, mounts, default_kb, free))
            ok = got == want
            failed += not ok
            print("%s %d - usable: %s -> %s%s" % (
                "ok" if ok else "not ok", n, name, want,
                "" if ok else " (got %s)" % got))
        for label, out, want in LABELS:
            n += 1
            why = mislabelled(label, out)
            ok = (why is not None) == want
            failed += not ok
            print("%s %d - mislabelled: %s, %r -> %s%s" % (
                "ok" if ok else "not ok", n, label,
                out.splitlines()[-1], want, "" if ok else " (got %r)" % why))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
