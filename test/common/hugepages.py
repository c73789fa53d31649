# SPDX-License-Identifier: BSD-3-Clause
"""2 MiB hugepages reserved for one test or benchmark, and given back.

Each program runs in a mount namespace of its own with a hugetlbfs mount
that reserves the pages (min_size): other processes on the machine neither
see the mount nor take its pages. Only the pages this object added to the
pool are given back, since others may change the count meanwhile.
"""

import os
import shutil
import tempfile

NR = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"


def _read(name):
    with open(NR.replace("nr_hugepages", name)) as f:
        return int(f.read())


def free_pages():
    """Free 2 MiB pages no mount has reserved yet (free counts reserved);
    0 where the kernel has no 2 MiB pool."""
    try:
        return _read("free_hugepages") - _read("resv_hugepages")
    except OSError:
        return 0


class Hugepages:
    """with Hugepages(pages, eal_mb) as h: h.why is None, or why not.

    eal_mb is EAL's -m for programs run with h.eal() and h.wrap(cmd).
    """

    def __init__(self, pages, eal_mb, prefix="rxr_huge_"):
        self.pages = pages
        self.eal_mb = eal_mb
        self.prefix = prefix
        self.dir = None
        self.added = 0
        self.why = None

    def __enter__(self):
        try:
            if shutil.which("unshare") is None:
                self.why = "unshare (util-linux) not found"
                return self
            before = _read("nr_hugepages")
            free = free_pages()
            if free < self.pages:
                self.added = self.pages - free
                with open(NR, "w") as f:
                    f.write(str(before + self.added))
            if free_pages() < self.pages:
                self.why = "only %d free 2 MiB hugepages after asking for " \
                    "%d more" % (free_pages(), self.added)
                return self
            self.dir = tempfile.mkdtemp(prefix=self.prefix)
        except (OSError, ValueError) as e:
            self.why = "cannot reserve hugepages: %s" % e
        return self

    def eal(self):
        return ["--huge-dir", self.dir, "-m", str(self.eal_mb)]

    def wrap(self, cmd):
        """cmd inside its own mount namespace with the reserving mount."""
        return ["unshare", "--mount", "--propagation", "private", "sh",
                "-c", 'mount -t hugetlbfs -o pagesize=2M,min_size=%dM nodev '
                '"$0" && exec "$@"' % (2 * self.pages), self.dir] + cmd

    def __exit__(self, *exc):
        if self.dir is not None:
            os.rmdir(self.dir)
        if self.added:
            try:
                now = _read("nr_hugepages")
                with open(NR, "w") as f:
                    f.write(str(max(0, now - self.added)))
            except (OSError, ValueError) as e:
                print("# could not give the hugepages back: %s" % e)
        return False
