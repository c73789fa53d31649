# SPDX-License-Identifier: BSD-3-Clause
"""The TAP runner the application's test scripts share.

Every function named case_* of a script runs in name order; each is one
test point, "ok" with its time, "ok ... # SKIP reason" when it raised
Skip, or "not ok" with the failure's lines as comments. The other cases
still run.
"""

import os
import shutil
import signal
import sys
import time


class Skip(Exception):
    """A case that cannot run on this machine; the message says why."""


def run(namespace, only=(), tmp=None):
    """Run the case_* functions of NAMESPACE (those named in ONLY, when
    given); return the exit status: 1 when one failed. The directory TMP,
    when given, is removed at the end, whatever happened."""
    try:
        return run_cases(namespace, only)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def kill_children():
    """Kill what a failed case left running (a Popen whose wait timed
    out): it would hold its EAL file prefix and fail the next cases."""
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/children" % tid) as f:
                pids = [int(x) for x in f.read().split()]
        except OSError:
            continue
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def run_cases(namespace, only):
    cases = [(n[5:], f) for n, f in sorted(namespace.items())
             if n.startswith("case_") and callable(f)]
    n = failed = 0
    for name, fn in cases:
        if only and name not in only:
            continue
        n += 1
        t = time.time()
        try:
            fn()
            print("ok %d - %s (%.0f s)" % (n, name, time.time() - t))
        except Skip as e:
            print("ok %d - %s # SKIP %s" % (n, name, e))
        except Exception as e:  # report and go on
            failed += 1
            for line in str(e).splitlines() or [repr(e)]:
                print("# " + line)
            print("not ok %d - %s" % (n, name))
            kill_children()
        sys.stdout.flush()
    print("1..%d" % n)
    return 1 if failed else 0
