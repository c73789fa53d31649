# SPDX-License-Identifier: BSD-3-Clause
"""Whether hugepages are usable here, and 2 MiB hugepages reserved for one
test or benchmark, and given back.

With Hugepages, each program runs in a mount namespace of its own with a
hugetlbfs mount that reserves the pages (min_size): other processes on the
machine neither see the mount nor take its pages. Only the pages this
object added to the pool are given back, since others may change the count
meanwhile.
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


def _size_kb(text):
    """kB of a size as hugetlbfs shows it: "2M", "1024M", "1G", "64K",
    else bytes (as rxr_hugepage.c reads it); None when not a size."""
    mult = {"K": 1, "M": 1 << 10, "G": 1 << 20}
    unit = text[-1:].upper()
    num = text[:-1] if unit in mult else text
    if not num.isdigit():
        return None
    return int(num) * mult[unit] if unit in mult else int(num) >> 10


def mounted_sizes_kb(mounts="/proc/mounts", meminfo="/proc/meminfo"):
    """Page sizes (kB) of the hugetlbfs mounts: each one's pagesize=
    option, else the default size (Hugepagesize of meminfo), as EAL and
    rxr_hugepage_probe() read them."""
    default = None
    with open(meminfo) as f:
        for line in f:
            if line.startswith("Hugepagesize:"):
                default = int(line.split()[1])
    sizes = set()
    with open(mounts) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 4 or fields[2] != "hugetlbfs":
                continue
            kb = default
            for opt in fields[3].split(","):
                if opt.startswith("pagesize="):
                    kb = _size_kb(opt[len("pagesize="):])
            if kb:
                sizes.add(kb)
    return sizes


def usable(mounts="/proc/mounts", meminfo="/proc/meminfo",
           sysfs="/sys/kernel/mm/hugepages"):
    """Whether EAL can run on hugepages: a hugetlbfs is mounted for a page
    size that has free pages (free less those mounts reserved, as EAL
    counts them). A free 2 MiB page is no use with only a 1 GiB mount."""
    try:
        sizes = mounted_sizes_kb(mounts, meminfo)
    except (OSError, ValueError, IndexError):
        return False
    for kb in sizes:
        d = os.path.join(sysfs, "hugepages-%dkB" % kb)
        try:
            with open(os.path.join(d, "free_hugepages")) as f:
                free = int(f.read())
            with open(os.path.join(d, "resv_hugepages")) as f:
                free -= int(f.read())
        except (OSError, ValueError):
            continue
        if free > 0:
            return True
    return False


def ran_on(output):
    """The memory a program said it ran on ("memory: hugepages" of
    rxr_eal_init(), "# memory: ..." of test programs): "huge", "nohuge",
    or None when it did not say."""
    said = None
    for line in output.splitlines():
        line = line.lstrip("# ")
        if line == "memory: hugepages":
            said = "huge"
        elif line.startswith("memory: ordinary memory") or \
                line == "memory: no-huge":
            said = "nohuge"
    return said


def mislabelled(label, output):
    """Why figures labelled LABEL ("huge" or "nohuge") are not, from the
    program's OUTPUT; None when it said it ran on that memory."""
    said = ran_on(output)
    if said == label:
        return None
    return "labelled %s, but the program %s" % (
        label, "did not say which memory it ran on" if said is None else
        "ran on %s" % ("hugepages" if said == "huge" else
                       "ordinary memory (--no-huge)"))


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
