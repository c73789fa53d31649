#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpdk_plugin.py's usage errors: refused with exit 2 before any DPDK
program runs (TAP). Usage: test_dpdk_plugin_usage.py DPDK_PLUGIN_PY PLUGIN
"""

import os
import subprocess
import sys
import tempfile

SCRIPT, PLUGIN = sys.argv[1:3]


def main():
    d = tempfile.mkdtemp(prefix="rxr_plugin_usage_")
    cases = (
        # Every run of an unknown strategy failed: 64 for autotest.
        (["autotest", PLUGIN, "nostrategy"], "nostrategy: not a strategy"),
        (["testpmd", PLUGIN, "bh", "zonex"], "zonex: not a strategy"),
        # EAL's -d DIR loaded every .so of the directory.
        (["testpmd", d], "the plugin is not a regular file"),
        (["perf-autotest", PLUGIN, "--shim", d, "--time-scale", "2"],
         "the shim is not a regular file"),
        (["mbuf-repeat", PLUGIN, "x"], "RUNS: a whole number above 0"),
        # Usage went out with exit 1.
        (["nomode", PLUGIN], "unknown mode nomode"),
        ([], "dpdk_plugin.py autotest PLUGIN"),
    )
    failed = 0
    for n, (args, needle) in enumerate(cases, 1):
        try:
            p = subprocess.run([sys.executable, SCRIPT] + args,
                               capture_output=True, text=True, timeout=20)
            ok = p.returncode == 2 and needle in p.stderr and \
                "EAL" not in p.stdout + p.stderr
            why = "exit %d: %s" % (p.returncode, p.stderr[-400:])
        except subprocess.TimeoutExpired:
            ok, why = False, "ran DPDK programs (still running after 20 s)"
        failed += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n, " ".join(
            a.replace(d, "DIR").replace(PLUGIN, "PLUGIN") for a in args)))
        if not ok:
            print("# want exit 2 and '%s'; %s" % (needle, why))
    os.rmdir(d)
    print("1..%d" % len(cases))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
