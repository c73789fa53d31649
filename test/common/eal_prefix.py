# SPDX-License-Identifier: BSD-3-Clause
"""What EAL leaves of a file prefix, and its removal for a script's own.

A primary process keeps its runtime directory (/run/dpdk/<prefix>; DPDK
22.11 never removes it, rte_eal_cleanup() neither) and, without
--huge-unlink, its hugepage files <prefix>map_<n> in the hugetlbfs mount.
A test script names each prefix it gives EAL through mine() (or a family
of numbered ones through mine_family()); what they left is removed when
the script ends: normally, by an exception, or by SIGTERM (meson's
timeout) or SIGINT. Prefixes of other processes are never touched.
"""

import atexit
import os
import re
import shutil
import signal
import sys

_mine = set()
_families = set()


def run_dir():
    """The directory of EAL's runtime directories, as EAL chooses it."""
    if os.getuid() == 0:
        return "/run/dpdk"
    return os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")


def hugetlbfs_dirs(mounts="/proc/mounts"):
    try:
        with open(mounts) as f:
            return [l.split()[1] for l in f
                    if len(l.split()) > 2 and l.split()[2] == "hugetlbfs"]
    except OSError:
        return []


def _names(d, match):
    try:
        return [os.path.join(d, n) for n in sorted(os.listdir(d)) if match(n)]
    except OSError:
        return []


def leftovers(prefix, numbered=False):
    """Paths EAL left of PREFIX: its runtime directory and its hugepage
    files in every hugetlbfs mount. NUMBERED: of every prefix PREFIX<n>."""
    name = re.escape(prefix) + (r"\d+" if numbered else "")
    own = re.compile(name + "$").match
    huge = re.compile(name + r"map_\d+$").match
    found = _names(run_dir(), own)
    for d in hugetlbfs_dirs():
        found += _names(d, huge)
    return found


def _remove_path(p):
    """A runtime directory (its files too) or a hugepage file."""
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p, ignore_errors=True)
    else:
        try:
            os.unlink(p)
        except OSError:
            pass


def remove(prefix, numbered=False):
    """Remove what EAL left of PREFIX (see leftovers()); the paths."""
    paths = leftovers(prefix, numbered)
    for p in paths:
        _remove_path(p)
    return paths


def remove_mine():
    for p in sorted(_mine):
        remove(p)
    for p in sorted(_families):
        remove(p, numbered=True)


def _on_signal(sig, frame):
    # SystemExit runs the atexit handlers; the default action would not.
    sys.exit(128 + sig)


def _register():
    if _mine or _families:
        return
    atexit.register(remove_mine)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _on_signal)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def sweep_dead(prefix, numbered=False):
    """A script killed by SIGKILL (or a crash of the interpreter) runs no
    exit handler: what EAL left of the prefixes of the same name as PREFIX
    but another process id, whose process is gone, is removed. PREFIX
    names this process's id (as "rxr_host_<pid>" does) or nothing is
    done. The paths removed."""
    pid = str(os.getpid())
    m = re.match(r"(.*?\D|)%s(\D.*|)$" % pid, prefix)
    if m is None:
        return []
    name = re.escape(m.group(1)) + r"(\d+)" + re.escape(m.group(2)) + \
        (r"\d+" if numbered else "")
    dead = re.compile(name + r"(map_\d+)?$")
    gone = []
    for d in [run_dir()] + hugetlbfs_dirs():
        for p in _names(d, dead.match):
            other = int(dead.match(os.path.basename(p)).group(1))
            if other != os.getpid() and not _alive(other):
                gone.append(p)
                _remove_path(p)
    return gone


def mine(prefix):
    """PREFIX, a file prefix of this script's own: removed at exit (and
    those of dead processes of the same name, sweep_dead())."""
    _register()
    _mine.add(prefix)
    sweep_dead(prefix)
    return prefix


def mine_family(stem):
    """STEM, whose every numbered prefix STEM<n> is this script's own (a
    shell's $$, a counter): all removed at exit (and those of dead
    processes of the same name, sweep_dead())."""
    _register()
    _families.add(stem)
    sweep_dead(stem, numbered=True)
    return stem
